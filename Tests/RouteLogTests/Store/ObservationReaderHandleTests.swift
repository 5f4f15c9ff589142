import Foundation
import Testing
@testable import RouteLog

/// A read-only handle (as another process would open it) hears what the writer's
/// handle commits, from the store's files: on Linux by inotify, elsewhere by polling.
/// The two handles are in one process here; RoutelogCLITests' `ls --follow` test has
/// the writer in another process.
@Suite(.timeLimit(.minutes(3))) struct ObservationReaderHandleTests {
    @Test func aReaderHandleHearsTheWritersChangesInCommitOrder() async throws {
        let dir = TemporaryDirectory()
        let writer = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 61)
        let reader = try RouteStore(at: dir.store(), options: .init(mode: .readOnly))
        let (seen, _) = collect(reader.changes)
        let a = try writer.save(routes.next())
        let batch = try writer.save([routes.next(), routes.next()])
        try writer.edit(a, RouteEdit(name: "Lake"))
        try writer.delete(batch[0])
        let expected: [StoreChange] = [.saved(a), .saved(batch[0]), .saved(batch[1]), .edited(a), .deleted(batch[0])]
        await seen.wait { $0.count >= expected.count }
        #expect(seen.values == expected)
        // The handle's reads moved on with what it heard.
        #expect(try reader.summaries().map(\.id).sorted() == [a, batch[1]])
        #expect(try reader.summary(a).name == "Lake")
        #expect(try reader.route(batch[1]) == writer.route(batch[1]))
    }

    /// Rolls add segments to the manifest: the reader reads on into each new one.
    @Test func aReaderHandleFollowsTheWriterIntoNewSegments() async throws {
        let dir = TemporaryDirectory()
        let writer = try RouteStore(at: dir.store(), options: .init(segmentSizeLimit: 4096))
        var routes = RandomRoutes(seed: 62)
        let reader = try RouteStore(at: dir.store(), options: .init(mode: .readOnly))
        let (seen, _) = collect(reader.changes)
        let ids = try (0..<12).map { _ in try writer.save(routes.next()) }
        #expect(try writer.statistics().segments.count > 3)
        let count = ids.count
        await seen.wait { $0.count >= count }
        #expect(seen.values == ids.map(StoreChange.saved))
        #expect(try reader.statistics().segments.count == writer.statistics().segments.count)
        for id in ids { #expect(try reader.route(id) == writer.route(id)) }
    }

    @Test func observedSummariesOfAReaderHandleFollowTheWriter() async throws {
        let dir = TemporaryDirectory()
        let writer = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 63)
        let first = try writer.save(routes.next())
        let reader = try RouteStore(at: dir.store(), options: .init(mode: .readOnly))
        let (lists, _) = collect(reader.observeSummaries())
        await lists.wait { $0.count >= 1 }
        #expect(lists.values.first?.map(\.id) == [first])
        let second = try writer.save(routes.next())
        await lists.wait { $0.last.map { Set($0.map(\.id)) } == [first, second] }
        try writer.delete(first)
        await lists.wait { $0.last?.map(\.id) == [second] }
        #expect(lists.values.last?.map(\.id) == [second])
        #expect(lists.error == nil && !lists.finished)
    }

    @Test func recordingsReachAReaderHandleToo() async throws {
        let dir = TemporaryDirectory()
        let writer = try RouteStore(at: dir.store())
        let reader = try RouteStore(at: dir.store(), options: .init(mode: .readOnly))
        let (seen, _) = collect(reader.changes)
        let recorder = try writer.startRecording()
        try recorder.append(Fixtures.sampleWalk(points: 20).points)
        try recorder.flush()
        let id = try recorder.finish()
        let expected: [StoreChange] = [.recordingStarted(id), .recordingFlushed(id), .recordingFinished(id)]
        await seen.wait { $0.count >= expected.count }
        #expect(seen.values == expected)
        #expect(try reader.route(id) == writer.route(id))
    }

    /// A compaction replaces the files: the reader reads the store again and hears the
    /// difference (here the deletes, unless it heard them before the switch), then
    /// `.compacted`, and reads the new files from then on.
    @Test func aCompactionReachesAReaderHandleAsCompacted() async throws {
        let dir = TemporaryDirectory()
        let writer = try RouteStore(at: dir.store(), options: .init(segmentSizeLimit: 4096, compaction: .manual))
        var routes = RandomRoutes(seed: 64)
        let ids = try (0..<8).map { _ in try writer.save(routes.next()) }
        let reader = try RouteStore(at: dir.store(), options: .init(mode: .readOnly))
        let (seen, _) = collect(reader.changes)
        for id in ids.prefix(4) { try writer.delete(id) }
        #expect(try writer.compact().segmentsCompacted > 0)
        // The save after comes once the reader has caught up with the compaction: one
        // that reaches it before would be part of the difference it reads.
        await seen.wait { $0.contains(.compacted) }
        let later = try writer.save(routes.next())
        await seen.wait { $0.contains(.saved(later)) }
        let values = seen.values
        #expect(Set(values.filter { $0 != .compacted && $0 != .saved(later) }) == Set(ids.prefix(4).map(StoreChange.deleted)))
        #expect(values.filter { $0 == .compacted }.count == 1)
        #expect(values.last == .saved(later))
        #expect(try reader.summaries().map(\.id) == writer.summaries().map(\.id))
        for id in try writer.summaries().map(\.id) { #expect(try reader.route(id) == writer.route(id)) }
        #expect(try reader.verify().isClean)
    }

    /// The portable fallback (what Apple builds use for now) hears the same changes.
    @Test func thePollingWatchFollowsTheWriterToo() async throws {
        let dir = TemporaryDirectory()
        let writer = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 65)
        let reader = try RouteStore(at: dir.store(), options: .init(mode: .readOnly))
        reader.following.kind.withLock { $0 = .polling }
        let (seen, _) = collect(reader.changes)
        let a = try writer.save(routes.next())
        await seen.wait { $0.count >= 1 }
        let b = try writer.save(routes.next())
        try writer.edit(a, RouteEdit(name: "Hill"))
        await seen.wait { $0.count >= 3 }
        #expect(seen.values == [.saved(a), .saved(b), .edited(a)])
    }

    /// refresh() on a handle with subscribers tells them what it picked up; the reader's
    /// own handle never writes, so it makes no change of its own to hear twice.
    @Test func refreshTellsTheSubscribersAndCloseEndsTheWatch() async throws {
        let dir = TemporaryDirectory()
        let writer = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 66)
        let reader = try RouteStore(at: dir.store(), options: .init(mode: .readOnly))
        let (seen, _) = collect(reader.changes)
        let a = try writer.save(routes.next())
        try reader.refresh()
        #expect(try reader.summaries().map(\.id) == [a])
        await seen.wait { $0.count >= 1 }
        #expect(seen.values == [.saved(a)])
        try reader.close()
        await seen.waitUntilFinished()
        #expect(seen.error == nil)
        try writer.save(routes.next())
        #expect(throws: RouteLogError.self) { try reader.refresh() }
        #expect(seen.values == [.saved(a)])
    }
}
