import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// Attacks on the quiet sync of buffered saves (QuietSync): its timer against a dropped
/// handle, a broken index, an uncertain manifest, bad delays, failed syncs, close(),
/// compactions and rewrites, many stores, and the crash-state invariant (the index file
/// only ever holds records of synced segment records).
@Suite struct QuietSyncAttackTests {
    static func route(_ i: Int) -> Route { Fixtures.sampleWalk(seed: UInt64(i), points: 5) }
    static func options(delay: Double?) -> RouteStore.Options { QuietSyncTests.options(delay: delay) }

    // MARK: Defects

    /// The timer held the store itself while it synced: a handle whose last reference
    /// went meanwhile was not closed (its deinit ran later, on the timer's thread), so
    /// its lock stood and opening the store again threw `.locked`. "Dropping the last
    /// reference closes it too."
    @Test func droppingTheLastHandleWhileTheTimerSyncsClosesIt() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let fs = InterceptingFileSystem()
        let started = DispatchSemaphore(value: 0)
        let armed = StateLock(true)
        fs.observe { operation in
            guard case .syncData(let file) = operation, file.path.hasSuffix(FormatConstants.segmentSuffix),
                  armed.withLock({ armed in defer { armed = false }; return armed }) else { return }
            started.signal()
            Thread.sleep(forTimeInterval: 0.4)  // a slow flush
        }
        var store: RouteStore? = try RouteStore(at: url, options: Self.options(delay: 0.05), fileSystem: fs)
        try store!.save(Self.route(1))
        #expect(started.wait(timeout: .now() + 60) == .success, "the timer never synced")
        store = nil
        let reopened = try RouteStore(at: url, options: Self.options(delay: nil))
        defer { try? reopened.close() }
        #expect(try reopened.count == 1)
    }

    /// The timer synced only when index records were held; a store whose index file
    /// broke (a failed write) holds none, so its buffered saves were never synced once
    /// it went quiet, however long it stayed so.
    @Test func aBrokenIndexStillHasItsBufferedSavesSyncedWhenQuiet() throws {
        let dir = TemporaryDirectory()
        let failing = IndexWritesFail()
        let fs = InterceptingFileSystem(base: failing)
        let syncs = StateLock(0)
        let store = try RouteStore(at: dir.store(), options: Self.options(delay: 0.05), fileSystem: fs)
        defer { try? store.close() }
        QuietSyncTests.segmentSyncs(fs, into: syncs)
        failing.armed.withLock { $0 = true }
        try store.save(Self.route(0))
        // The timer syncs it, then its index record's write fails: the index is broken.
        #expect(try QuietSyncTests.eventually { try QuietSyncTests.held(store) == 0 && syncs.withLock { $0 } == 1 })
        #expect(try store.withWriter { $0.index.broken })
        for i in 1..<4 { try store.save(Self.route(i)) }
        #expect(QuietSyncTests.eventually { syncs.withLock { $0 } >= 2 }, "the saves after the index broke were never synced")
    }

    /// The timer skipped a writer with any failure, an uncertain manifest switch (a
    /// failed updateSettings) too; close() syncs the buffered saves from before it ("the
    /// segment is fine"), the timer left them unsynced for as long as the store stayed open.
    @Test func savesBeforeAnUncertainManifestSwitchAreSyncedWhenQuiet() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        try RouteStore(at: url).close()
        let fs = InterceptingFileSystem(fault: .init(.kind(.rename, 1), errno: EIO))
        let syncs = StateLock(0)
        let store = try RouteStore(at: url, options: Self.options(delay: 0.1), fileSystem: fs)
        defer { try? store.close() }
        #expect(!fs.faultFired)
        QuietSyncTests.segmentSyncs(fs, into: syncs)
        for i in 0..<3 { try store.save(Self.route(i)) }
        let zone = try PrivacyZone(center: Coordinate(latitude: 45, longitude: 9), radius: 200)
        #expect(throws: RouteLogError.self) { try store.updateSettings { $0.privacyZones = [zone] } }
        #expect(try store.withWriter { $0.manifest.uncertain != nil })
        #expect(QuietSyncTests.eventually { syncs.withLock { $0 } >= 1 }, "the 3 saves before the failed switch were never synced")
        #expect(try QuietSyncTests.held(store) == 0)
    }

    /// The timer synced the segment and wrote the held index records without telling
    /// the store's published state: statistics() went on giving the index's size from
    /// before (not its file's) and counting no sync, and verify() read the index only
    /// that far, until the next change.
    @Test func statisticsAfterAQuietSyncSayWhatItDid() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: Self.options(delay: 0.05))
        defer { try? store.close() }
        let before = try store.statistics()
        for i in 0..<3 { try store.save(Self.route(i)) }
        #expect(try QuietSyncTests.eventually { try QuietSyncTests.held(store) == 0 })
        let after = try store.statistics()
        let indexFile = url.appendingPathComponent(after.indexFile)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: indexFile.path)[.size] as? NSNumber)
        #expect(after.indexBytes == Int64(size.intValue))
        #expect(after.indexBytes > before.indexBytes)
        #expect(after.writes.dataSyncs == before.writes.dataSyncs + 1)
    }

    /// A delay that is not a number (or below 0) was taken as 0 without a word, where
    /// every other bad option is refused at open.
    @Test(arguments: [Double.nan, -1, -Double.infinity])
    func aDelayThatIsNaNOrNegativeIsRefused(_ delay: Double) throws {
        let dir = TemporaryDirectory()
        let error = #expect(throws: RouteLogError.self) {
            try RouteStore(at: dir.store(), options: Self.options(delay: delay))
        }
        #expect(error?.code == .invalidArgument)
    }

    // MARK: What held

    /// 0, huge and infinite delays: no trap; 0 syncs at once; the huge ones never fire,
    /// and close() syncs.
    @Test(arguments: [0, 1e300, Double.infinity, Double.greatestFiniteMagnitude])
    func extremeDelays(_ delay: Double) throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: Self.options(delay: delay))
        for i in 0..<3 { try store.save(Self.route(i)) }
        if delay == 0 {
            #expect(try QuietSyncTests.eventually { try QuietSyncTests.held(store) == 0 })
        } else {
            Thread.sleep(forTimeInterval: 0.1)
            #expect(try QuietSyncTests.held(store) == 3)
        }
        try store.close()
        let reopened = try RouteStore(at: dir.store(), options: Self.options(delay: nil))
        defer { try? reopened.close() }
        #expect(try reopened.count == 3)
    }

    /// A failed sync in the timer: every later change is refused with it, and close()
    /// throws it; what was answered before is still readable after a reopen.
    @Test(arguments: [EIO, ENOSPC])
    func aFailedTimerSyncIsReportedByTheNextChangeAndClose(_ errno: Int32) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        try RouteStore(at: url).close()
        let fs = InterceptingFileSystem(fault: .init(.kind(.syncData, 1), errno: errno))
        let store = try RouteStore(at: url, options: Self.options(delay: 0.05), fileSystem: fs)
        #expect(!fs.faultFired)
        for i in 0..<3 { try store.save(Self.route(i)) }
        #expect(QuietSyncTests.eventually { fs.faultFired })
        #expect(try QuietSyncTests.eventually { try store.withWriter { $0.failure != nil } })
        #expect(throws: RouteLogError.self) { try store.save(Self.route(9)) }
        #expect(throws: RouteLogError.self) { try store.close() }
        let reopened = try RouteStore(at: url, options: Self.options(delay: nil))
        defer { try? reopened.close() }
        #expect(try reopened.count == 3)
    }

    /// A closed handle kept alive, its directory opened again by a new one: the old
    /// timer fires on nothing, the new handle's saves are untouched.
    @Test func anOldHandlesTimerLeavesTheNextHandleAlone() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let old = try RouteStore(at: url, options: Self.options(delay: 0.15))
        for i in 0..<3 { try old.save(Self.route(i)) }
        try old.close()
        let new = try RouteStore(at: url, options: Self.options(delay: nil))
        for i in 3..<6 { try new.save(Self.route(i)) }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try QuietSyncTests.held(new) == 3)
        #expect(throws: RouteLogError.self) { try old.save(Self.route(9)) }
        try new.close()
        withExtendedLifetime(old) {}
        let reopened = try RouteStore(at: url, options: Self.options(delay: nil))
        defer { try? reopened.close() }
        #expect(try reopened.count == 6)
        #expect(try reopened.verify().isClean)
    }

    /// A read-only handle with buffered options: no save, nothing scheduled.
    @Test func aReadOnlyHandleWithBufferedOptions() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url, options: Self.options(delay: 0))
        try writer.save(Self.route(1))
        var options = Self.options(delay: 0)
        options.mode = .readOnly
        let reader = try RouteStore(at: url, options: options)
        #expect(throws: RouteLogError.self) { try reader.save(Self.route(2)) }
        try reader.close()
        try writer.close()
    }

    /// Many buffered stores at once, each with a timer: all synced, none lost.
    @Test func manyStoresAtOnce() throws {
        let dir = TemporaryDirectory()
        let fs = InterceptingFileSystem.unsynced()
        let stores = try (0..<60).map { try RouteStore(at: dir.store("s\($0).routelog"), options: Self.options(delay: 0.02), fileSystem: fs) }
        DispatchQueue.concurrentPerform(iterations: stores.count) { k in
            for i in 0..<5 { _ = try? stores[k].save(Self.route(i)) }
        }
        #expect(try QuietSyncTests.eventually { try stores.allSatisfy { try QuietSyncTests.held($0) == 0 } })
        for store in stores {
            #expect(try store.count == 5)
            try store.close()
        }
    }

    /// Saves from several threads, deletes, compactions and background index rewrites
    /// while a 0 s timer fires after nearly every change: no deadlock, nothing lost.
    @Test func timersAgainstCompactionsRewritesAndThreads() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        var options = Self.options(delay: 0)
        options.segmentSizeLimit = 4096
        let store = try RouteStore(at: url, options: options, fileSystem: InterceptingFileSystem.unsynced())
        let kept = StateLock<Set<RouteID>>([])
        DispatchQueue.concurrentPerform(iterations: 4) { t in
            for i in 0..<40 {
                guard let id = try? store.save(Self.route(t * 1000 + i)) else { continue }
                if i % 2 == 0, (try? store.delete(id)) != nil { continue }
                kept.withLock { _ = $0.insert(id) }
                if t == 0, i % 10 == 9 { _ = try? store.compact() }
                // As the scheduler runs it: never beside a compaction.
                if t == 1, i % 10 == 5, store.compaction.tryBegin(store) {
                    defer { store.compaction.end() }
                    _ = try? BackgroundIndexRewrite(store: store).run(evenIfFew: true)
                }
            }
        }
        #expect(try Set(store.summaries().map(\.id)) == kept.withLock { $0 })
        try store.close()
        let reopened = try RouteStore(at: url, options: Self.options(delay: nil))
        defer { try? reopened.close() }
        #expect(try Set(reopened.summaries().map(\.id)) == kept.withLock { $0 })
        #expect(try reopened.verify().isClean)
    }

    /// The crash-state invariant with the timer firing between saves: in the worst
    /// power-loss state (every index write kept, no segment write after the segment's
    /// last sync) the store opens clean, lists only readable routes, and keeps every
    /// save from before the last quiet sync.
    @Test func theIndexNeverVouchesForAnUnsyncedRecord() throws {
        let dir = TemporaryDirectory()
        let live = dir.store("live.routelog")
        let options = Self.options(delay: 0.02)
        let first = try RouteStore(at: live, options: options)
        for i in 0..<3 { try first.save(Self.route(i)) }
        try first.close()
        let fs = InterceptingFileSystem()
        let trace = try fs.trace(live)
        let store = try RouteStore(at: live, options: options, fileSystem: fs)
        var synced = 3
        for burst in 0..<4 {
            for i in 0..<3 { try store.save(Self.route(100 + burst * 10 + i)) }
            #expect(try QuietSyncTests.eventually { try QuietSyncTests.held(store) == 0 })
            synced += 3
        }
        // Not synced: the process dies first. A timer that syncs it before the trace
        // is read (a slow test thread) does not count: the crash comes before that sync.
        let beforeTheLastSave = trace.operations.count
        try store.save(Self.route(999))
        let model = CrashStateModel(trace)
        let crash = model.operations[beforeTheLastSave...].firstIndex {
            if case .sync = $0 { return true }
            return false
        } ?? model.operations.count
        let crashed = dir.store("crashed.routelog")
        try materialize(model.filesWithTheIndexAhead(at: crash), at: crashed)
        withExtendedLifetime(store) {}
        let reopened = try RouteStore(at: crashed, options: Self.options(delay: nil))
        defer { try? reopened.close() }
        let report = try reopened.verify()
        #expect(report.isClean, "\(report.problems)")
        let listed = try reopened.summaries()
        for summary in listed {
            #expect(throws: Never.self) { _ = try reopened.route(summary.id) }
        }
        #expect(listed.count == synced)
    }

    /// close() racing the timer (a 0 s delay, saves from two threads right before it):
    /// close() never fails for it, and every answered save is there after.
    @Test func closeRacingTheTimer() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        var saved = 0
        for round in 0..<25 {
            let store = try RouteStore(at: url, options: Self.options(delay: 0), fileSystem: InterceptingFileSystem.unsynced())
            let count = StateLock(0)
            DispatchQueue.concurrentPerform(iterations: 2) { t in
                for i in 0..<3 where (try? store.save(Self.route(round * 100 + t * 10 + i))) != nil { count.withLock { $0 += 1 } }
            }
            if round % 2 == 1 { Thread.sleep(forTimeInterval: 0.001) }
            try store.close()
            saved += count.withLock { $0 }
        }
        let reopened = try RouteStore(at: url, options: Self.options(delay: nil))
        defer { try? reopened.close() }
        #expect(try reopened.count == saved)
        #expect(try reopened.verify().isClean)
    }
}

/// The real file system, but writes to index files fail with EIO once armed.
struct IndexWritesFail: ForwardingFileSystem {
    let base: any FileSystem = PosixFileSystem.shared
    let armed = StateLock(false)

    func pwrite(_ file: FileRef, _ buffer: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        if URL(fileURLWithPath: file.path).lastPathComponent.hasPrefix(FormatConstants.indexPrefix), armed.withLock({ $0 }) {
            throw Errno(code: EIO)
        }
        return try base.pwrite(file, buffer, at: offset)
    }
}
