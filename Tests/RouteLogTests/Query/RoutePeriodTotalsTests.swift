import Foundation
import Testing
@testable import RouteLog

/// `totals(by:calendar:)` and `weeklyTotals(calendar:)`: weeks start on the calendar's
/// first weekday (Monday by default), months and years are the calendar's, in its time zone.
@Suite struct RoutePeriodTotalsTests {
    static func calendar(firstWeekday: Int, zone: String = "UTC") -> Calendar {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: zone)!
        c.firstWeekday = firstWeekday
        return c
    }

    @Test func weeksStartOnTheCalendarsFirstWeekday() throws {
        let dir = TemporaryDirectory()
        let store = try RouteQueryTests.makeStore(dir)
        // Route 3 starts on Sunday 2026-01-11: with Monday weeks it shares routes 1 and 2's
        // week; with Sunday weeks it starts the next one.
        let monday = try store.totals(by: .week, calendar: Self.calendar(firstWeekday: 2))
        #expect(monday.map { TestDay.string($0.start) } == ["2026-01-26", "2026-01-05"])
        #expect(monday.map(\.totals.routeCount) == [1, 3])
        let sunday = try store.totals(by: .week, calendar: Self.calendar(firstWeekday: 1))
        #expect(sunday.map { TestDay.string($0.start) } == ["2026-02-01", "2026-01-11", "2026-01-04"])
        #expect(sunday.map(\.totals.routeCount) == [1, 1, 2])
        // The default is Monday whatever the current calendar says.
        var utcMonday = Calendar.mondayFirst
        utcMonday.timeZone = TimeZone(identifier: "UTC")!
        #expect(try store.totals(by: .week, calendar: utcMonday) == monday)
        // Summed totals match the routes'.
        let all = try store.totals()
        #expect(sunday.reduce(0) { $0 + $1.totals.routeCount } == all.routeCount)
        #expect(abs(sunday.reduce(0) { $0 + $1.totals.distance } - all.distance) < 1e-6)
    }

    @Test func weeklyTotalsFollowTheCalendarsFirstWeekday() throws {
        let dir = TemporaryDirectory()
        let store = try RouteQueryTests.makeStore(dir)
        // Sunday-first weeks run Sunday to Saturday: route 3 (Sunday 2026-01-11) starts a
        // week of its own; Monday-first ones put it with routes 1 and 2.
        let sundayCalendar = Self.calendar(firstWeekday: 1)
        let sunday = try store.weeklyTotals(calendar: sundayCalendar)
        #expect(sunday.map { TestDay.string($0.weekStart) } == ["2026-02-01", "2026-01-11", "2026-01-04"])
        #expect(sunday.map(\.totals.routeCount) == [1, 1, 2])
        #expect(sunday.allSatisfy { sundayCalendar.component(.weekday, from: $0.weekStart) == 1 })
        let monday = try store.weeklyTotals(calendar: Self.calendar(firstWeekday: 2))
        #expect(monday.map { TestDay.string($0.weekStart) } == ["2026-01-26", "2026-01-05"])
        #expect(monday.map(\.totals.routeCount) == [1, 3])
        // The same weeks as totals(by: .week) with the same calendar.
        for firstWeekday in 1...7 {
            let calendar = Self.calendar(firstWeekday: firstWeekday)
            let weeks = try store.weeklyTotals(calendar: calendar)
            let periods = try store.totals(by: .week, calendar: calendar)
            #expect(weeks.map(\.weekStart) == periods.map(\.start), "firstWeekday \(firstWeekday)")
            #expect(weeks.map(\.totals) == periods.map(\.totals), "firstWeekday \(firstWeekday)")
        }
        // Without a calendar, weeks start on Monday whatever the locale's first weekday.
        #expect(try store.weeklyTotals().allSatisfy { Calendar.current.component(.weekday, from: $0.weekStart) == 2 })
    }

    @Test func monthsAndYearsInTheCalendarsZone() throws {
        let dir = TemporaryDirectory()
        let store = try RouteQueryTests.makeStore(dir)
        let months = try store.totals(by: .month, calendar: Self.calendar(firstWeekday: 2))
        #expect(months.map { TestDay.string($0.start) } == ["2026-02-01", "2026-01-01"])
        #expect(months.map(\.totals.routeCount) == [1, 3])
        #expect(months.allSatisfy { $0.period == .month })
        let years = try store.totals(by: .year, calendar: Self.calendar(firstWeekday: 2))
        #expect(years.count == 1 && years[0].totals.routeCount == 4)
        // In Honolulu (UTC-10) the 2026-02-01 09:00Z route started on 31 January.
        let honolulu = try store.totals(by: .month, calendar: Self.calendar(firstWeekday: 2, zone: "Pacific/Honolulu"))
        #expect(honolulu.map(\.totals.routeCount) == [4])
        // A query narrows what is counted.
        var rides = RouteQuery()
        rides.activities = [.ride]
        #expect(try store.totals(by: .year, calendar: Self.calendar(firstWeekday: 2), matching: rides).map(\.totals.routeCount) == [1])
    }
}

/// Day formatting for these tests: `2026-01-05` in UTC.
enum TestDay {
    static func string(_ date: Date) -> String {
        let f = DateFormatter()
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd"
        return f.string(from: date)
    }
}
