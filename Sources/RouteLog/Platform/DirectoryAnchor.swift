#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A directory held open, and a path that leads into it however the directory is
/// renamed or the path to it re-pointed meanwhile. On Linux that path is
/// `/proc/self/fd/N`: the kernel resolves it through the open descriptor, so files
/// made, renamed and removed under it land in the held directory and nowhere else,
/// with no moment between a check and the call. Elsewhere (Apple systems have no such
/// path) ``path`` is the directory's own path, and the caller must check before each
/// change that the path still leads to ``identity`` (``isPinned`` is false).
final class DirectoryAnchor: @unchecked Sendable {
    // Immutable after init; the descriptor is closed in deinit.
    let descriptor: Int32
    /// The held directory.
    let identity: DirectoryIdentity
    /// The directory's path as the caller gave it (for messages).
    let realPath: String
    /// Where to make, rename and remove files in the directory.
    let path: String
    /// Whether ``path`` goes through the descriptor.
    let isPinned: Bool

    /// Holds the directory at `realPath` when it is still `expected`; nil when the path
    /// leads to no directory, through a link at its end, or to another directory.
    /// - Throws: `.io` with the errno when the directory could not be opened for another
    ///   reason (no descriptor left, no permission).
    init?(holding realPath: String, expected: DirectoryIdentity) throws {
        let fd = open(realPath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            // Gone, a file, or a link in its place: no longer the checked directory.
            if [ENOENT, ENOTDIR, ELOOP].contains(code) { return nil }
            throw RouteLogError.io("open directory", path: realPath, errno: code)
        }
        var info = stat()
        guard fstat(fd, &info) == 0,
              DirectoryIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) == expected else {
            _ = close(fd)
            return nil
        }
        descriptor = fd
        identity = expected
        self.realPath = realPath
        #if os(Linux)
        let pinned = "/proc/self/fd/\(fd)"
        // /proc may be missing (a container without it): then the plain path it is.
        isPinned = DirectoryIdentity(of: pinned) == expected
        path = isPinned ? pinned : realPath
        #else
        isPinned = false
        path = realPath
        #endif
    }

    deinit { _ = close(descriptor) }

    /// Whether the held directory is `directory` or lies inside it: its parents, walked
    /// up through ``path`` (so through the descriptor where it is pinned), up to the root.
    func isInside(_ directory: DirectoryIdentity) -> Bool {
        var folder = path
        for _ in 0..<4096 {
            guard let here = DirectoryIdentity(of: folder) else { return false }
            if here == directory { return true }
            let parent = folder + "/.."
            if DirectoryIdentity(of: parent) == here { return false }  // the root is its own parent
            folder = parent
        }
        return false
    }

    /// `error` with the pinned path replaced by the directory's own, so that messages
    /// name the place the caller knows.
    func displayed(_ error: RouteLogError) -> RouteLogError {
        guard isPinned else { return error }
        func shown(_ text: String) -> String {
            if text == path || text == path + "/." { return realPath }
            return text.replacingOccurrences(of: path + "/./", with: realPath + "/")
                .replacingOccurrences(of: path + "/", with: realPath + "/")
        }
        return RouteLogError(error.code, shown(error.message), path: error.path.map(shown), offset: error.offset,
                             errno: error.errno, pid: error.pid)
    }
}
