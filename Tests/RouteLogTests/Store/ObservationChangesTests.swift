import Foundation
import Testing
@testable import RouteLog

/// Reads a stream's elements into an array from a task of its own.
final class Collected<Element: Sendable>: Sendable {
    private let items = StateLock<[Element]>([])
    private let end = StateLock<(done: Bool, error: (any Error)?)>((false, nil))
    var values: [Element] { items.withLock { $0 } }
    var finished: Bool { end.withLock { $0.done } }
    var error: (any Error)? { end.withLock { $0.error } }

    func append(_ element: Element) { items.withLock { $0.append(element) } }
    func finish(_ error: (any Error)?) { end.withLock { $0 = (true, error) } }

    /// Waits until `predicate` holds for the values (or `finished` when asked).
    func wait(until predicate: @Sendable ([Element]) -> Bool) async {
        while !predicate(values) && !finished { try? await Task.sleep(nanoseconds: 1_000_000) }
    }

    func waitUntilFinished() async {
        while !finished { try? await Task.sleep(nanoseconds: 1_000_000) }
    }
}

func collect<S: AsyncSequence & Sendable>(_ stream: S, stopAfter count: Int = .max) -> (Collected<S.Element>, Task<Void, Never>)
where S.Element: Sendable {
    let collected = Collected<S.Element>()
    let task = Task {
        do {
            for try await element in stream {
                collected.append(element)
                if collected.values.count >= count { break }
            }
            collected.finish(nil)
        } catch {
            collected.finish(error)
        }
    }
    return (collected, task)
}

@Suite(.timeLimit(.minutes(3))) struct ObservationChangesTests {
    @Test func changesArriveInCommitOrderOnceDurable() async throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 21)
        let (seen, _) = collect(store.changes)
        let a = try store.save(routes.next())
        let batch = try store.save([routes.next(), routes.next()])
        try store.edit(a, RouteEdit(name: "Lake"))
        try store.delete(batch[0])
        let expected: [StoreChange] = [.saved(a), .saved(batch[0]), .saved(batch[1]), .edited(a), .deleted(batch[0])]
        await seen.wait { $0.count >= expected.count }
        #expect(seen.values == expected)
        // Durable when heard of: another handle reading the files finds all of it.
        let reader = try RouteStore(at: dir.store(), options: .init(mode: .readOnly))
        #expect(try reader.summaries().map(\.id) .sorted() == [a, batch[1]])
        #expect(try reader.summary(a).name == "Lake")
    }

    @Test func everySubscriberHearsEverythingAndOneThatStopsIsRemoved() async throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 22)
        let (first, _) = collect(store.changes)
        let (second, _) = collect(store.changes)
        let (quitter, quitterTask) = collect(store.changes, stopAfter: 1)
        let ids = try (0..<5).map { _ in try store.save(routes.next()) }
        await first.wait { $0.count >= 5 }
        await second.wait { $0.count >= 5 }
        await quitterTask.value
        #expect(first.values == ids.map(StoreChange.saved))
        #expect(second.values == ids.map(StoreChange.saved))
        #expect(quitter.values == [.saved(ids[0])])
        #expect(quitter.finished && quitter.error == nil)
        // The quitter's subscription is gone once its iterator is: two remain.
        #expect(store.changeHub.count == 2)
    }

    @Test func closeEndsEveryStreamAndLaterSubscriptionsEndAtOnce() async throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        let (a, _) = collect(store.changes)
        let (b, _) = collect(store.observeSummaries())
        await b.wait { !$0.isEmpty }
        try store.close()
        await a.waitUntilFinished()
        await b.waitUntilFinished()
        #expect(a.error == nil && b.error == nil)
        let (late, _) = collect(store.changes)
        await late.waitUntilFinished()
        #expect(late.values.isEmpty)
    }

    /// A subscriber that never reads holds at most its buffer, then learns it missed
    /// changes: never a silent gap.
    @Test func aSubscriberThatNeverReadsFallsBehindLoudly() async throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 23)
        let stream = store.changes(bufferingAtMost: 3)
        let ids = try store.save((0..<5).map { _ in routes.next() })
        var read: [StoreChange] = []
        do {
            for try await change in stream { read.append(change) }
            Issue.record("the stream ended without saying it fell behind")
        } catch let error as RouteLogError {
            #expect(error.code == .fellBehind)
        }
        #expect(read == ids.prefix(3).map(StoreChange.saved))
        #expect(store.changeHub.count == 0)
    }

    @Test func recordingsAndCompactionAreChangesToo() async throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(compaction: .manual))
        var routes = RandomRoutes(seed: 24)
        let (seen, _) = collect(store.changes)
        let doomed = try store.save(routes.next())
        try store.delete(doomed)
        let recorder = try store.startRecording()
        try recorder.append(Fixtures.sampleWalk(points: 20).points)
        try recorder.flush()
        let id = try recorder.finish()
        let report = try store.compact()
        #expect(report.segmentsCompacted > 0)
        let expected: [StoreChange] = [.saved(doomed), .deleted(doomed), .recordingStarted(id), .recordingFlushed(id),
                                       .recordingFinished(id), .compacted]
        await seen.wait { $0.count >= expected.count }
        #expect(seen.values == expected)
    }
}
