import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// A writer opens each descriptor that takes one of its locks (the store's directory,
/// `LOCK`) and registers it with fork_release.c, so that a child made with fork() lets
/// its copy go; a fork() by another thread between the open and the registration would
/// hand the child the description unregistered, which the writer then locks, and the
/// child would hold the store after the writer's process died. fork() waits for that
/// stretch (the fork guard). Here another thread forks right inside each stretch, and
/// the child says whether it still has the descriptor.
@Suite struct LockForkWindowTests {
    /// A thread that forks when asked. Each child looks at the descriptor it was asked
    /// about: still open on the file the parent opened (its own copy of the
    /// description, not registered in time) it exits with 1, else (pointed at
    /// /dev/null, as fork_release.c does with a registered one) with 0. It does nothing
    /// else: a forked child of a threaded process makes only async-signal-safe calls.
    final class Forker: @unchecked Sendable {
        private struct Request { let fd: Int32, device: UInt64, inode: UInt64 }
        private let requests = StateLock<[Request]>([])
        private let wake = DispatchSemaphore(value: 0)
        private let forking = DispatchSemaphore(value: 0)
        let children = StateLock<[pid_t]>([])
        private let asked = StateLock(0)

        init() {
            Thread.detachNewThread { [self] in
                while true {
                    wake.wait()
                    guard let request = requests.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
                    let (fd, device, inode) = (request.fd, request.device, request.inode)
                    forking.signal()
                    let child = fork()
                    if child == 0 {
                        var info = stat()
                        let kept = fstat(fd, &info) == 0 && UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
                        _exit(kept ? 1 : 0)
                    }
                    children.withLock { $0.append(child) }
                }
            }
        }

        /// Has the thread fork now, while `fd` is open here; returns once the fork
        /// returned in this process or, when fork() waits (for the stretch this caller
        /// is in), after `patience` seconds.
        func forkNow(while fd: Int32, patience: Double = 0.5) {
            var info = stat()
            guard fstat(fd, &info) == 0 else { return }
            let before = children.withLock { $0.count }
            asked.withLock { $0 += 1 }
            requests.withLock { $0.append(Request(fd: fd, device: UInt64(info.st_dev), inode: UInt64(info.st_ino))) }
            wake.signal()
            forking.wait()
            let deadline = Date().addingTimeInterval(patience)
            while children.withLock({ $0.count }) == before && Date() < deadline { usleep(1_000) }
        }

        /// The exit status of each child, once every fork asked for returned; stops the thread.
        func reap() -> [Int32] {
            let deadline = Date().addingTimeInterval(30)
            while children.withLock({ $0.count }) < asked.withLock({ $0 }) && Date() < deadline { usleep(1_000) }
            wake.signal()  // no request: the thread ends
            return children.withLock { $0 }.map { child in
                var status: Int32 = 0
                _ = waitpid(child, &status, 0)
                return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
            }
        }
    }

    /// A file system that, right after it opened a path `armed` picks (once), has the
    /// forker fork.
    final class ForkingOnOpen: ForwardingFileSystem, @unchecked Sendable {
        let base: any FileSystem = PosixFileSystem.shared
        let forker: Forker
        private let armed = StateLock<(@Sendable (String, Int32) -> Bool)?>(nil)

        /// Microseconds each close waits before it closes: a fork due as a descriptor
        /// stops being watched lands then, unless the two run with fork() held off.
        let pauseBeforeClose: useconds_t

        init(forker: Forker, pauseBeforeClose: useconds_t = 0) {
            self.forker = forker
            self.pauseBeforeClose = pauseBeforeClose
        }

        func close(_ file: FileRef) {
            if pauseBeforeClose > 0 { usleep(pauseBeforeClose) }
            base.close(file)
        }

        func arm(_ picks: @escaping @Sendable (_ path: String, _ flags: Int32) -> Bool) { armed.withLock { $0 = picks } }

        func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef {
            let ref = try base.open(path, flags: flags, mode: mode)
            let fire = armed.withLock { picks -> Bool in
                guard let chosen = picks, chosen(path, flags) else { return false }
                picks = nil
                return true
            }
            if fire { forker.forkNow(while: ref.fd) }
            return ref
        }

        // `LOCK` is opened in the store's directory as the writer holds it (openat):
        // picked by the path it names there.
        func open(_ name: String, in directory: DirectoryRef, flags: Int32, mode: UInt32) throws -> FileRef {
            let ref = try base.open(name, in: directory, flags: flags, mode: mode)
            let fire = armed.withLock { picks -> Bool in
                guard let chosen = picks, chosen(directory.path(name), flags) else { return false }
                picks = nil
                return true
            }
            if fire { forker.forkNow(while: ref.fd) }
            return ref
        }
    }

    enum Stretch: String, CaseIterable, Sendable {
        /// The writer's open of the store's directory, before its flock.
        case directory
        /// Its open of the `LOCK` it finds, before its lock.
        case lockFile
        /// Its creation of a `LOCK` that is missing.
        case missingLockFile
        /// Its creation of a `LOCK` of its own in place of one another name shares.
        case sharedLockFile
        /// The creation of the `LOCK` it puts back after a cut (deleted meanwhile).
        case lockPutBack
    }

    /// A child forked inside any of the stretches keeps no descriptor that takes one of
    /// the writer's locks: fork() waited for the registration.
    @Test(arguments: Stretch.allCases)
    func aChildForkedWhileALockDescriptorIsOpenedKeepsNone(_ stretch: Stretch) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        try RouteStore(at: url).close()
        let lock = LockPutBackTests.lockPath(url)
        let forker = Forker()
        let fs = ForkingOnOpen(forker: forker)
        let isLOCK: @Sendable (String) -> Bool = { $0 == lock }
        switch stretch {
        case .directory:
            fs.arm { path, flags in path == url.path && flags & O_DIRECTORY != 0 && flags & O_NOFOLLOW != 0 }
        case .lockFile:
            fs.arm { path, flags in isLOCK(path) && flags & O_ACCMODE == O_RDWR && flags & O_CREAT == 0 }
        case .missingLockFile, .sharedLockFile:
            if stretch == .missingLockFile {
                try FileManager.default.removeItem(atPath: lock)
            } else {
                #expect(link(lock, dir.url.appendingPathComponent("other-store-LOCK").path) == 0)
            }
            fs.arm { path, flags in isLOCK(path) && flags & O_CREAT != 0 }
        case .lockPutBack:
            break
        }
        let cuts = LockPutBackTests.CutOnDemand(base: fs)
        let writer = try RouteStore(at: url, options: .init(compaction: .manual), fileSystem: cuts)
        if stretch == .lockPutBack {
            try FileManager.default.removeItem(atPath: lock)
            fs.arm { path, flags in isLOCK(path) && flags & O_CREAT != 0 }
            cuts.arm()
            #expect(throws: RouteLogError.self) { try writer.save(Fixtures.sampleWalk(seed: 2, points: 50)) }
        }
        #expect(LockPutBackTests.lock(url)?.pid == getpid(), "\(stretch)")
        #expect(RouteStore.writerProcess(at: url) == getpid(), "\(stretch)")
        try writer.close()
        let statuses = forker.reap()
        #expect(statuses == [0], "\(stretch): a child forked in the stretch kept the descriptor (exit status 1): \(statuses)")
        try RouteStore(at: url).close()
    }
}
