#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which directory a path names: its device and inode. A store's directory deleted,
/// moved away, or moved away and replaced by another at the same path no longer has
/// the identity the handle saw when it opened, so a watch can tell that the store it
/// follows is gone rather than quiet.
struct DirectoryIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    /// The identity of the directory at `path` (symbolic links followed), or nil when
    /// nothing, or no directory, is there.
    init?(of path: String) {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
