import Foundation
import Testing
@testable import RouteLog

/// A track's `<type>` becomes the route's ``ActivityKind``, and an exported route's kind
/// is written as `<type>` and read back.
@Suite struct GPXActivityTypeTests {
    static func gpx(type: String) -> Data {
        Data("""
        <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>x</name>\
        <type>\(type)</type><trkseg><trkpt lat="1" lon="2"><time>2024-01-01T00:00:00Z</time></trkpt>\
        </trkseg></trk></gpx>
        """.utf8)
    }

    func kind(_ type: String) throws -> ActivityKind? {
        try #require(GPXImporter.read(data: Self.gpx(type: type), source: "t.gpx").routes.first).metadata.activity
    }

    @Test func theWordsAppsWriteMapToTheBuiltInKinds() throws {
        #expect(try kind("running") == .run)
        #expect(try kind(" Cycling\n") == .ride)
        #expect(try kind("mountain_biking") == .ride)
        #expect(try kind("hiking") == .hike)
        #expect(try kind("Walking") == .walk)
        #expect(try kind("swimming") == .swim)
        #expect(try kind("other") == .other)
    }

    @Test func anyOtherWordIsACustomKindAndAnOverlongOneIsDropped() throws {
        #expect(try kind("kayaking") == .custom("kayaking"))
        #expect(try kind("ski_touring") == .custom("ski touring"))
        #expect(try kind(String(repeating: "k", count: 65)) == nil)
        #expect(try kind("   ") == nil)
    }

    @Test func aRealGarminExportIsARun() throws {
        let result = try GPXImporter.read(contentsOf: InterchangeFixtures.gpx("georust__garmin-activity.gpx"))
        #expect(result.routes.first?.metadata.activity == .run)
    }

    @Test func anExportedKindIsImportedAgain() throws {
        for kind: ActivityKind in [.walk, .run, .hike, .ride, .swim, .other, .custom("kayak & canoe")] {
            var route = Route(points: [TrackPoint(latitude: 1, longitude: 2, timestamp: Date(timeIntervalSince1970: 1_700_000_000))])
            route.metadata.activity = kind
            let data = GPXWriter.write(route)
            #expect(try GPXImporter.read(data: data, source: "k.gpx").routes.first?.metadata.activity == kind)
        }
    }
}
