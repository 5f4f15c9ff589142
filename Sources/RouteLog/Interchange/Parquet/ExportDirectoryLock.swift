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

    /// Opens `directory` (a directory, reached as given) and waits for its lock.
    /// - Parameter store: the store's own directory, which is refused: its writer holds
    ///   an flock on it, so the wait would never end.
    /// - Throws: ``RouteLogError`` `.io` when it cannot be opened or locked;
    ///   `.invalidArgument` when it is the store's directory.
    init(_ directory: URL, store: URL? = nil) throws {
        fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw RouteLogError.io("opening the export directory", path: directory.path, errno: errno) }
        var mine = stat(), theirs = stat()
        if let store, fstat(fd, &mine) == 0, stat(store.path, &theirs) == 0, mine.st_dev == theirs.st_dev, mine.st_ino == theirs.st_ino {
            close(fd)
            throw RouteLogError(.invalidArgument, "the export directory is the store's own directory; export into another one", path: directory.path)
        }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let failure = errno
                close(fd)
                throw RouteLogError.io("locking the export directory", path: directory.path, errno: failure)
            }
        }
    }

    deinit { close(fd) }
}
