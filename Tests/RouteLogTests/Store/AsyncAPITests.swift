import Dispatch
import Foundation
import Testing
@testable import RouteLog

@Suite struct AsyncAPITests {
    @Test func everyAsyncCallDoesWhatTheSynchronousOneDoes() async throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 11)
        let first = routes.next(), second = routes.next(), third = routes.next()
        let id = try await store.async.save(first)
        let ids = try await store.async.save([second, third])
        #expect(try await store.async.route(id).withoutUUID == RouteCodec.quantize(first))
        #expect(try await store.async.summaries().map(\.id).sorted() == ([id] + ids).sorted())
        let edited = try await store.async.edit(ids[0], RouteEdit(name: "Ridge"))
        #expect(edited.name == "Ridge")
        #expect(try store.summary(ids[0]).name == "Ridge")
        try await store.async.delete(ids[1])
        #expect(try store.count == 2)
        let report = try await store.async.compact()
        #expect(report.bytesAfter <= report.bytesBefore)
        #expect(try await store.async.verify().isClean)
        try store.close()
        await #expect(throws: RouteLogError.self) { try await store.async.summaries() }
    }

    @Test func aCancelledTaskSavesNothing() async throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 12)
        let route = routes.next()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await store.async.save(route)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try store.count == 0)
    }

    /// A task cancelled while its call waits in the store's queue is refused when its
    /// turn comes, before any work.
    @Test func aTaskCancelledWhileQueuedSavesNothing() async throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 13)
        let route = routes.next()
        let gate = DispatchSemaphore(value: 0)
        store.work.queue.async { gate.wait() }  // holds the queue
        let task = Task { try await store.async.save(route) }
        // The task is queued behind the held block; cancel it there.
        while !store.work.hasQueuedCall { await Task.yield() }
        task.cancel()
        gate.signal()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try store.count == 0)
    }

    /// More async saves than the cooperative pool has threads wait on a held writer
    /// lock, and an unrelated task still runs: none of them holds a pool thread.
    @Test(.timeLimit(.minutes(3))) func waitingCallsLeaveTheCooperativePoolFree() async throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 14)
        let batch = (0..<(ProcessInfo.processInfo.activeProcessorCount * 4 + 8)).map { _ in routes.next() }
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            store.writer.withLock { _ in
                held.signal()
                release.wait()
            }
        }
        held.wait()
        let saves = Task {
            try await withThrowingTaskGroup(of: RouteID.self) { group in
                for route in batch { group.addTask { try await store.async.save(route) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        // Runs on the pool while every save is parked: it would never run if they held
        // the pool's threads.
        let unrelated = await Task.detached { (1...1000).reduce(0, +) }.value
        #expect(unrelated == 500_500)
        #expect(try store.count == 0)
        release.signal()
        let ids = try await saves.value
        #expect(Set(ids).count == batch.count)
        #expect(try store.count == batch.count)
    }
}
