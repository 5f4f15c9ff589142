import Foundation
import Testing
@testable import RouteLog

/// A `<trk>`, `<rte>`, TCX Activity or Course without a point is counted, never kept:
/// a file of millions of them (`<trk/>` is six bytes) once kept each one, and 60 MB of
/// them took 2.8 GB. What the readers hold is checked here, not the memory itself.
@Suite struct ImportPathsWithoutPointsTests {
    @Test func gpxTracksAndRoutesWithoutPointsAreCountedNotKept() throws {
        let empty = String(repeating: "<trk/><rte><name>planned</name></rte><trk><trkseg/><trkseg/></trk>", count: 20_000)
        let text = GPXImportLimitsTests.head + empty
            + "<trk><trkseg><trkpt lat=\"47.1\" lon=\"8.5\"/><trkpt lat=\"47.2\" lon=\"8.5\"/></trkseg></trk></gpx>\n"
        let contents = try GPXReader.read(data: Data(text.utf8), source: "empty.gpx")
        #expect(contents.paths.map(\.count) == [2], "only the path with points is kept")
        #expect(contents.pathsWithoutPoints == 60_000 && contents.segmentsOfPathsWithoutPoints == 40_000)
        let result = try GPXImporter.read(data: Data(text.utf8), source: "empty.gpx")
        #expect(result.routes.map(\.points.count) == [2])
        #expect(result.report.emptyPathsSkipped == 60_000 && result.report.emptySegmentsSkipped == 40_000)
        #expect(result.report.notes.contains("60000 track(s)/route(s) without points skipped"))
    }

    /// Routes are numbered as every import message numbers them (the routes with points,
    /// in file order), and a refused GPX path also by its place counting empty ones.
    @Test func aGPXPathIsNamedByItsRouteNumberAndItsPlaceInTheFileEmptyOnesCounted() throws {
        let short = "<trk><trkseg><trkpt lat=\"47.1\" lon=\"8.5\"/><trkpt lat=\"47.2\" lon=\"8.5\"/></trkseg></trk>"
        let text = GPXImportLimitsTests.head + "<trk/>" + short + "<rte/><trk><trkseg>" + GPXImportLimitsTests.halfTheWorldApart
            + "</trkseg></trk></gpx>"
        var options = RouteImportOptions()
        options.limits.splitsPerRoute = 10_000
        let error = try #require(throwsError { try GPXImporter.read(data: Data(text.utf8), options: options) })
        #expect(error.message.hasPrefix("GPX refused: route 2 of the file (path 4, counting tracks and routes without points)"),
                "\(error.message)")
    }

    @Test func tcxActivitiesAndCoursesWithoutPointsAreCountedNotKept() throws {
        let empty = String(repeating: "<Activity Sport=\"Running\"><Id>2024-05-01T08:00:00Z</Id><Lap><Track/></Lap></Activity>",
                           count: 20_000)
        let bytes = TCXImportStructureTests.tcx("<Activities>" + empty + "<Activity Sport=\"Biking\"><Lap><Track>"
            + TCXImportStructureTests.point(0) + "</Track></Lap></Activity></Activities>"
            + "<Courses><Course><Name>no points</Name></Course></Courses>")
        let contents = try TCXReader.read(data: Data(bytes), source: "empty.tcx", options: .init())
        #expect(contents.paths.map(\.path.count) == [1], "only the Activity with points is kept")
        #expect(contents.pathsWithoutPoints == 20_001)
        let result = try TCXImportStructureTests.read(bytes)
        #expect(result.routes.map(\.points.count) == [1] && result.report.sports == ["Biking"])
        #expect(result.report.emptyPathsSkipped == 20_001)
        #expect(result.report.notes.contains("20001 activity(ies)/course(s) without points skipped"))
    }
}
