import Foundation
import CRouteLogSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive lock on a Parquet export's directory, held for the whole export: a
/// second export into the same directory (from any process) waits for the first, so
/// that the steps that put one part in place (its list of routes removed, its tables
/// renamed in, its new list written) never interleave with another export's, which
/// could leave a list that leaves out a route its tables hold. An flock on the
/// directory itself: no file is added, and the lock goes with the descriptor.
///
/// The export then reaches its files through this same descriptor (``directory``, held
/// by ``ExportFolder``), never through the directory's path again: the directory written
/// is the directory locked, whatever is renamed or put at its path meanwhile.
///
/// The descriptor is opened with fork() held off and registered with fork_release.c,
/// as a writer's lock descriptors are (``StoreLock``): a child forked by another
/// thread meanwhile would share the open description, and with it the lock, and keep
/// the directory locked after this process let go of it or died.
final class ExportDirectoryLock {
    /// How long an export waits for another export into the same directory, by default
    /// (``ParquetExportOptions/directoryWait``).
    static let defaultWait = ParquetExportOptions().directoryWait

    private let ref: FileRef
    /// The locked directory, open: the descriptor the lock is on, named by the path the
    /// caller gave (for messages).
    let directory: DirectoryRef
    /// Its device and inode.
    let identity: FileIdentity
    private let fileSystem: any FileSystem
    private let registered: Bool
    private let key: String

    /// The directories (device and inode) this process holds, each with the thread that
    /// took it: the same thread asking again (an export started from another's progress
    /// callback) is refused, since the wait would never end; another thread waits.
    private static let holders = StateLock<[String: ObjectIdentifier]>([:])

    /// Opens `directory` (a directory, reached as given) and waits for its lock.
    /// - Parameters:
    ///   - store: the store's own directory, which is refused: its writer holds an flock
    ///     on it, so the wait would never end.
    ///   - storeIdentity: the directory the store holds (its writer's locked one, a
    ///     read-only handle's opened one), refused too, under whatever path leads to it
    ///     now: a store's directory renamed while it is open is still the store's, and
    ///     its old path leads to nothing, or to another directory.
    ///   - waiting: called once, before the wait, when another export holds the lock
    ///     (so that a user is told why nothing happens); not called when it is free.
    ///   - wait: how long to wait for another export to let go, in seconds.
    /// - Throws: ``RouteLogError`` `.locked` when another export still holds it after
    ///   `wait`; `.io` when it cannot be opened or locked; `.invalidArgument` when it is
    ///   the store's directory.
    init(_ directory: URL, store: URL? = nil, storeIdentity: DirectoryIdentity? = nil, waiting: (() -> Void)? = nil, wait: TimeInterval = defaultWait,
         fileSystem: any FileSystem = PosixFileSystem.shared) throws {
        self.fileSystem = fileSystem
        var registered = false
        let ref = try StoreLock.openWatched({
            try DurableFile.retrying("opening the export directory", path: directory.path) {
                try fileSystem.open(directory.path, flags: O_RDONLY | O_DIRECTORY, mode: 0)
            }
        }, then: { opened in registered = routelog_release_in_forked_child(opened.fd) == 0 })
        self.ref = ref
        self.directory = DirectoryRef(fd: ref.fd, path: directory.path)
        self.registered = registered
        // Every step that can fail comes before `key` is set, which completes the object:
        // a failure until then closes the descriptor here, and deinit does not run.
        func fail(_ error: RouteLogError) -> RouteLogError {
            Self.close(ref, registered: registered, fileSystem: fileSystem)
            return error
        }
        guard registered else {
            throw fail(RouteLogError(.io, "too many locks are held in this process; end an export or close a store first",
                                     path: directory.path, errno: EMFILE))
        }
        var mine = stat(), theirs = stat()
        guard fstat(ref.fd, &mine) == 0 else {
            let failure = errno
            throw fail(RouteLogError.io("looking at the export directory", path: directory.path, errno: failure))
        }
        let isStores = storeIdentity == DirectoryIdentity(device: UInt64(mine.st_dev), inode: UInt64(mine.st_ino))
            || (store.map { stat($0.path, &theirs) == 0 && mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino } ?? false)
        if isStores {
            throw fail(RouteLogError(.invalidArgument, "the export directory is the store's own directory; export into another one", path: directory.path))
        }
        identity = FileIdentity(mine)
        let key = "\(mine.st_dev):\(mine.st_ino)"
        let thread = ObjectIdentifier(Thread.current)
        if Self.holders.withLock({ $0[key] == thread }) {
            throw fail(RouteLogError(.invalidArgument, "an export into this directory is already under way on this thread (an export started from another's progress); export into another directory",
                                     path: directory.path))
        }
        do {
            try Self.lock(ref, directory: directory, waiting: waiting, wait: wait, fileSystem: fileSystem)
        } catch {
            Self.close(ref, registered: registered, fileSystem: fileSystem)
            throw error
        }
        Self.holders.withLock { $0[key] = thread }
        self.key = key
    }

    /// Takes the lock, trying again with growing pauses (up to 50 ms) until `wait` is
    /// over: flock cannot wait for a limited time by itself.
    private static func lock(_ ref: FileRef, directory: URL, waiting: (() -> Void)?, wait: TimeInterval,
                             fileSystem: any FileSystem) throws {
        // A wait that is not a positive number (below zero, not a number) waits not at
        // all; one too long to end (infinite) waits as long as the other export runs.
        let wait = wait > 0 ? wait : 0
        let deadline = Date().addingTimeInterval(wait)
        var pause: useconds_t = 1_000, told = false
        while true {
            do {
                try fileSystem.lockDirectory(ref)
                return
            } catch let error as Errno where error.code == EWOULDBLOCK || error.code == EAGAIN {
                if !told {
                    told = true
                    waiting?()  // the caller hears of a wait once, before it
                    continue
                }
                let left = deadline.timeIntervalSinceNow
                guard left > 0 else {
                    throw RouteLogError(.locked, "another export into this directory holds it, and did not end within \(Int(min(wait, 1e15).rounded(.up))) s; export again once it ends, or into another directory",
                                        path: directory.path)
                }
                usleep(min(pause, useconds_t(min(left, 1) * 1_000_000) + 1))
                pause = min(pause * 2, 50_000)
            } catch let error as Errno {
                throw RouteLogError.io("locking the export directory", path: directory.path, errno: error.code)
            }
        }
    }

    /// Lets go explicitly, then stops watching the descriptor and closes it with fork()
    /// held off (`StoreLock.closeWatched`): a child forked at any point holds nothing.
    private static func close(_ ref: FileRef, registered: Bool, fileSystem: any FileSystem) {
        fileSystem.unlockDirectory(ref)
        StoreLock.closeWatched(ref.fd, registered: registered) { fileSystem.close(ref) }
    }

    deinit {
        _ = Self.holders.withLock { $0.removeValue(forKey: key) }
        Self.close(ref, registered: registered, fileSystem: fileSystem)
    }
}
