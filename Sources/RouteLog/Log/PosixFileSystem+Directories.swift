import CRouteLogSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real file system's calls in an open directory: each name is looked up from the
/// directory's descriptor (openat, mkdirat, renameat, unlinkat, fstatat), never from
/// its path, so a link or another directory put at that path since it was opened
/// changes nothing they reach.
extension PosixFileSystem {
    func openDirectory(_ name: String, in parent: DirectoryRef?, flags: Int32) throws -> DirectoryRef {
        let fd = openat(parent?.fd ?? AT_FDCWD, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | flags, 0)
        guard fd >= 0 else { throw Errno(code: errno) }
        return DirectoryRef(fd: fd, path: parent?.path(name) ?? name)
    }

    func closeDirectory(_ directory: DirectoryRef) { _ = systemClose(directory.fd) }

    func open(_ name: String, in directory: DirectoryRef, flags: Int32, mode: UInt32) throws -> FileRef {
        let fd = openat(directory.fd, name, flags | O_CLOEXEC, mode_t(mode))
        guard fd >= 0 else { throw Errno(code: errno) }
        return FileRef(fd: fd, path: directory.path(name))
    }

    func makeDirectory(_ name: String, in directory: DirectoryRef) throws {
        guard mkdirat(directory.fd, name, 0o700) == 0 else { throw Errno(code: errno) }
    }

    func rename(_ name: String, in source: DirectoryRef, to target: String, in destination: DirectoryRef) throws {
        guard renameat(source.fd, name, destination.fd, target) == 0 else { throw Errno(code: errno) }
    }

    func renameExclusive(_ name: String, in source: DirectoryRef, to target: String, in destination: DirectoryRef) throws {
        let result = routelog_renameat_exclusive(source.fd, name, destination.fd, target)
        guard result == 0 else { throw Errno(code: result) }
    }

    func unlink(_ name: String, in directory: DirectoryRef) throws {
        guard unlinkat(directory.fd, name, 0) == 0 else { throw Errno(code: errno) }
    }

    func listDirectory(_ directory: DirectoryRef) throws -> [String] {
        // A descriptor of its own (fdopendir takes it, and reads from its offset), opened
        // through the held one: the same directory, whatever is at its path now.
        let fd = openat(directory.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard fd >= 0 else { throw Errno(code: errno) }
        guard let dir = fdopendir(fd) else {
            let code = errno
            _ = systemClose(fd)
            throw Errno(code: code)
        }
        defer { closedir(dir) }
        return Self.names { readdir(dir) }
    }

    func syncDirectory(_ directory: DirectoryRef) throws {
        let result = routelog_sync_all(directory.fd)
        // Some file systems cannot fsync a directory; their metadata is synchronous.
        guard result == 0 || result == EINVAL else { throw Errno(code: result) }
    }

    func identityOfName(_ name: String, in directory: DirectoryRef) -> FileIdentity? {
        var info = stat()
        guard fstatat(directory.fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return FileIdentity(info)
    }

    func identity(_ directory: DirectoryRef) -> FileIdentity? {
        var info = stat()
        guard fstat(directory.fd, &info) == 0 else { return nil }
        return FileIdentity(info)
    }

    func typeOfName(_ name: String, in directory: DirectoryRef) -> FileType? {
        var info = stat()
        guard fstatat(directory.fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return Self.type(info.st_mode)
    }

    func sizeOfName(_ name: String, in directory: DirectoryRef) -> Int64? {
        var info = stat()
        guard fstatat(directory.fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// The names `next` (readdir on an open directory) gives until it gives none, but
    /// `.` and `..`.
    static func names(_ next: () -> UnsafeMutablePointer<dirent>?) -> [String] {
        var names: [String] = []
        while let entry = next() {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
