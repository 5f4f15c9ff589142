import Foundation
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
final class ExportDirectoryLock {
    private let fd: Int32
    private let key: String

    /// The directories (device and inode) this process holds, each with the thread that
    /// took it: the same thread asking again (an export started from another's progress
    /// callback) is refused, since the wait would never end; another thread waits.
    private static let holders = StateLock<[String: ObjectIdentifier]>([:])

    /// Opens `directory` (a directory, reached as given) and waits for its lock.
    /// - Parameters:
    ///   - store: the store's own directory, which is refused: its writer holds an flock
    ///     on it, so the wait would never end.
    ///   - waiting: called once, before the wait, when another export holds the lock
    ///     (so that a user is told why nothing happens); not called when it is free.
    /// - Throws: ``RouteLogError`` `.io` when it cannot be opened or locked;
    ///   `.invalidArgument` when it is the store's directory.
    init(_ directory: URL, store: URL? = nil, waiting: (() -> Void)? = nil) throws {
        fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw RouteLogError.io("opening the export directory", path: directory.path, errno: errno) }
        var mine = stat(), theirs = stat()
        guard fstat(fd, &mine) == 0 else {
            let failure = errno
            close(fd)
            throw RouteLogError.io("looking at the export directory", path: directory.path, errno: failure)
        }
        if let store, stat(store.path, &theirs) == 0, mine.st_dev == theirs.st_dev, mine.st_ino == theirs.st_ino {
            close(fd)
            throw RouteLogError(.invalidArgument, "the export directory is the store's own directory; export into another one", path: directory.path)
        }
        key = "\(mine.st_dev):\(mine.st_ino)"
        let thread = ObjectIdentifier(Thread.current)
        if Self.holders.withLock({ $0[key] == thread }) {
            close(fd)
            throw RouteLogError(.invalidArgument, "an export into this directory is already under way on this thread (an export started from another's progress); export into another directory",
                                path: directory.path)
        }
        // A first try that does not wait, so that the caller hears of a wait.
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EWOULDBLOCK || errno == EAGAIN { waiting?() }
            while flock(fd, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    let failure = errno
                    close(fd)
                    throw RouteLogError.io("locking the export directory", path: directory.path, errno: failure)
                }
            }
        }
        Self.holders.withLock { $0[key] = thread }
    }

    deinit {
        _ = Self.holders.withLock { $0.removeValue(forKey: key) }
        close(fd)
    }
}
