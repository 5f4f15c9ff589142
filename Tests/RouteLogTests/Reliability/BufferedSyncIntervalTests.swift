import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// Buffered saves are synced at least every ``IndexFile/syncInterval`` changes, so that a
/// power loss costs at most that many, whatever became of the index file.
@Suite struct BufferedSyncIntervalTests {
    static let options = RouteStore.Options(durability: .buffered, compaction: .manual).withoutQuietSync()

    /// Saves `count` one-point routes and returns how many segment syncs they brought.
    static func segmentSyncs(saving count: Int, indexBroken: Bool) throws -> Int {
        let dir = TemporaryDirectory()
        let failing = IndexWritesFail()
        let fs = InterceptingFileSystem(base: failing)
        let store = try RouteStore(at: dir.store(), options: options, fileSystem: fs)
        defer { try? store.close() }
        if indexBroken {
            // The first held records written (at the first sync) fail: the index breaks.
            failing.armed.withLock { $0 = true }
            try store.save(Fixtures.sampleWalk(seed: 0, points: 2))
            try store.withWriter { try $0.syncActive() }
            #expect(try store.withWriter { $0.index.broken })
        }
        let syncs = StateLock(0)
        QuietSyncTests.segmentSyncs(fs, into: syncs)
        for i in 1...count { try store.save(Fixtures.sampleWalk(seed: UInt64(i), points: 2)) }
        return syncs.withLock { $0 }
    }

    @Test func savesAreSyncedEveryIntervalWithAWorkingIndex() throws {
        #expect(try Self.segmentSyncs(saving: IndexFile.syncInterval + 10, indexBroken: false) == 1)
    }

    /// A batch past the interval whose sync fails is refused (more than 1,024 answered
    /// records would be at stake), and its records are cut off the segment again: the
    /// refused routes are not read back once the store is opened again.
    @Test func aRefusedLargeBatchIsNotReadBack() throws {
        let dir = TemporaryDirectory()
        let failing = FailingWrites()
        let store = try RouteStore(at: dir.store(), options: Self.options, fileSystem: failing)
        let kept = try store.save(Fixtures.sampleWalk(seed: 1, points: 2))
        try store.withWriter { try $0.syncActive() }
        failing.segmentSyncErrno.withLock { $0 = EIO }
        let batch = (0..<(IndexFile.syncInterval + 10)).map { Fixtures.sampleWalk(seed: UInt64(10 + $0), points: 2) }
        #expect(throws: (any Error).self) { try store.save(batch) }
        #expect(throws: (any Error).self) { try store.close() }
        let reopened = try RouteStore(at: dir.store())
        defer { try? reopened.close() }
        #expect(try reopened.summaries().map(\.id) == [kept])
        #expect(try reopened.verify().isClean)
    }

    /// The sync came from the held index records only: once the index file broke (a
    /// failed write), none were held, and buffered saves went unsynced until close().
    @Test func savesAreSyncedEveryIntervalWhenTheIndexBroke() throws {
        #expect(try Self.segmentSyncs(saving: 2 * IndexFile.syncInterval + 10, indexBroken: true) == 2)
    }
}
