import Foundation
import Testing
@testable import RouteLog

/// What the index keeps once asked for (totals per day, the cell → routes map of
/// pass-through queries) must stay equal to computing it afresh as routes are saved,
/// edited and deleted, and after the store is reopened.
@Suite struct RouteIndexMaintenanceTests {
    static func calendar(_ zone: String, firstWeekday: Int) -> Calendar {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: zone)!
        c.firstWeekday = firstWeekday
        return c
    }

    /// A short walk north-east from `origin`, starting `hours` after 2026-03-01.
    static func walk(_ origin: Coordinate, hours: Double, count: Int = 60) -> Route {
        let start = Date(timeIntervalSince1970: 1_772_323_200 + hours * 3_600)
        return Route(points: RouteQueryTests.line(from: origin, to: Coordinate(latitude: origin.latitude + 0.01, longitude: origin.longitude + 0.012),
                                                  count: count, start: start),
                     metadata: RouteMetadata(calories: Double(count)))
    }

    /// Totals recomputed from the summaries, the way they were before the index kept them.
    static func expectFresh(_ store: RouteStore, _ calendar: Calendar, _ note: String) throws {
        let summaries = try store.summaries()
        let weeks = try store.weeklyTotals(calendar: calendar)
        let fresh = WeeklyTotals.group(summaries, calendar: calendar)
        #expect(weeks.map(\.weekStart) == fresh.map(\.weekStart), "\(note)")
        #expect(weeks.map(\.totals.routeCount) == fresh.map(\.totals.routeCount), "\(note)")
        for (kept, made) in zip(weeks, fresh) {
            #expect(abs(kept.totals.distance - made.totals.distance) < 1e-6, "\(note)")
            #expect(abs(kept.totals.duration - made.totals.duration) < 1e-9, "\(note)")
            #expect(kept.totals.calories == made.totals.calories, "\(note)")
        }
        for period in TotalsPeriod.allCases {
            let kept = try store.totals(by: period, calendar: calendar)
            let made = PeriodTotals.group(summaries, by: period, calendar: calendar)
            #expect(kept.map(\.start) == made.map(\.start), "\(note) \(period)")
            #expect(kept.map(\.totals.routeCount) == made.map(\.totals.routeCount), "\(note) \(period)")
        }
        let all = try store.totals()
        #expect(all.routeCount == summaries.count, "\(note)")
        #expect(abs(all.distance - summaries.reduce(0) { $0 + $1.distance }) < 1e-6, "\(note)")
        #expect(all.calories == summaries.reduce(0) { $0 + $1.calories }, "\(note)")
    }

    @Test func totalsFollowSavesEditsAndDeletes() throws {
        let dir = TemporaryDirectory()
        let calendar = Self.calendar("America/New_York", firstWeekday: 1)
        var store = try RouteStore(at: dir.store(), options: .init(compaction: .manual))
        // Routes every 7 hours over five weeks: local days and weeks change at different
        // UTC hours on each side of the daylight-saving change of 2026-03-08.
        let ids = try store.save((0..<120).map { Self.walk(RouteQueryTests.milan, hours: Double($0) * 7, count: 20 + $0 % 9) })
        try Self.expectFresh(store, calendar, "first call")
        try store.save(Self.walk(RouteQueryTests.milan, hours: 900))
        try Self.expectFresh(store, calendar, "after a save")
        try store.delete(ids[3])
        try store.delete(ids[4])
        try Self.expectFresh(store, calendar, "after deletes")
        // Moving a route's start moves it to another day and week; other edits change its sums.
        try store.edit(ids[10], RouteEdit(calories: 1_000, distance: 12_345))
        try store.edit(ids[11], RouteEdit(startDate: Date(timeIntervalSince1970: 1_772_323_200 - 20 * 86_400)))
        try store.edit(ids[12], RouteEdit(shift: 3 * 3_600))
        try Self.expectFresh(store, calendar, "after edits")
        // Another zone replaces the kept days; the first comes back the same.
        try Self.expectFresh(store, Self.calendar("Asia/Kathmandu", firstWeekday: 2), "another zone")
        try Self.expectFresh(store, calendar, "back to the first zone")
        try store.close()
        store = try RouteStore(at: dir.store(), options: .init(compaction: .manual))
        defer { try? store.close() }
        try Self.expectFresh(store, calendar, "reopened")
    }

    @Test func passThroughFollowsSavesAndDeletes() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(compaction: .manual))
        defer { try? store.close() }
        let area = RouteQueryTests.box(45.455, 9.185, 45.475, 9.205)
        var query = RouteQuery()
        query.passesThrough = area
        func expectBruteForce(_ note: String) throws {
            let inside = QueryArea(area)
            var expected: [UInt64] = []
            for summary in try store.summaries() where try store.route(summary.id).points.contains(where: inside.contains) {
                expected.append(summary.id.rawValue)
            }
            #expect(try RouteQueryTests.ids(store, query) == expected, "\(note)")
        }
        // Walks starting on a 0.005° grid around the area: inside it, across its edges, outside.
        var next = 0.0
        func walks(_ count: Int) -> [Route] {
            (0..<count).map { i in
                defer { next += 1 }
                let origin = Coordinate(latitude: 45.44 + Double(i % 8) * 0.005, longitude: 9.17 + Double(i / 8) * 0.005)
                return Self.walk(origin, hours: next)
            }
        }
        let first = try store.save(walks(40))
        try expectBruteForce("first query")
        #expect(try !RouteQueryTests.ids(store, query).isEmpty)
        try store.save(walks(24))
        try expectBruteForce("after saves")
        for id in first where id.rawValue % 3 == 0 { try store.delete(id) }
        try expectBruteForce("after deletes")
    }
}
