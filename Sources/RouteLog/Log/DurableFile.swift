#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An open file with the loops a storage engine needs around raw system calls:
/// EINTR is retried, short reads and writes continue, and failures become
/// ``RouteLogError`` with the operation and path. Closed when the last reference goes,
/// so a reader thread holding one keeps it usable while the store moves on.
final class DurableFile: @unchecked Sendable {
    // Immutable after init; the descriptor is only closed in deinit.
    let ref: FileRef
    let fileSystem: any FileSystem

    init(ref: FileRef, fileSystem: any FileSystem) {
        self.ref = ref
        self.fileSystem = fileSystem
    }

    deinit { fileSystem.close(ref) }

    var path: String { ref.path }

    /// Opens a regular file of the store, never through a symbolic link and never
    /// waiting on a FIFO: anything but a regular file is refused, naming it.
    static func open(_ path: String, flags: Int32, fileSystem: any FileSystem) throws -> DurableFile {
        try regular(path, flags: flags, fileSystem: fileSystem) { try fileSystem.open(path, flags: $0, mode: 0o600) }
    }

    /// ``open(_:flags:fileSystem:)`` of the file `name` in an open directory (openat):
    /// the file is in that directory whatever is at its path now.
    static func open(_ name: String, in directory: DirectoryRef, flags: Int32, fileSystem: any FileSystem) throws -> DurableFile {
        try regular(directory.path(name), flags: flags, fileSystem: fileSystem) {
            try fileSystem.open(name, in: directory, flags: $0, mode: 0o600)
        }
    }

    /// Creates the new regular file `name` in an open directory, failing when anything
    /// (a file, a link) has the name.
    static func create(_ name: String, in directory: DirectoryRef, fileSystem: any FileSystem) throws -> DurableFile {
        try open(name, in: directory, flags: O_RDWR | O_CREAT | O_EXCL, fileSystem: fileSystem)
    }

    /// Opens by `call`, given the flags to open with, and refuses anything but a regular
    /// file; `path` names the file in errors.
    private static func regular(_ path: String, flags: Int32, fileSystem: any FileSystem,
                             _ call: (Int32) throws -> FileRef) throws -> DurableFile {
        let ref: FileRef
        // Opening to read changes nothing, which the error's advice says.
        let operation = flags & (O_CREAT | O_WRONLY | O_RDWR) == 0 ? "open for reading" : "open"
        do {
            ref = try retrying(operation, path: path) { try call(flags | O_NOFOLLOW | O_NONBLOCK) }
        } catch let error as RouteLogError where error.errno == ELOOP || error.errno == EMLINK {
            throw RouteLogError.notRegularFile(path, "a symbolic link")
        }
        let file = DurableFile(ref: ref, fileSystem: fileSystem)
        let type = try retrying("fstat", path: path) { try fileSystem.fileType(ref) }
        guard type == .regular else {
            throw RouteLogError.notRegularFile(path, type == .directory ? "a directory" : "a special file (a FIFO, socket or device)")
        }
        return file
    }

    /// The regular file at `path` opened for reading, or nil when there is none (or a
    /// link, or another kind of file).
    static func openIfRegular(_ path: String, fileSystem: any FileSystem) -> DurableFile? {
        try? open(path, flags: O_RDONLY, fileSystem: fileSystem)
    }

    /// Creates a new regular file, failing when anything (a file, a link) has the name.
    static func create(_ path: String, fileSystem: any FileSystem) throws -> DurableFile {
        try open(path, flags: O_RDWR | O_CREAT | O_EXCL, fileSystem: fileSystem)
    }

    /// Opens a regular file for writing, creating it when missing.
    static func openOrCreate(_ path: String, fileSystem: any FileSystem) throws -> DurableFile {
        try open(path, flags: O_RDWR | O_CREAT, fileSystem: fileSystem)
    }

    func size() throws -> Int64 {
        try Self.retrying("fstat", path: path) { try fileSystem.size(ref) }
    }

    /// Reads up to `count` bytes at `offset`; fewer only at end of file.
    func read(at offset: Int64, count: Int) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = try read(into: UnsafeMutableRawBufferPointer(buffer), at: offset)
        }
    }

    /// Fills `buffer` with the bytes at `offset`, returning how many it read: fewer
    /// than the buffer holds only at end of file. The buffer need not be initialized.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = try Self.retrying("read", path: path) {
                try fileSystem.pread(ref, UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), at: offset + Int64(done))
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Writes every byte of `bytes` at `offset`.
    func write(_ bytes: [UInt8], at offset: Int64) throws {
        var done = 0
        while done < bytes.count {
            let n = try bytes.withUnsafeBytes { raw in
                try Self.retrying("write", path: path) {
                    try fileSystem.pwrite(ref, UnsafeRawBufferPointer(rebasing: raw[done...]),
                                          at: offset + Int64(done))
                }
            }
            guard n > 0 else { throw RouteLogError.io("write", path: path, errno: EIO) }
            done += n
        }
    }

    /// Copies `length` bytes of `source` from `offset` (all it holds from there, when
    /// `length` is left out) to the start of this file, which then ends where the copy
    /// does; returns how many bytes that was. A range of zeros (a sparse file's hole, say)
    /// is left a hole here too, so that copying a large run of nothing does not fill the disk.
    @discardableResult
    func copy(from source: DurableFile, at offset: Int64 = 0, length: Int64 = .max) throws -> Int64 {
        var done: Int64 = 0
        while done < length {
            let chunk = try source.read(at: offset + done, count: Int(min(length - done, 1 << 20)))
            guard !chunk.isEmpty else { break }
            if !chunk.allSatisfy({ $0 == 0 }) { try write(chunk, at: done) }
            done += Int64(chunk.count)
        }
        try truncate(to: done)
        return done
    }

    func truncate(to length: Int64) throws {
        try Self.retrying("truncate", path: path) { try fileSystem.truncate(ref, to: length) }
    }

    /// Makes written data durable (fdatasync; F_FULLFSYNC on Darwin).
    func syncData() throws {
        try Self.retrying("fdatasync", path: path) { try fileSystem.syncData(ref) }
    }

    /// Orders written data before later writes on the drive (F_BARRIERFSYNC on Apple
    /// platforms; fdatasync elsewhere).
    func syncBarrier() throws {
        try Self.retrying("fdatasync", path: path) { try fileSystem.syncBarrier(ref) }
    }

    /// Makes data and metadata durable (fsync; F_FULLFSYNC on Darwin).
    func syncAll() throws {
        try Self.retrying("fsync", path: path) { try fileSystem.syncAll(ref) }
    }

    /// Runs one system call, again after EINTR, and turns other errors into RouteLogError.
    static func retrying<T>(_ operation: String, path: String, _ call: () throws -> T) throws -> T {
        while true {
            do {
                return try call()
            } catch let error as Errno {
                if error.code == EINTR { continue }
                throw RouteLogError.io(operation, path: path, errno: error.code)
            }
        }
    }
}

extension FileSystem {
    /// Directory-level calls with EINTR retried and errors made RouteLogError.
    func checked<T>(_ operation: String, _ path: String, _ call: () throws -> T) throws -> T {
        try DurableFile.retrying(operation, path: path, call)
    }
}
