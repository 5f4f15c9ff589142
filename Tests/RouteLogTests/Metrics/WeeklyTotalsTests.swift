import Foundation
import Testing
@testable import RouteLog

@Suite struct WeeklyTotalsTests {
    /// Grouping by day arithmetic must agree with the calendar's own week, across DST
    /// changes and zones on both sides of UTC, for weeks starting on Sunday, Monday or
    /// Saturday.
    @Test(arguments: ["Europe/Rome", "America/Los_Angeles", "Asia/Kolkata", "Pacific/Chatham", "UTC", "Australia/Lord_Howe"],
          [1, 2, 7])
    func weeksMatchTheCalendar(_ zone: String, firstWeekday: Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        calendar.firstWeekday = firstWeekday
        var g = SeededGenerator(state: 11)
        var summaries: [RouteSummary] = []
        for i in 0..<600 {
            let start = Date(timeIntervalSince1970: Double.random(in: 1_600_000_000...1_800_000_000, using: &g))
            let c = Coordinate(latitude: 0, longitude: 0)
            summaries.append(RouteSummary(id: RouteID(UInt64(i + 1)), startDate: start, duration: 60, distance: 1000, calories: 10,
                                          pointCount: 1, boundingBox: BoundingBox(southWest: c, northEast: c),
                                          startCoordinate: c, endCoordinate: c, name: nil))
        }
        var expected: [Date: Int] = [:]
        for s in summaries { expected[calendar.dateInterval(of: .weekOfYear, for: s.startDate)!.start, default: 0] += 1 }
        let weeks = WeeklyTotals.group(summaries, calendar: calendar)
        #expect(Dictionary(uniqueKeysWithValues: weeks.map { ($0.weekStart, $0.totals.routeCount) }) == expected)
        #expect(weeks.allSatisfy { calendar.component(.weekday, from: $0.weekStart) == firstWeekday })
        #expect(weeks.map(\.weekStart) == weeks.map(\.weekStart).sorted(by: >))
    }
}
