import Foundation
import Testing
@testable import RouteLog

/// Importing what the store already holds adds nothing and says so: the same file
/// twice, a route repeated in one file, and the same activity from a FIT file and from
/// the GPX written from it. A route that differs by one stored unit is new.
@Suite struct ImportDuplicatesTests {
    static let track = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/gpx/commons-dost__1651066759000.gpx")

    @Test func theSameFileTwiceAddsItsRoutesOnce() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        defer { try? store.close() }
        let first = try RouteImporter.importFile(Self.track, into: store)
        #expect(first.routeIDs.count == 1 && first.duplicates.isEmpty)
        let second = try RouteImporter.importFile(Self.track, into: store)
        #expect(second.routeIDs.isEmpty)
        #expect(second.duplicates == [DuplicateRoute(routeNumber: 1, existingID: first.routeIDs[0])])
        #expect(second.notes.contains("route 1 is already in the store as route \(first.routeIDs[0]): not imported again"))
        #expect(try store.summaries().count == 1)

        var options = RouteImportOptions()
        options.allowsDuplicates = true
        let forced = try RouteImporter.importFile(Self.track, into: store, options: options)
        #expect(forced.routeIDs.count == 1 && forced.duplicates.isEmpty)
        #expect(try store.summaries().count == 2)
    }

    @Test func aRouteRepeatedInOneFileIsSavedOnce() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        defer { try? store.close() }
        let segment = (0..<5).map { i in
            #"<trkpt lat="47.\#(i)" lon="8.1"><time>2026-01-01T10:00:0\#(i)Z</time></trkpt>"#
        }.joined()
        let moved = segment.replacingOccurrences(of: #"lat="47.4""#, with: #"lat="47.4000001""#)
        let gpx = """
        <?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">
        <trk><trkseg>\(segment)</trkseg></trk><trk><trkseg>\(segment)</trkseg></trk><trk><trkseg>\(moved)</trkseg></trk></gpx>
        """
        let url = dir.url.appendingPathComponent("twice.gpx")
        try Data(gpx.utf8).write(to: url)
        let report = try RouteImporter.importFile(url, into: store)
        #expect(report.routeIDs.count == 2, "the third track differs by 1e-7 degree in one point: a route of its own")
        #expect(report.duplicates == [DuplicateRoute(routeNumber: 2, earlierRouteNumber: 1)])
        #expect(report.notes.contains("route 2 repeats route 1 of the file: not imported twice"))
        // What was saved and what was left out are counted apart.
        #expect(report.routeCount == 3 && report.pointCount == 15 && report.savedPointCount == 10)
        #expect(report.summaryLine == "\(url.path): 2 route(s), 10 point(s) imported; 1 duplicate(s) skipped")
        let again = try RouteImporter.importFile(url, into: store)
        #expect(again.routeIDs.isEmpty && again.savedPointCount == 0 && again.duplicates.count == 3)
    }

    @Test(.enabled(if: WatchFileFixtures.available, "needs ../shared/data/fit (never copied into the project)"))
    func aFITActivityAndTheGPXWrittenFromItAreOneRoute() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        defer { try? store.close() }
        let fit = WatchFileFixtures.fitDirectory.appendingPathComponent("tormoder__edge500-activity.fit")
        let fromFIT = try RouteImporter.importFile(fit, into: store)
        let id = try #require(fromFIT.routeIDs.first)
        let gpx = dir.url.appendingPathComponent("edge500.gpx")
        try RouteExporter.data(for: id, in: store, format: .gpx).write(to: gpx)
        let fromGPX = try RouteImporter.importFile(gpx, into: store)
        #expect(fromGPX.routeIDs.isEmpty && fromGPX.duplicates.map(\.existingID) == [id])
        #expect(try store.existingRoute(equalTo: RouteImporter.read(contentsOf: gpx).routes[0]) == id)
    }
}
