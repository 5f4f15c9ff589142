import CRouteLogSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call's error number.
struct Errno: Error, Equatable, Sendable {
    let code: Int32
}

/// What kind of file a descriptor or name refers to.
enum FileType: Sendable, Equatable {
    case regular, directory, symbolicLink, other
}

/// An open file: its descriptor and the path it was opened by (for messages and traces).
struct FileRef: Sendable, Hashable {
    let fd: Int32
    let path: String
}

/// An open directory: its descriptor and the path it was opened by (for messages and
/// traces). Names made, opened, renamed, listed and synced through it stay in that
/// directory whatever is put at its path meanwhile (a link, another directory).
struct DirectoryRef: Sendable, Hashable {
    let fd: Int32
    let path: String

    /// The path of `name` in the directory (for messages and traces, never opened).
    func path(_ name: String) -> String { path + "/" + name }
}

/// Every file operation RouteLog makes, one system call each. The store reaches the
/// disk only through this, so a test can record what it does (crash-state replay) or
/// fail the Nth call (fault injection). Retrying EINTR and short writes is done above
/// this layer, in ``DurableFile``, so injected EINTRs are retried like real ones.
protocol FileSystem: Sendable {
    func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef
    func close(_ file: FileRef)
    func pread(_ file: FileRef, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int
    func pwrite(_ file: FileRef, _ buffer: UnsafeRawBufferPointer, at offset: Int64) throws -> Int
    func size(_ file: FileRef) throws -> Int64
    func truncate(_ file: FileRef, to length: Int64) throws
    /// fdatasync (F_FULLFSYNC on Darwin).
    func syncData(_ file: FileRef) throws
    /// F_BARRIERFSYNC on Darwin: earlier writes reach the drive before later ones;
    /// fdatasync where there is no such barrier.
    func syncBarrier(_ file: FileRef) throws
    /// fsync (F_FULLFSYNC on Darwin).
    func syncAll(_ file: FileRef) throws
    func rename(_ from: String, to: String) throws
    /// rename that never replaces what is at `to` (EEXIST then).
    func renameExclusive(_ from: String, to: String) throws
    /// Swaps the files at `a` and `b` (both there) in one step: renameat2's
    /// RENAME_EXCHANGE, Darwin's RENAME_SWAP; ENOTSUP where the file system cannot.
    func exchange(_ a: String, with b: String) throws
    func unlink(_ path: String) throws
    func makeDirectory(_ path: String) throws
    /// Opens the directory and fsyncs it, so that creations, renames and unlinks in it
    /// are durable.
    func syncDirectory(_ path: String) throws
    func listDirectory(_ path: String) throws -> [String]
    /// Is `path` an existing directory (nil when nothing is there)?
    func isDirectory(_ path: String) -> Bool?
    func lockExclusive(_ file: FileRef) throws
    func unlock(_ file: FileRef)
    func isLockHeld(_ file: FileRef) throws -> Bool
    /// fstat's file type of an open file.
    func fileType(_ file: FileRef) throws -> FileType
    /// fstat's count of the names (hard links) an open file has.
    func linkCount(_ file: FileRef) throws -> Int
    /// lstat's answer: is `path` itself a symbolic link (nil when nothing is there)?
    func isSymbolicLink(_ path: String) -> Bool?
    /// lstat's size of what is at `path`, which needs no permission to read it (nil when
    /// nothing is there, or the file system cannot tell).
    func sizeOfName(_ path: String) -> Int64?
    /// lstat's device and inode of what is at `path` (nil when nothing is there, or the
    /// file system cannot tell), and fstat's of an open file: the same when that name
    /// still leads to that file.
    func identityOfName(_ path: String) -> FileIdentity?
    func identity(_ file: FileRef) -> FileIdentity?
    /// When an open file was made (nil when the file system cannot tell): what tells a
    /// file from an earlier one whose inode number it was given (``FileBirth``).
    func birth(_ file: FileRef) -> FileBirth?
    /// ``birth(_:)`` of the file at `path` (never through a link), without opening it.
    func birthOfName(_ path: String) -> FileBirth?
    /// An exclusive lock on the directory itself (flock), which deleting or replacing a
    /// file in it cannot escape; EWOULDBLOCK when another open description holds it.
    func lockDirectory(_ directory: FileRef) throws
    /// Lets that lock go.
    func unlockDirectory(_ directory: FileRef)

    // Calls in an open directory (openat, renameat2, fdopendir, fsync of its descriptor):
    // what a link or another directory put at the directory's path since it was opened
    // cannot redirect. `lost/` is used through these (``LostDirectory``).

    /// Opens the directory `name` in `parent` (`name` a path of its own when `parent` is
    /// nil): O_RDONLY | O_DIRECTORY, with `flags` added (O_NOFOLLOW: ENOTDIR or ELOOP
    /// when a symbolic link is at the name).
    func openDirectory(_ name: String, in parent: DirectoryRef?, flags: Int32) throws -> DirectoryRef
    func closeDirectory(_ directory: DirectoryRef)
    /// openat: the file `name` in `directory`.
    func open(_ name: String, in directory: DirectoryRef, flags: Int32, mode: UInt32) throws -> FileRef
    /// mkdirat.
    func makeDirectory(_ name: String, in directory: DirectoryRef) throws
    /// renameat: replaces what is at `target` in `destination`.
    func rename(_ name: String, in source: DirectoryRef, to target: String, in destination: DirectoryRef) throws
    /// renameat that never replaces what is at `target` in `destination` (EEXIST then).
    func renameExclusive(_ name: String, in source: DirectoryRef, to target: String, in destination: DirectoryRef) throws
    /// unlinkat.
    func unlink(_ name: String, in directory: DirectoryRef) throws
    /// The names in the directory (fdopendir), but `.` and `..`.
    func listDirectory(_ directory: DirectoryRef) throws -> [String]
    /// fsync of the directory's descriptor, so that creations, renames and unlinks in it
    /// are durable.
    func syncDirectory(_ directory: DirectoryRef) throws
    /// fstatat's device and inode of `name` in `directory`, never following a link (nil
    /// when nothing is there, or the file system cannot tell).
    func identityOfName(_ name: String, in directory: DirectoryRef) -> FileIdentity?
    /// fstat's device and inode of the open directory (nil when the file system cannot tell).
    func identity(_ directory: DirectoryRef) -> FileIdentity?
    /// fstatat's file type of `name` in `directory`, never following a link (nil when
    /// nothing is there, or the file system cannot tell).
    func typeOfName(_ name: String, in directory: DirectoryRef) -> FileType?
    /// fstatat's size of the regular file `name` in `directory`, never following a link
    /// and needing no permission to read it (nil when no regular file is there, or the
    /// file system cannot tell).
    func sizeOfName(_ name: String, in directory: DirectoryRef) -> Int64?
}

extension FileSystem {
    /// A file system that has no barrier of its own syncs the data.
    func syncBarrier(_ file: FileRef) throws { try syncData(file) }

