import Foundation
import RouteLog
import Testing
@testable import routelog_bench

@Suite struct GPXTracksTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/gpx")

    @Test func replaysTheTimedFixturesOneRoutePerFile() throws {
        let tracks = GPXTracks.load(from: Self.fixtures)
        let names = tracks.map(\.file)
        #expect(names.contains("georust__garmin-activity.gpx"))
        #expect(names.contains("jpx__Gpx-full-sample.gpx"))
        // No times at all: skipped rather than replayed at one instant.
        #expect(!names.contains("dougfales__one_segment_no_time.gpx"))
        #expect(!names.contains("dougfales__waypoints.gpx"))
        let big = try #require(tracks.first { $0.file == "dougfales__big.gpx" })
        #expect(big.route.points.count == 7_968)
        #expect(big.route.segmentStarts.count >= 31, "32 segments join at 31 places; gaps over an hour add breaks")
        for track in tracks { try RouteValidation.validate(track.route) }
    }

    @Test func joiningKeepsEveryBoundary() {
        let t = Date(timeIntervalSince1970: 1_600_000_000)
        let a = Route(points: (0..<3).map { TrackPoint(latitude: 0, longitude: Double($0) / 1000, timestamp: t + Double($0)) },
                      segmentStarts: [2])
        let b = Route(points: (0..<2).map { TrackPoint(latitude: 1, longitude: Double($0) / 1000, timestamp: t + 10 + Double($0)) })
        let joined = GPXTracks.joined([a, b])
        #expect(joined?.points.count == 5)
        #expect(joined?.segmentStarts == [2, 3])
    }
}
