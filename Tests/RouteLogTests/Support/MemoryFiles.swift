import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import RouteLog

/// Files held in memory, for reading only: bytes a test forged, read by the library's
/// own readers (``DurableFile``, ``LogScanner``, ``SegmentSet``) without a disk. Every
/// call that would change something fails with EROFS. Wrap it in an
/// ``InterceptingFileSystem`` to watch or fail its reads.
struct MemoryFiles: FileSystem {
    let directory: String
    private let names: [String]
    private let contents: [[UInt8]]

    /// Descriptors are 100 and up, one per file name, so that a stray real one is
    /// never mistaken for one of these.
    private static let firstDescriptor: Int32 = 100

    init(_ files: [String: [UInt8]], directory: String = "/memory") {
        self.directory = directory
        names = files.keys.sorted()
        contents = names.map { files[$0]! }
    }

    func path(_ name: String) -> String { directory + "/" + name }

    /// Opens `name` for reading, as the store would.
    func file(_ name: String) throws -> DurableFile {
        try DurableFile.open(path(name), flags: O_RDONLY, fileSystem: self)
    }

    private func index(_ file: FileRef) throws -> Int {
        let i = Int(file.fd - Self.firstDescriptor)
        guard contents.indices.contains(i) else { throw Errno(code: EBADF) }
        return i
    }

    func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef {
        guard flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC) == 0 else { throw Errno(code: EROFS) }
        guard path.hasPrefix(directory + "/"), let i = names.firstIndex(of: String(path.dropFirst(directory.count + 1)))
        else { throw Errno(code: ENOENT) }
        return FileRef(fd: Self.firstDescriptor + Int32(i), path: path)
    }

    func close(_ file: FileRef) {}

    func pread(_ file: FileRef, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        let bytes = try contents[index(file)]
        guard offset >= 0 else { throw Errno(code: EINVAL) }
        guard offset < Int64(bytes.count) else { return 0 }
        let n = min(buffer.count, bytes.count - Int(offset))
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + Int(offset), byteCount: n) }
        return n
    }

    func size(_ file: FileRef) throws -> Int64 { Int64(try contents[index(file)].count) }

    func listDirectory(_ path: String) throws -> [String] {
        guard path == directory else { throw Errno(code: ENOENT) }
        return names
    }

    func isDirectory(_ path: String) -> Bool? {
        path == directory ? true : names.contains { self.path($0) == path } ? false : nil
    }

    func pwrite(_ file: FileRef, _ buffer: UnsafeRawBufferPointer, at offset: Int64) throws -> Int { throw Errno(code: EROFS) }
    func truncate(_ file: FileRef, to length: Int64) throws { throw Errno(code: EROFS) }
    func syncData(_ file: FileRef) throws { throw Errno(code: EROFS) }
    func syncAll(_ file: FileRef) throws { throw Errno(code: EROFS) }
    func rename(_ from: String, to: String) throws { throw Errno(code: EROFS) }
    func renameExclusive(_ from: String, to: String) throws { throw Errno(code: EROFS) }
    func exchange(_ a: String, with b: String) throws { throw Errno(code: EROFS) }
    func unlink(_ path: String) throws { throw Errno(code: EROFS) }
    func makeDirectory(_ path: String) throws { throw Errno(code: EROFS) }
    func syncDirectory(_ path: String) throws { throw Errno(code: EROFS) }
    func lockExclusive(_ file: FileRef) throws { throw Errno(code: EROFS) }
    func unlock(_ file: FileRef) {}
    func isLockHeld(_ file: FileRef) throws -> Bool { false }
    func fileType(_ file: FileRef) throws -> FileType { _ = try index(file); return .regular }
    func linkCount(_ file: FileRef) throws -> Int { _ = try index(file); return 1 }  // no links in memory
    func isSymbolicLink(_ path: String) -> Bool? { isDirectory(path).map { _ in false } }
    func lockDirectory(_ directory: FileRef) throws { throw Errno(code: EROFS) }
    func unlockDirectory(_ directory: FileRef) {}

    // The one directory, opened (its descriptor is one below the files'), and the
    // files in it by name; nothing can be made or changed there either.
    func openDirectory(_ name: String, in parent: DirectoryRef?, flags: Int32) throws -> DirectoryRef {
        let path = parent.map { $0.path(name) } ?? name
        guard path == directory else { throw Errno(code: isDirectory(path) == nil ? ENOENT : ENOTDIR) }
        return DirectoryRef(fd: Self.firstDescriptor - 1, path: path)
    }
    func closeDirectory(_ directory: DirectoryRef) {}
    func open(_ name: String, in directory: DirectoryRef, flags: Int32, mode: UInt32) throws -> FileRef {
        try open(directory.path(name), flags: flags, mode: mode)
    }
    func listDirectory(_ directory: DirectoryRef) throws -> [String] { try listDirectory(directory.path) }
    func makeDirectory(_ name: String, in directory: DirectoryRef) throws { throw Errno(code: EROFS) }
    func rename(_ name: String, in source: DirectoryRef, to target: String, in destination: DirectoryRef) throws {
        throw Errno(code: EROFS)
    }
    func renameExclusive(_ name: String, in source: DirectoryRef, to target: String, in destination: DirectoryRef) throws {
        throw Errno(code: EROFS)
    }
    func unlink(_ name: String, in directory: DirectoryRef) throws { throw Errno(code: EROFS) }
    func syncDirectory(_ directory: DirectoryRef) throws { throw Errno(code: EROFS) }
}