    /// A file system that cannot tell a size by name says so.
    func sizeOfName(_ path: String) -> Int64? { nil }

    /// A file system that cannot tell identities says so (a check of one then fails).
    func identityOfName(_ path: String) -> FileIdentity? { nil }
    func identity(_ file: FileRef) -> FileIdentity? { nil }
    func birth(_ file: FileRef) -> FileBirth? { nil }
    func birthOfName(_ path: String) -> FileBirth? { nil }
    func identityOfName(_ name: String, in directory: DirectoryRef) -> FileIdentity? { nil }
    func identity(_ directory: DirectoryRef) -> FileIdentity? { nil }
    func typeOfName(_ name: String, in directory: DirectoryRef) -> FileType? { nil }
    func sizeOfName(_ name: String, in directory: DirectoryRef) -> Int64? { nil }
}

/// A file's device and inode number.
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

/// When a file was made, to the nanosecond where the file system keeps that, unchanged for
/// the life of its inode. A file removed while nothing holds it open frees its inode
/// number, and the next file made on that device may be given it (ext4 gives it at
/// once): a copy restored in the place of a removed file can then have the removed
/// file's device and inode, but not its birth.
struct FileBirth: Equatable, Sendable {
    let seconds: Int64
    let nanoseconds: Int64
}

/// The real file system.
struct PosixFileSystem: FileSystem {
    static let shared = PosixFileSystem()

    func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef {
        let fd = Glibc_open(path, flags | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Errno(code: errno) }
        return FileRef(fd: fd, path: path)
    }

    func close(_ file: FileRef) { _ = systemClose(file.fd) }

    func pread(_ file: FileRef, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        let n = systemPread(file.fd, buffer.baseAddress, buffer.count, off_t(offset))
        guard n >= 0 else { throw Errno(code: errno) }
        return n
    }

    func pwrite(_ file: FileRef, _ buffer: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        let n = systemPwrite(file.fd, buffer.baseAddress, buffer.count, off_t(offset))
        guard n >= 0 else { throw Errno(code: errno) }
        return n
    }

    func size(_ file: FileRef) throws -> Int64 {
        var info = stat()
        guard fstat(file.fd, &info) == 0 else { throw Errno(code: errno) }
        return Int64(info.st_size)
    }

