import Foundation
import CRouteLogSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive lock on a Parquet export's directory, held for the whole export, or on
/// a `start_month=` folder in it, held while the export works in that folder: a second
/// export into the same directory or folder (from any process) waits for the first, so
/// that the steps that put one part in place (its list of routes removed, its tables
/// renamed in, its new list written) never interleave with another export's, which
/// could leave a list that leaves out a route its tables hold. An export into `D` by
/// month and an export into `D/start_month=2024-05` lock different directories, and
/// meet at the month folder's lock. An flock on the directory itself: no file is added,
/// and the lock goes with the descriptor.
///
/// The export then reaches its files through this same descriptor (``directory``, held
/// by ``ExportFolder``), never through the directory's path again: the directory written
/// is the directory locked, whatever is renamed or put at its path meanwhile.
///
/// The descriptor is opened with fork() held off and registered with fork_release.c,
/// as a writer's lock descriptors are (``StoreLock``): a child forked by another
/// thread meanwhile would share the open description, and with it the lock, and keep
/// the directory locked after this process let go of it or died.
///
/// No two exports wait for each other: an export takes its directory's lock first, then
/// at most one month folder's at a time, opened by name in that directory without
/// following a link, so each waits only for a directory below the one it holds. An
/// export started from another's progress, on the thread that holds the other's locks,
/// could hold a folder while it waits for a directory above it: it never waits, and is
/// refused at once when what it asks for is held. Every wait is bounded besides
/// (``ParquetExportOptions/directoryWait``).
final class ExportDirectoryLock {
    /// How long an export waits for another export into the same directory, by default
    /// (``ParquetExportOptions/directoryWait``).
    static let defaultWait = ParquetExportOptions().directoryWait

    /// What is locked, for messages.
    enum Place {
        case directory, monthFolder

        var name: String { self == .directory ? "the export directory" : "the month folder" }
    }

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

    /// Whether the calling thread holds an export's lock: an export it starts now is
    /// started from that export's progress, and is `nested`.
    static var heldByThisThread: Bool {
        let thread = ObjectIdentifier(Thread.current)
        return holders.withLock { $0.values.contains(thread) }
    }

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
    ///   - nested: the export was started from another's progress, on the thread that
    ///     holds that one's locks (``heldByThisThread``): it does not wait at all.
    /// - Throws: ``RouteLogError`` `.locked` when another export still holds it after
    ///   `wait` (at once when `nested`); `.io` when it cannot be opened or locked;
    ///   `.invalidArgument` when it is the store's directory.
    convenience init(_ directory: URL, store: URL? = nil, storeIdentity: DirectoryIdentity? = nil, waiting: (() -> Void)? = nil,
                     wait: TimeInterval = defaultWait, nested: Bool = false, fileSystem: any FileSystem = PosixFileSystem.shared) throws {
        try self.init(place: .directory, path: directory.path, storeIdentity: storeIdentity, waiting: waiting, wait: wait, nested: nested,
                      fileSystem: fileSystem, opening: {
            try DurableFile.retrying("opening the export directory", path: directory.path) {
                try fileSystem.open(directory.path, flags: O_RDONLY | O_DIRECTORY, mode: 0)
            }
        }, checking: { mine in
            var theirs = stat()
            if let store, stat(store.path, &theirs) == 0, FileIdentity(theirs) == mine { throw Self.isTheStores(.directory, directory.path) }
        })
    }

    /// Opens the folder `name` in `parent` (never through a symbolic link at the name)
    /// and waits for its lock: a month folder an export is to work in.
    /// - Parameters:
    ///   - url: the folder's path as the caller names it (messages).
    ///   - storeIdentity: the store's directory, refused as for the export's directory.
    ///   - checking: called with the folder's device and inode before the wait; what it
    ///     throws is thrown, with nothing locked (a folder that is not the one expected).
    ///   - waiting, wait, nested: as for the export's directory.
    /// - Throws: ``Errno`` when the folder cannot be opened (`ENOENT` when nothing is at
    ///   the name; `ENOTDIR` or `ELOOP` when a link or a file is); ``RouteLogError`` as
    ///   for the export's directory.
    convenience init(folder name: String, in parent: DirectoryRef, url: URL, storeIdentity: DirectoryIdentity?,
                     checking: (FileIdentity) throws -> Void, waiting: (() -> Void)?, wait: TimeInterval, nested: Bool) throws {
        let fileSystem = PosixFileSystem.shared
        try self.init(place: .monthFolder, path: url.path, storeIdentity: storeIdentity, waiting: waiting, wait: wait, nested: nested,
                      fileSystem: fileSystem, opening: {
            let opened = try fileSystem.openDirectory(name, in: parent, flags: O_NOFOLLOW)
            return FileRef(fd: opened.fd, path: url.path)
        }, checking: checking)
    }

