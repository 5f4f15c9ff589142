import Foundation
import RouteLog
#if canImport(Glibc)
import Glibc
#endif

/// The physical limit: RouteLog's record frame for the route appended to one file with
/// write(2), then fdatasync(2) when durable. No index, no checksum, no encoding in the
/// timed part (the bytes are encoded before the clock starts). Nothing can be listed or
/// loaded from it.
final class AppendFileEngine: StorageEngine, PreEncodedSaves {
    private let file: URL
    private var fd: Int32 = -1
    private var durable = true
    /// Bytes for the next save, made before the clock starts (see ``EngineSession``).
    var pending: EncodedRoute?

    init(directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        file = directory.appendingPathComponent("routes.bin")
        try open()
    }

    var isQueryable: Bool { false }
    var diskBytes: Int64 { ProcessStats.diskBytes(at: file) }

    func prepare(durable: Bool) throws { self.durable = durable }

    func open() throws {
        fd = posixOpen(file.path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard fd >= 0 else { throw BenchError("open \(file.path): errno \(errno)") }
    }

    func close() throws {
        if fd >= 0 { posixClose(fd) }
        fd = -1
    }

    func save(_ route: Route) throws {
        let bytes = try pending ?? EncodedRoute(route)
        pending = nil
        try bytes.frame.withUnsafeBytes { try FileIO.writeAll(fd, $0) }
        if durable { try FileIO.dataSync(fd) }
    }

    func fill(_ routes: [FillRoute]) throws {
        var buffer: [UInt8] = []
        for fill in routes { buffer += fill.encoded.frame }
        try buffer.withUnsafeBytes { try FileIO.writeAll(fd, $0) }
    }

    func listSummaries() throws -> Int { 0 }
    func weeklyTotals() throws -> Int { 0 }
    func loadRoute(ordinal: Int) throws -> Int { 0 }
}

/// write(2) until every byte is written, fsync and fdatasync, EINTR retried.
enum FileIO {
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < buffer.count {
            let n = posixWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw BenchError("write: errno \(errno)")
            }
            offset += n
        }
    }

    static func dataSync(_ fd: Int32) throws {
        while fdatasync(fd) != 0 {
            if errno != EINTR { throw BenchError("fdatasync: errno \(errno)") }
        }
    }

    static func sync(_ fd: Int32) throws {
        while fsync(fd) != 0 {
            if errno != EINTR { throw BenchError("fsync: errno \(errno)") }
        }
    }

    static func syncDirectory(_ url: URL) throws {
        let fd = posixOpen(url.path, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { throw BenchError("open directory \(url.path): errno \(errno)") }
        defer { posixClose(fd) }
        try sync(fd)
    }
}
