import Foundation
import Testing
@testable import RouteLog

/// Damaged input never crashes the reader: it either reads or fails with a position.
@Suite struct GPXImportRobustnessTests {
    @Test func everyTruncationFailsWithALineOrReadsCleanly() throws {
        let original = try Data(contentsOf: InterchangeFixtures.gpx("gpxpy__track-with-empty-segment.gpx"))
        var generator = SeededGenerator(state: 42)
        var failures = 0
        for _ in 0..<200 {
            let cut = Int.random(in: 0..<original.count, using: &generator)
            do {
                let result = try GPXImporter.read(data: original.prefix(cut), source: "cut.gpx")
                // Only a cut in the trailing white space after </gpx> can still read.
                #expect(result.routes.map(\.points.count) == [9], "cut at \(cut)")
            } catch let error as RouteLogError {
                failures += 1
                #expect(error.code == .invalidArgument)
                #expect(error.message.contains("line ") || error.message.contains("no <gpx>"), "cut at \(cut): \(error)")
            }
        }
        #expect(failures > 150)
    }

    @Test func flippedBytesNeverCrashAndNeverYieldNaN() throws {
        let original = try Data(contentsOf: InterchangeFixtures.gpx("gpxgo__visnjan.gpx"))
        var generator = SeededGenerator(state: 7)
        for _ in 0..<100 {
            var bytes = [UInt8](original)
            for _ in 0..<3 {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[at] = UInt8.random(in: 0...255, using: &generator)
            }
            guard let result = try? GPXImporter.read(data: Data(bytes), source: "flipped.gpx") else { continue }
            for route in result.routes {
                #expect(route.points.allSatisfy { $0.latitude.isFinite && $0.longitude.isFinite })
                #expect(RouteMetrics.distance(of: route.points, segmentStarts: route.segmentStarts).isFinite)
            }
        }
    }

    @Test func entityExpansionIsNotABomb() throws {
        var text = "<?xml version=\"1.0\"?>\n<!DOCTYPE gpx [<!ENTITY a \"aaaaaaaaaa\">"
        for level in 1...9 { text += "<!ENTITY \(Character(UnicodeScalar(97 + level)!)) \"" + String(repeating: "&\(Character(UnicodeScalar(96 + level)!));", count: 10) + "\">" }
        text += "]>\n<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><name>&j;</name>"
            + "<trkseg><trkpt lat=\"1\" lon=\"1\"><time>2024-01-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>"
        do {
            let result = try GPXImporter.read(data: Data(text.utf8), source: "bomb.gpx")
            print("entity expansion: read, name of \(result.routes.first?.metadata.name?.utf8.count ?? -1) bytes")
            Issue.record("ten gigabytes of entities were accepted")
        } catch let error as RouteLogError {
            print("entity expansion: \(error)")
            #expect(error.code == .invalidArgument && error.message.contains("line ") && error.message.contains("entit"))
        }
    }
}