    private init(place: Place, path: String, storeIdentity: DirectoryIdentity?, waiting: (() -> Void)?, wait: TimeInterval,
                 nested: Bool, fileSystem: any FileSystem, opening: () throws -> FileRef, checking: (FileIdentity) throws -> Void) throws {
        self.fileSystem = fileSystem
        var registered = false
        let ref = try StoreLock.openWatched(opening, then: { opened in registered = routelog_release_in_forked_child(opened.fd) == 0 })
        self.ref = ref
        self.directory = DirectoryRef(fd: ref.fd, path: path)
        self.registered = registered
        // Every step that can fail comes before `key` is set, which completes the object:
        // a failure until then closes the descriptor here, and deinit does not run.
        func fail(_ error: any Error) -> any Error {
            Self.close(ref, registered: registered, fileSystem: fileSystem)
            return error
        }
        guard registered else {
            throw fail(RouteLogError(.io, "too many locks are held in this process; end an export or close a store first",
                                     path: path, errno: EMFILE))
        }
        var mine = stat()
        guard fstat(ref.fd, &mine) == 0 else {
            let failure = errno
            throw fail(RouteLogError.io("looking at \(place.name)", path: path, errno: failure))
        }
        identity = FileIdentity(mine)
        do {
            if storeIdentity == DirectoryIdentity(device: identity.device, inode: identity.inode) { throw Self.isTheStores(place, path) }
            try checking(identity)
        } catch {
            throw fail(error)
        }
        let key = "\(mine.st_dev):\(mine.st_ino)"
        let thread = ObjectIdentifier(Thread.current)
        if Self.holders.withLock({ $0[key] == thread }) {
            throw fail(RouteLogError(.invalidArgument, "an export into this directory is already under way on this thread (an export started from another's progress); export into another directory",
                                     path: path))
        }
        do {
            try Self.lock(ref, place: place, path: path, waiting: waiting, wait: wait, nested: nested, fileSystem: fileSystem)
        } catch {
            throw fail(error)
        }
        Self.holders.withLock { $0[key] = thread }
        self.key = key
    }

    private static func isTheStores(_ place: Place, _ path: String) -> RouteLogError {
        RouteLogError(.invalidArgument, "\(place.name) is the store's own directory; export into another one", path: path)
    }

    /// The directory was removed (its last name unlinked, `rmdir`), perhaps while this
    /// waited for its lock: nothing written into it could be found again.
    var isRemoved: Bool {
        var info = stat()
        return fstat(ref.fd, &info) == 0 && info.st_nlink == 0
    }

    /// Takes the lock, trying again with growing pauses (up to 50 ms) until `wait` is
    /// over: flock cannot wait for a limited time by itself. A `nested` export (started
    /// from another's progress, on the thread that holds that one's locks) does not wait
    /// at all: the export holding this lock may be waiting for what this
    /// thread holds (an export by month into the directory above that folder), and
    /// neither would go on.
    private static func lock(_ ref: FileRef, place: Place, path: String, waiting: (() -> Void)?, wait: TimeInterval,
                             nested: Bool, fileSystem: any FileSystem) throws {
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
                if nested {
                    throw RouteLogError(.locked, "another export holds \(place.name), and this export, started from another's progress on the thread that holds that one's folders, does not wait for it (it may be waiting for them); export once the other ends",
                                        path: path)
                }
                if !told {
                    told = true
                    waiting?()  // the caller hears of a wait once, before it
                    continue
                }
                let left = deadline.timeIntervalSinceNow
                guard left > 0 else {
                    let within = Int(min(wait, 1e15).rounded(.up))
                    throw RouteLogError(.locked, place == .directory
                        ? "another export into this directory holds it, and did not end within \(within) s; export again once it ends, or into another directory"
                        : "another export is writing into this month folder, and did not end within \(within) s; export again once it ends", path: path)
                }
                usleep(min(pause, useconds_t(min(left, 1) * 1_000_000) + 1))
                pause = min(pause * 2, 50_000)
            } catch let error as Errno {
                throw RouteLogError.io("locking \(place.name)", path: path, errno: error.code)
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
