import Foundation
import Testing
@testable import RouteLog

@Suite(.timeLimit(.minutes(3))) struct ObservationSummariesTests {
    @Test func theCurrentListFirstThenOneAfterEachChangeThatAffectsIt() async throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 31)
        let existing = try store.save(routes.next())
        try store.edit(existing, RouteEdit(name: "keep Old"))
        let (lists, _) = collect(store.observeSummaries(matching: { $0.name?.hasPrefix("keep") == true },
                                                         sortedBy: { $0.name! < $1.name! }))
        await lists.wait { $0.count >= 1 }
        #expect(lists.values.map { $0.map(\.id) } == [[existing]])
        // A change the list does not show gives no new list.
        let other = try store.save(routes.next())
        let kept = try store.save(routes.next())
        try store.edit(kept, RouteEdit(name: "keep A"))
        await lists.wait { $0.last?.count == 2 }
        #expect(lists.values.last!.map(\.id) == [kept, existing])
        #expect(lists.values.allSatisfy { list in !list.contains { $0.id == other } })
        try store.delete(existing)
        await lists.wait { $0.last?.map(\.id) == [kept] }
        // Every list handed on differs from the one before it.
        #expect(zip(lists.values, lists.values.dropFirst()).allSatisfy { $0 != $1 })
    }

    @Test func anyValueCanBeObserved() async throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 32)
        let (counts, task) = collect(store.observe { try $0.count }, stopAfter: 3)
        await counts.wait { $0.count >= 1 }
        try store.save(routes.next())
        await counts.wait { $0.count >= 2 }
        try store.save(routes.next())
        await task.value
        #expect(counts.values == [0, 1, 2])
        #expect(store.changeHub.count == 0)
    }

    @Test func identifiableSummariesAreIdentifiedByTheirRoute() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 33)
        let id = try store.save(routes.next())
        func identity<T: Identifiable>(_ value: T) -> T.ID { value.id }
        #expect(identity(try store.summary(id)) == id)
    }
}
