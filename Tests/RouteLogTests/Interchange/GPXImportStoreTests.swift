import Foundation
import Testing
@testable import RouteLog

/// Importing into a store: all or nothing per file.
@Suite struct GPXImportStoreTests {
    @Test func malformedFilesLeaveTheStoreUnchangedAndGoodFilesStillImport() throws {
        let dir = try InterchangeFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try RouteStore(at: dir.appendingPathComponent("s.routelog"))
        defer { try? store.close() }
        // Two good tracks, then a broken point: nothing of it may be saved.
        let original = try String(contentsOf: InterchangeFixtures.gpx("dougfales__tracks.gpx"), encoding: .utf8)
        let marker = "<name><![CDATA[Third Track]]></name>"
        #expect(original.contains(marker))
        let broken = original.replacingOccurrences(of: marker, with: marker + "<trkseg><trkpt lat=\"x\" lon=\"1\"/></trkseg>")
        let bad = dir.appendingPathComponent("bad.gpx")
        try Data(broken.utf8).write(to: bad)
        let truncated = dir.appendingPathComponent("truncated.gpx")
        try Data(original.utf8.prefix(original.utf8.count - 40)).write(to: truncated)
        let outcomes = GPXImporter.importFiles([bad, InterchangeFixtures.gpx("gpxgo__visnjan.gpx"), truncated,
                                                InterchangeFixtures.gpx("dougfales__waypoints.gpx")], into: store)
        #expect(outcomes.count == 4)
        guard case .failure(let error) = outcomes[0].result else { Issue.record("bad file imported"); return }
        #expect(error.code == .invalidArgument && error.message.contains("line "))
        guard case .failure = outcomes[2].result else { Issue.record("truncated file imported"); return }
        guard case .success(let visnjan) = outcomes[1].result else { Issue.record("good file failed"); return }
        guard case .success(let waypoints) = outcomes[3].result else { Issue.record("waypoints failed"); return }
        #expect(visnjan.routeIDs.count == 1)
        #expect(waypoints.routeIDs.isEmpty && waypoints.waypointsSkipped == 18)
        #expect(try store.summaries().map(\.id) == visnjan.routeIDs)
        #expect(try store.summaries()[0].pointCount == 413)
    }

    @Test func valuesTheStoreRefusesFailTheWholeFileBeforeAnythingIsSaved() throws {
        let dir = try InterchangeFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try RouteStore(at: dir.appendingPathComponent("s.routelog"))
        defer { try? store.close() }
        let text = GPXImportStoreTestsData.twoTracks(secondElevation: "1e12")
        let url = dir.appendingPathComponent("absurd.gpx")
        try Data(text.utf8).write(to: url)
        #expect(throws: RouteLogError.self) { try GPXImporter.importFile(url, into: store) }
        #expect(try store.summaries().isEmpty)
    }

    @Test func importedSummaryUsesTheEllipsoidalDistanceAndTheTrackName() throws {
        let dir = try InterchangeFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try RouteStore(at: dir.appendingPathComponent("s.routelog"))
        defer { try? store.close() }
        let report = try GPXImporter.importFile(InterchangeFixtures.gpx("georust__garmin-activity.gpx"), into: store)
        let summary = try store.summary(try #require(report.routeIDs.first))
        #expect(summary.name == "casual stroll")
        let reference = try #require(InterchangeFixtures.reference.files["georust__garmin-activity.gpx"]?.first)
        #expect(abs(summary.distance - reference.distance) / reference.distance < 1e-4)
        let stored = try store.route(summary.id)
        #expect(!stored.splits.isEmpty)
        #expect(stored.splits.filter { $0.unit == .kilometre }.count == Int(summary.distance / 1000))
    }

    @Test func aWholeDirectoryOfRealTracksImports() throws {
        let dir = try InterchangeFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try RouteStore(at: dir.appendingPathComponent("s.routelog"))
        defer { try? store.close() }
        let outcomes = GPXImporter.importDirectory(InterchangeFixtures.gpxDirectory, into: store)
        #expect(outcomes.count == 15)
        var routes = 0
        for outcome in outcomes {
            guard case .success(let report) = outcome.result else {
                Issue.record("\(outcome.file.lastPathComponent) failed")
                continue
            }
            routes += report.routeIDs.count
        }
        #expect(routes == 33)
        #expect(try store.summaries().count == 33)
        #expect(try store.summaries().map(\.pointCount).reduce(0, +) == 21_505)
    }
}

enum GPXImportStoreTestsData {
    static func twoTracks(secondElevation: String) -> String {
        """
        <?xml version="1.0"?>
        <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">
        <trk><trkseg><trkpt lat="1" lon="1"><time>2024-01-01T00:00:00Z</time></trkpt></trkseg></trk>
        <trk><trkseg><trkpt lat="1" lon="1"><ele>\(secondElevation)</ele><time>2024-01-01T00:00:00Z</time></trkpt></trkseg></trk>
        </gpx>
        """
    }
}
