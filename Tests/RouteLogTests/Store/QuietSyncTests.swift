import Foundation
import Testing
@testable import RouteLog

/// Buffered saves are synced, and their held index records written, once the store has
/// been quiet for `bufferedQuietSyncDelay`; saves without a pause are never held up by
/// it; nil turns it off; close() and a dropped handle leave nothing to fire.
@Suite struct QuietSyncTests {
    static func route(_ i: Int) -> Route { Fixtures.sampleWalk(seed: UInt64(i), points: 5) }

    static func options(delay: Double?) -> RouteStore.Options {
        var options = RouteStore.Options(durability: .buffered, compaction: .manual)
        options.bufferedQuietSyncDelay = delay
        return options
    }

    /// Segment syncs seen by `fs` so far.
    static func segmentSyncs(_ fs: InterceptingFileSystem, into count: StateLock<Int>) {
        fs.observe { operation in
            switch operation {
            case .syncData(let file), .syncBarrier(let file), .syncAll(let file):
                if file.path.hasSuffix(FormatConstants.segmentSuffix) { count.withLock { $0 += 1 } }
            default: break
            }
        }
    }

    static func held(_ store: RouteStore) throws -> Int { try store.withWriter { $0.index.heldCount } }

    /// Waits for `condition`, up to a minute: long enough for a sync on a busy shared
    /// disk, and only a condition that never comes waits it out.
    static func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return try condition()
    }

    @Test func aQuietStoreSyncsItsBufferedSavesAndIndexesThem() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let fs = InterceptingFileSystem()
        let syncs = StateLock(0)
        let store = try RouteStore(at: url, options: Self.options(delay: 0.1), fileSystem: fs)
        defer { try? store.close() }
        Self.segmentSyncs(fs, into: syncs)
        for i in 0..<5 { try store.save(Self.route(i)) }
        #expect(try Self.eventually { try Self.held(store) == 0 }, "the held index records were never written")
        #expect(syncs.withLock { $0 } >= 1)
        // Killed now: the copy's index holds all five, nothing for an open to read past it.
        let copy = try BackgroundIndexRewriteTests.killedCopy(of: url, dir, "killed.routelog")
        let reader = try RouteStore(at: copy, options: .init(mode: .readOnly))
        defer { try? reader.close() }
        #expect(try reader.count == 5)
        #expect(reader.state.withLock { $0.tornTails.isEmpty && $0.openDamage.isEmpty })
        let indexEnd = reader.state.withLock { $0.indexBytes }
        let indexFile = copy.appendingPathComponent(FormatConstants.indexName(reader.state.withLock { $0.indexFileNumber }))
        let size = try #require(try FileManager.default.attributesOfItem(atPath: indexFile.path)[.size] as? NSNumber)
        #expect(Int64(size.intValue) == indexEnd)
        #expect(try IndexPutRunTests.indexRecordTypes(copy).count >= 1)
    }

    /// Saves without a pause longer than the delay: no sync while they go on (fewer than
    /// 1,024, in one segment), one after they stop. The delay (3 s) is far longer than
    /// the pauses (10 ms), so that a slow machine does not make a pause of it.
    @Test func savesWithoutAPauseAreNotHeldUpBySyncs() throws {
        let dir = TemporaryDirectory()
        let fs = InterceptingFileSystem()
        let syncs = StateLock(0)
        let store = try RouteStore(at: dir.store(), options: Self.options(delay: 3), fileSystem: fs)
        defer { try? store.close() }
        Self.segmentSyncs(fs, into: syncs)
        let start = Date()
        var i = 0
        while Date().timeIntervalSince(start) < 1.2 && i < 1_000 {
            try store.save(Self.route(i))
            i += 1
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(syncs.withLock { $0 } == 0, "a sync came while \(i) saves went on without a pause")
        #expect(try Self.held(store) == i)
        #expect(try Self.eventually { try Self.held(store) == 0 })
        #expect(syncs.withLock { $0 } == 1)
    }

    @Test func nilTurnsItOff() throws {
        let dir = TemporaryDirectory()
        let fs = InterceptingFileSystem()
        let syncs = StateLock(0)
        let store = try RouteStore(at: dir.store(), options: Self.options(delay: nil), fileSystem: fs)
        Self.segmentSyncs(fs, into: syncs)
        for i in 0..<3 { try store.save(Self.route(i)) }
        Thread.sleep(forTimeInterval: 0.4)
        #expect(syncs.withLock { $0 } == 0)
        #expect(try Self.held(store) == 3)
        try store.close()
        #expect(syncs.withLock { $0 } == 1)
    }

    /// Durable saves hold nothing and need no sync later.
    @Test func durableSavesScheduleNothing() throws {
        let dir = TemporaryDirectory()
        var options = RouteStore.Options(durability: .full, compaction: .manual)
        options.bufferedQuietSyncDelay = 0.05
        let fs = InterceptingFileSystem()
        let syncs = StateLock(0)
        let store = try RouteStore(at: dir.store(), options: options, fileSystem: fs)
        defer { try? store.close() }
        try store.save(Self.route(1))
        Self.segmentSyncs(fs, into: syncs)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(syncs.withLock { $0 } == 0)
    }

    /// A timer due after close(), or after the handle is gone, does nothing and breaks
    /// nothing; the store reopens with every save.
    @Test func closeOrADroppedHandleBeforeTheTimerIsHarmless() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        do {
            let store = try RouteStore(at: url, options: Self.options(delay: 0.2))
            for i in 0..<4 { try store.save(Self.route(i)) }
            try store.close()
        }
        do {
            let store = try RouteStore(at: url, options: Self.options(delay: 0.2))
            for i in 4..<8 { try store.save(Self.route(i)) }
            // Dropped without close(): deinit closes it; the timer finds no store.
        }
        Thread.sleep(forTimeInterval: 0.5)
        let reopened = try RouteStore(at: url, options: Self.options(delay: nil))
        defer { try? reopened.close() }
        #expect(try reopened.count == 8)
        #expect(try reopened.verify().isClean)
    }
}
