import Foundation
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

    /// The sync came from the held index records only: once the index file broke (a
    /// failed write), none were held, and buffered saves went unsynced until close().
    @Test func savesAreSyncedEveryIntervalWhenTheIndexBroke() throws {
        #expect(try Self.segmentSyncs(saving: 2 * IndexFile.syncInterval + 10, indexBroken: true) == 2)
    }
}
