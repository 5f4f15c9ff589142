import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// A `LOCK` descriptor the writer held stops being watched for fork() and closes in one
/// stretch with fork() held off (`StoreLock.closeWatched`): as close() lets `LOCK` go,
/// as a writer puts a `LOCK` of its own in place of one it lost or of one another name
/// shares. Here another thread forks as such a descriptor closes, and the child says
/// whether it still has it (LockForkWindowTests.Forker): with the close inside the
/// stretch the fork waits for it and the child has nothing; a close after the stretch
/// (a second reference to the file letting it go later) hands the child the descriptor.
/// One at a time: a fork waiting for another test's stretch would land after the close.
@Suite(.serialized) struct LockCloseForkWindowTests {
    /// A file system that, as it is about to close a descriptor of `LOCK` it opened
    /// read-write (a writer's, never a reader's look), has the forker fork, once armed;
    /// and, when told, fails the writes to a `LOCK` it creates (ENOSPC).
    final class ForkingOnLockClose: ForwardingFileSystem, @unchecked Sendable {
        let base: any FileSystem = PosixFileSystem.shared
        let forker = LockForkWindowTests.Forker()
        let lockPath: String
        private let state = StateLock((armed: false, fired: false, failCreatedWrites: false, writers: Set<Int32>(),
                                       created: Set<Int32>()))

        init(lockPath: String) { self.lockPath = lockPath }

        func arm(failingCreatedWrites: Bool = false) {
            state.withLock { ($0.armed, $0.failCreatedWrites) = (true, failingCreatedWrites) }
        }
        var fired: Bool { state.withLock { $0.fired } }

        private func opened(_ ref: FileRef, path: String, flags: Int32) -> FileRef {
            guard path == lockPath && flags & O_ACCMODE == O_RDWR else { return ref }
            state.withLock { s in
                s.writers.insert(ref.fd)
                if flags & O_CREAT != 0 { s.created.insert(ref.fd) }
            }
            return ref
        }

        func pwrite(_ file: FileRef, _ buffer: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
            if state.withLock({ $0.failCreatedWrites && $0.created.contains(file.fd) }) { throw Errno(code: ENOSPC) }
            return try base.pwrite(file, buffer, at: offset)
        }

        func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef {
            opened(try base.open(path, flags: flags, mode: mode), path: path, flags: flags)
        }

        func open(_ name: String, in directory: DirectoryRef, flags: Int32, mode: UInt32) throws -> FileRef {
            opened(try base.open(name, in: directory, flags: flags, mode: mode), path: directory.path(name), flags: flags)
        }

        func close(_ file: FileRef) {
            let fire = state.withLock { s -> Bool in
                s.created.remove(file.fd)
                guard s.writers.remove(file.fd) != nil, s.armed else { return false }
                (s.armed, s.fired) = (false, true)
                return true
            }
            if fire { forker.forkNow(while: file.fd) }
            base.close(file)
        }
    }

    @Test func aChildForkedAsCloseLetsLOCKGoKeepsNothing() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        try RouteStore(at: url).close()
        let fs = ForkingOnLockClose(lockPath: LockPutBackTests.lockPath(url))
        let writer = try RouteStore(at: url, options: .init(compaction: .manual), fileSystem: fs)
        _ = try writer.save(Fixtures.sampleWalk(seed: 1, points: 50))
        fs.arm()
        try writer.close()
        #expect(fs.fired, "close() closed LOCK's descriptor")
        let statuses = fs.forker.reap()
        #expect(statuses == [0], "a child forked as close() closed LOCK kept its descriptor: \(statuses)")
        withExtendedLifetime(writer) {}
        try RouteStore(at: url).close()
    }

    /// A writer whose `LOCK` was deleted, made to cut (a failed save) with the fork armed
    /// for the next close of a `LOCK` descriptor: it puts a new `LOCK` in place, or, with
    /// `failingCreatedWrites`, fails to write the one it creates.
    func cutAfterLosingLOCK(in dir: TemporaryDirectory, failingCreatedWrites: Bool = false) throws
        -> (url: URL, fs: ForkingOnLockClose, writer: RouteStore) {
        let url = dir.store()
        try RouteStore(at: url).close()
        let lock = LockPutBackTests.lockPath(url)
        let fs = ForkingOnLockClose(lockPath: lock)
        let cuts = LockPutBackTests.CutOnDemand(base: fs)
        let writer = try RouteStore(at: url, options: .init(compaction: .manual), fileSystem: cuts)
        _ = try writer.save(Fixtures.sampleWalk(seed: 1, points: 50))
        try FileManager.default.removeItem(atPath: lock)
        fs.arm(failingCreatedWrites: failingCreatedWrites)
        cuts.arm()
        #expect(throws: RouteLogError.self) { try writer.save(Fixtures.sampleWalk(seed: 2, points: 50)) }
        return (url, fs, writer)
    }

    @Test func aChildForkedAsAWriterReplacesTheLOCKItLostKeepsNothing() throws {
        let dir = TemporaryDirectory()
        let (url, fs, writer) = try cutAfterLosingLOCK(in: dir)
        #expect(fs.fired, "the writer closed the LOCK it lost as it put a new one in place")
        #expect(LockPutBackTests.lock(url)?.pid == getpid())
        let statuses = fs.forker.reap()
        #expect(statuses == [0], "a child forked as the lost LOCK closed kept its descriptor: \(statuses)")
        try writer.close()
        try RouteStore(at: url).close()
    }

    /// The `LOCK` a writer creates to put back the one it lost cannot be written (the
    /// disk full): the writer lets it go, and it closes.
    @Test func aChildForkedAsAWriterGivesUpALOCKItCouldNotPutBackKeepsNothing() throws {
        let dir = TemporaryDirectory()
        let (url, fs, writer) = try cutAfterLosingLOCK(in: dir, failingCreatedWrites: true)
        #expect(fs.fired, "the writer closed the LOCK it could not put back")
        let statuses = fs.forker.reap()
        #expect(statuses == [0], "a child forked as the LOCK not put back closed kept its descriptor: \(statuses)")
        try? writer.close()
        withExtendedLifetime(writer) {}
        try RouteStore(at: url).close()
    }

    @Test func aChildForkedAsAWriterLetsASharedLOCKGoKeepsNothing() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        try RouteStore(at: url).close()
        let lock = LockPutBackTests.lockPath(url)
        #expect(link(lock, dir.url.appendingPathComponent("other-store-LOCK").path) == 0)
        let fs = ForkingOnLockClose(lockPath: lock)
        fs.arm()
        let writer = try RouteStore(at: url, options: .init(compaction: .manual), fileSystem: fs)
        #expect(fs.fired, "the writer closed the shared LOCK it found")
        #expect(LockPutBackTests.lock(url)?.pid == getpid())
        let statuses = fs.forker.reap()
        #expect(statuses == [0], "a child forked as the shared LOCK closed kept its descriptor: \(statuses)")
        try writer.close()
        try RouteStore(at: url).close()
    }
}
