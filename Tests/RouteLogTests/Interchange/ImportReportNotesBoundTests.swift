import Testing
@testable import RouteLog

/// An import report's notes stay a few lines whatever the file held: ten thousand
/// activities of one sport, or ten thousand routes already stored, used to be a line
/// of 150,000 characters and ten thousand lines. The report's arrays keep every one.
@Suite struct ImportReportNotesBoundTests {
    @Test func sportsAreTalliedOnceEach() {
        var report = RouteImportReport(source: "many.tcx", format: .tcx, version: "2")
        report.sports = Array(repeating: "Running", count: 9_998) + ["Biking", "Biking"]
        report.activities = Array(repeating: nil, count: 10_000)
        report.routeCount = 10_000
        let sport = report.notes.filter { $0.hasPrefix("sport: ") }
        #expect(sport == ["sport: Running (9998 routes), Biking (2 routes)"])
        #expect(report.sports.count == 10_000)
    }

    @Test func sportsPastTheFirstFewAreCounted() {
        var report = RouteImportReport(source: "many.tcx", format: .tcx, version: "2")
        report.sports = (0..<10_000).map { "sport \($0 % 9)" }
        report.activities = (0..<10_000).map { $0 % 2 == 0 ? "run" : nil }
        report.routeCount = 10_000
        let line = report.notes.first { $0.hasPrefix("sport: ") } ?? ""
        #expect(line.count < 300, "\(line.count) characters")
        // 18 distinct names (9 sports, each with and without the activity): five shown.
        // The first five names are points 0 to 4 mod 18, 556 routes each.
        #expect(line.hasSuffix(" and 13 more (\(10_000 - 5 * 556) route(s))"), "\(line)")
        #expect(line.hasPrefix("sport: sport 0 (run) (556 routes), sport 1 (556 routes), "), "\(line)")
    }

    @Test func duplicatesPastTheFirstFewAreCounted() {
        var report = RouteImportReport(source: "again.gpx", format: .gpx, version: "1.1")
        report.routeCount = 10_000
        report.duplicates = (1...10_000).map { DuplicateRoute(routeNumber: $0, existingID: RouteID(UInt64($0)), earlierRouteNumber: nil) }
        report.ignoredCRCMismatches = (1...40).map { "file \($0)" }
        let notes = report.notes
        #expect(notes.count <= 2 * (RouteImportReport.notesListedInFull + 1) + 2, "\(notes.count) lines")
        #expect(notes.contains("route 1 is already in the store as route 1: not imported again"))
        #expect(notes.contains("9995 more route(s) left out as duplicates"))
        #expect(notes.contains("35 more file(s) imported despite a bad CRC"))
        #expect(!notes.contains { $0.contains("route 6 is already") })
        #expect(report.duplicates.count == 10_000)
    }

    /// Five names of 60,000 characters each (a TCX Sport attribute may be that long):
    /// the line shows the start of each.
    @Test func longSportNamesAreShortened() {
        var report = RouteImportReport(source: "long.tcx", format: .tcx, version: "2")
        report.routeCount = 5
        report.sports = (0..<5).map { String(repeating: "\($0)", count: 60_000) }
        report.activities = Array(repeating: nil, count: 5)
        let line = report.notes.first { $0.hasPrefix("sport: ") } ?? ""
        #expect(line.count < 5 * (RouteImportReport.nameShownInFull + 3) + 10, "\(line.count) characters")
        #expect(line.hasPrefix("sport: " + String(repeating: "0", count: RouteImportReport.nameShownInFull) + "…, "))
        #expect(report.sports[0]?.count == 60_000)
    }

    @Test func aFewAreListedAsBefore() {
        var report = RouteImportReport(source: "walk.gpx", format: .gpx, version: "1.1")
        report.routeCount = 3
        report.sports = ["running", "cycling", "running"]
        report.activities = ["run", nil, "run"]
        report.duplicates = [DuplicateRoute(routeNumber: 2, existingID: nil, earlierRouteNumber: 1)]
        #expect(report.notes == ["sport: running (run) (2 routes), cycling",
                                 "route 2 repeats route 1 of the file: not imported twice"])
    }
}
