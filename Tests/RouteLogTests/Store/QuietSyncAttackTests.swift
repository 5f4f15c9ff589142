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

    /// Waits up to `seconds` for `condition`.
    static func within(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return try condition()
    }

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
        #expect(started.wait(timeout: .now() + 5) == .success, "the timer never synced")
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
        #expect(try Self.within(3) { try QuietSyncTests.held(store) == 0 && syncs.withLock { $0 } == 1 })
        #expect(try store.withWriter { $0.index.broken })
        for i in 1..<4 { try store.save(Self.route(i)) }
        #expect(Self.within(2) { syncs.withLock { $0 } >= 2 }, "the saves after the index broke were never synced")
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
        #expect(Self.within(2) { syncs.withLock { $0 } >= 1 }, "the 3 saves before the failed switch were never synced")
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
        #expect(try Self.within(3) { try QuietSyncTests.held(store) == 0 })
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
}

/// The real file system, but writes to index files fail with EIO once armed.
struct IndexWritesFail: FileSystem {
    let base = PosixFileSystem.shared
    let armed = StateLock(false)

    func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef { try base.open(path, flags: flags, mode: mode) }
    func close(_ file: FileRef) { base.close(file) }
    func pread(_ file: FileRef, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try base.pread(file, buffer, at: offset)
    }
    func pwrite(_ file: FileRef, _ buffer: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        if URL(fileURLWithPath: file.path).lastPathComponent.hasPrefix(FormatConstants.indexPrefix), armed.withLock({ $0 }) {
            throw Errno(code: EIO)
        }
        return try base.pwrite(file, buffer, at: offset)
    }
    func size(_ file: FileRef) throws -> Int64 { try base.size(file) }
    func truncate(_ file: FileRef, to length: Int64) throws { try base.truncate(file, to: length) }
    func syncData(_ file: FileRef) throws { try base.syncData(file) }
    func syncBarrier(_ file: FileRef) throws { try base.syncBarrier(file) }
    func syncAll(_ file: FileRef) throws { try base.syncAll(file) }
    func rename(_ from: String, to: String) throws { try base.rename(from, to: to) }
    func unlink(_ path: String) throws { try base.unlink(path) }
    func makeDirectory(_ path: String) throws { try base.makeDirectory(path) }
    func syncDirectory(_ path: String) throws { try base.syncDirectory(path) }
    func listDirectory(_ path: String) throws -> [String] { try base.listDirectory(path) }
    func isDirectory(_ path: String) -> Bool? { base.isDirectory(path) }
    func lockExclusive(_ file: FileRef) throws { try base.lockExclusive(file) }
    func unlock(_ file: FileRef) { base.unlock(file) }
    func isLockHeld(_ file: FileRef) throws -> Bool { try base.isLockHeld(file) }
    func fileType(_ file: FileRef) throws -> FileType { try base.fileType(file) }
    func isSymbolicLink(_ path: String) -> Bool? { base.isSymbolicLink(path) }
    func lockDirectory(_ directory: FileRef) throws { try base.lockDirectory(directory) }
}
