import Foundation
import Testing
@testable import RouteLog

@Suite struct RouteStoreBasicsTests {
    @Test func saveLoadListAndReopen() throws {
        let dir = TemporaryDirectory()
        var routes = RandomRoutes(seed: 3)
        var saved: [RouteID: Route] = [:]
        do {
            let store = try RouteStore(at: dir.store())
            for _ in 0..<30 {
                let route = routes.next()
                saved[try store.save(route)] = route
            }
            for (id, route) in saved { #expect(try store.route(id).withoutUUID == RouteCodec.quantize(route)) }
            #expect(try store.summaries().count == 30)
            try store.close()
        }
        let reopened = try RouteStore(at: dir.store())
        #expect(try reopened.count == 30)
        for (id, route) in saved { #expect(try reopened.route(id).withoutUUID == RouteCodec.quantize(route)) }
        let summaries = try reopened.summaries()
        #expect(summaries.map(\.startDate) == summaries.map(\.startDate).sorted())
    }

    @Test func summaryDescribesTheRoute() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        var route = Fixtures.sampleWalk(points: 600)
        route.metadata.name = "Evening loop"
        let id = try store.save(route)
        let s = try store.summary(id)
        let q = RouteCodec.quantize(route).points
        #expect(s.id == id)
        #expect(s.pointCount == 600)
        #expect(s.startDate == q[0].timestamp)
        #expect(abs(s.duration - q[599].timestamp.timeIntervalSince(q[0].timestamp)) < 0.0011)
        #expect(s.calories == route.metadata.calories)
        #expect(s.name == "Evening loop")
        #expect(s.startCoordinate == q[0].coordinate)
        #expect(s.endCoordinate == q[599].coordinate)
        #expect(s.boundingBox.southWest.latitude == q.map(\.latitude).min())
        #expect(s.boundingBox.northEast.longitude == q.map(\.longitude).max())
        #expect(abs(s.distance - RouteMetrics.distance(of: route.points)) < 1e-6)
        #expect(s.averageSpeed > 1.0 && s.averageSpeed < 2.0)
    }

    @Test func deleteEditAndIdsAreNeverReused() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(compaction: .manual))
        let a = try store.save(Fixtures.sampleWalk(seed: 1, points: 100))
        let b = try store.save(Fixtures.sampleWalk(seed: 2, points: 100))
        try store.delete(b)
        #expect(throws: RouteLogError.self) { try store.route(b) }
        do {
            try store.delete(b)
            Issue.record("a second delete must fail")
        } catch let error as RouteLogError {
            #expect(error.code == .notFound)
        }
        let edited = try store.edit(a, RouteEdit(shift: 7 * 86_400, name: "Renamed", calories: 321, distance: 4200))
        #expect(edited.name == "Renamed")
        #expect(edited.calories == 321)
        #expect(edited.distance == 4200)
        let original = RouteCodec.quantize(Fixtures.sampleWalk(seed: 1, points: 100))
        #expect(edited.startDate == original.points[0].timestamp.addingTimeInterval(7 * 86_400))
        let loaded = try store.route(a)
        #expect(loaded.points[0].timestamp == original.points[0].timestamp.addingTimeInterval(7 * 86_400))
        #expect(loaded.metadata.name == "Renamed")
        try store.compact()
        try store.close()
        let reopened = try RouteStore(at: dir.store())
        #expect(try reopened.summary(a) == edited)
        let c = try reopened.save(Fixtures.sampleWalk(seed: 3, points: 10))
        #expect(c.rawValue > b.rawValue, "id \(b) was deleted and compacted away; it must not come back as \(c)")
    }

    @Test func editToAStartDateAndClearingTheName() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        var route = Fixtures.sampleWalk(points: 10)
        route.metadata.name = "x"
        let id = try store.save(route)
        let target = Date(timeIntervalSince1970: 1_800_000_000)
        let s = try store.edit(id, RouteEdit(startDate: target, name: ""))
        #expect(s.startDate == target)
        #expect(s.name == nil)
        #expect(try store.route(id).points[0].timestamp == target)
        #expect(throws: RouteLogError.self) { try store.edit(id, RouteEdit(startDate: target, shift: 1)) }
        #expect(throws: RouteLogError.self) { try store.edit(id, RouteEdit(startDate: Date(timeIntervalSince1970: -100))) }
        #expect(throws: RouteLogError.self) { try store.edit(RouteID(999), RouteEdit(name: "nope")) }
    }

    @Test func weeklyTotalsStartOnMonday() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Rome")!
        calendar.firstWeekday = 2
        // Sunday 2026-11-22 23:30 and Monday 2026-11-23 00:30 local time: two weeks.
        let sunday = calendar.date(from: DateComponents(year: 2026, month: 11, day: 22, hour: 23, minute: 30))!
        let monday = calendar.date(from: DateComponents(year: 2026, month: 11, day: 23, hour: 0, minute: 30))!
        let first = try store.save(Fixtures.sampleWalk(seed: 1, points: 60, start: sunday))
        try store.save(Fixtures.sampleWalk(seed: 2, points: 60, start: monday))
        try store.save(Fixtures.sampleWalk(seed: 3, points: 60, start: monday.addingTimeInterval(3600)))
        var weeks = try store.weeklyTotals(calendar: calendar)
        #expect(weeks.count == 2)
        #expect(weeks[0].weekStart == calendar.date(from: DateComponents(year: 2026, month: 11, day: 23))!)
        #expect(weeks[0].totals.routeCount == 2)
        #expect(weeks[1].weekStart == calendar.date(from: DateComponents(year: 2026, month: 11, day: 16))!)
        #expect(weeks[1].totals.routeCount == 1)
        #expect(try store.totals().routeCount == 3)
        #expect(abs(try store.totals().distance - weeks.reduce(0) { $0 + $1.totals.distance }) < 1e-6)
        // Shifting the Sunday route by a week moves it into the next week, with the others.
        try store.edit(first, RouteEdit(shift: 7 * 86_400))
        weeks = try store.weeklyTotals(calendar: calendar)
        #expect(weeks.count == 1)
        #expect(weeks[0].totals.routeCount == 3)
        #expect(weeks[0].weekStart == calendar.date(from: DateComponents(year: 2026, month: 11, day: 23))!)
    }

    @Test func dateRangeListing() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(durability: .buffered))
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        for day in 0..<10 {
            try store.save(Fixtures.sampleWalk(seed: UInt64(day), points: 5, start: base.addingTimeInterval(Double(day) * 86_400)))
        }
        let middle = try store.summaries(from: base.addingTimeInterval(2 * 86_400), to: base.addingTimeInterval(5 * 86_400))
        #expect(middle.count == 3)
        #expect(try store.summaries(from: nil, to: base.addingTimeInterval(1)).count == 1)
        #expect(try store.summaries(from: base.addingTimeInterval(100 * 86_400), to: nil).isEmpty)
    }

    @Test func batchSaveAndSegmentRolling() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(segmentSizeLimit: 24 * 1024, compaction: .manual))
        let routes = (0..<40).map { Fixtures.sampleWalk(seed: UInt64($0), points: 400) }
        var ids: [RouteID] = []
        for start in stride(from: 0, to: 40, by: 4) { ids += try store.save(Array(routes[start..<(start + 4)])) }
        #expect(ids.count == 40)
        #expect(try store.statistics().segments.count >= 3)
        try store.close()
        let reopened = try RouteStore(readOnlyAt: dir.store())
        for (id, route) in zip(ids, routes) { #expect(try reopened.route(id).withoutUUID == RouteCodec.quantize(route)) }
    }

    @Test func concurrentSavesAndReads() async throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(durability: .buffered))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for i in 0..<25 {
                        let route = Fixtures.sampleWalk(seed: UInt64(worker * 100 + i), points: 200)
                        let id = try store.save(route)
                        #expect(try store.route(id).withoutUUID == RouteCodec.quantize(route))
                        _ = try store.summaries()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.count == 100)
        #expect(Set(try store.summaries().map(\.id)).count == 100)
    }

    @Test func filesAreReadableByTheOwnerOnly() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        try store.save(Fixtures.sampleWalk(points: 10))
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.store().path)
        #expect((attributes[.posixPermissions] as! Int) & 0o077 == 0)
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.store().path) {
            let mode = try FileManager.default.attributesOfItem(atPath: dir.store().appendingPathComponent(name).path)[.posixPermissions] as! Int
            #expect(mode & 0o077 == 0, "\(name) has mode \(String(mode, radix: 8))")
        }
    }
}