    func truncate(_ file: FileRef, to length: Int64) throws {
        guard ftruncate(file.fd, off_t(length)) == 0 else { throw Errno(code: errno) }
    }

    func syncData(_ file: FileRef) throws {
        let result = routelog_sync_data(file.fd)
        guard result == 0 else { throw Errno(code: result) }
    }

    func syncBarrier(_ file: FileRef) throws {
        let result = routelog_sync_barrier(file.fd)
        guard result == 0 else { throw Errno(code: result) }
    }

    func syncAll(_ file: FileRef) throws {
        let result = routelog_sync_all(file.fd)
        guard result == 0 else { throw Errno(code: result) }
    }

    func rename(_ from: String, to: String) throws {
        guard systemRename(from, to) == 0 else { throw Errno(code: errno) }
    }

    func renameExclusive(_ from: String, to: String) throws {
        let result = routelog_rename_exclusive(from, to)
        guard result == 0 else { throw Errno(code: result) }
    }

    func exchange(_ a: String, with b: String) throws {
        let result = routelog_rename_exchange(a, b)
        guard result == 0 else { throw Errno(code: result) }
    }

    func unlink(_ path: String) throws {
        guard systemUnlink(path) == 0 else { throw Errno(code: errno) }
    }

    func makeDirectory(_ path: String) throws {
        guard mkdir(path, 0o700) == 0 else { throw Errno(code: errno) }
    }

    func syncDirectory(_ path: String) throws {
        let fd = Glibc_open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard fd >= 0 else { throw Errno(code: errno) }
        defer { _ = systemClose(fd) }
        let result = routelog_sync_all(fd)
        // Some file systems cannot fsync a directory; their metadata is synchronous.
        guard result == 0 || result == EINVAL else { throw Errno(code: result) }
    }

    func listDirectory(_ path: String) throws -> [String] {
        guard let dir = opendir(path) else { throw Errno(code: errno) }
        defer { closedir(dir) }
        return Self.names { readdir(dir) }
    }

    func isDirectory(_ path: String) -> Bool? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (info.st_mode & S_IFMT) == S_IFDIR
    }

    func lockExclusive(_ file: FileRef) throws {
        let result = routelog_lock_exclusive(file.fd)
        guard result == 0 else { throw Errno(code: result) }
    }

    func unlock(_ file: FileRef) { _ = routelog_unlock(file.fd) }

    func isLockHeld(_ file: FileRef) throws -> Bool {
        let result = routelog_lock_is_held(file.fd)
        guard result >= 0 else { throw Errno(code: -result) }
        return result == 1
    }

    func fileType(_ file: FileRef) throws -> FileType {
        var info = stat()
        guard fstat(file.fd, &info) == 0 else { throw Errno(code: errno) }
        return Self.type(info.st_mode)
    }

    func linkCount(_ file: FileRef) throws -> Int {
        var info = stat()
        guard fstat(file.fd, &info) == 0 else { throw Errno(code: errno) }
        return Int(info.st_nlink)
    }

    func isSymbolicLink(_ path: String) -> Bool? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Self.type(info.st_mode) == .symbolicLink
    }

    func sizeOfName(_ path: String) -> Int64? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    func identityOfName(_ path: String) -> FileIdentity? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return FileIdentity(info)
    }

    func identity(_ file: FileRef) -> FileIdentity? {
        var info = stat()
        guard fstat(file.fd, &info) == 0 else { return nil }
        return FileIdentity(info)
    }

    func birth(_ file: FileRef) -> FileBirth? {
        var seconds: Int64 = 0, nanoseconds: Int64 = 0
        guard routelog_birth_time(file.fd, &seconds, &nanoseconds) == 0 else { return nil }
        return FileBirth(seconds: seconds, nanoseconds: nanoseconds)
    }

    func birthOfName(_ path: String) -> FileBirth? {
        var seconds: Int64 = 0, nanoseconds: Int64 = 0
        guard routelog_birth_time_of_name(path, &seconds, &nanoseconds) == 0 else { return nil }
        return FileBirth(seconds: seconds, nanoseconds: nanoseconds)
    }

    func lockDirectory(_ directory: FileRef) throws {
        let result = routelog_lock_directory(directory.fd)
        guard result == 0 else { throw Errno(code: result) }
    }

    func unlockDirectory(_ directory: FileRef) { _ = routelog_unlock_directory(directory.fd) }

    static func type(_ mode: mode_t) -> FileType {
        switch mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFLNK: return .symbolicLink
        default: return .other
        }
    }
}
