import Foundation
import RouteLog
#if canImport(Glibc)
import Glibc
#endif

/// RouteLog's bytes for a route, for the baselines that store them (SQLite with a blob
/// per route) or write them bare (the fdatasync limit).
struct EncodedRoute {
    /// The whole RoutePut record frame RouteLog appends to its segment for this route.
    var frame: [UInt8]
    /// The point block inside it: RouteLog's column encoding, LZ4-compressed.
    var points: [UInt8]
    /// Splits and segment starts (the record's Layout), kept beside the points.
    var layout: [UInt8]

    init(_ route: Route) throws {
        self = try RouteLogBytes.shared.encode(route)
    }

    init(frame: [UInt8], points: [UInt8], layout: [UInt8]) {
        self.frame = frame
        self.points = points
        self.layout = layout
    }
}

/// Gets RouteLog's own encoding through its public API.
///
/// `RouteCodec`'s point-block encoder is internal to the library, so this saves the
/// route in a scratch buffered store and reads back the record frame it appended
/// (format-spec.md, "Record frame" and "Segment records"), then cuts the point block
/// out of it. The bytes are exactly RouteLog's; the cost includes a buffered write,
/// which is why the SQLite blob baseline's encoding is timed separately (see
/// ``SQLiteBlobEngine``). Swap for `RouteCodec.encodePoints` once it is public.
final class RouteLogBytes: @unchecked Sendable {
    /// One per process; the benchmark is single-threaded.
    static let shared = RouteLogBytes()

    private let directory: URL
    private var store: RouteStore?
    private var segmentName = ""
    private var segmentSize: Int64 = 0

    private var savesSinceReset = 0

    /// On a RAM file system when there is one: the scratch store's writes must not share
    /// the measured disk's journal, or the baseline's next fdatasync would flush them.
    private init() {
        let shm = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        let base = FileManager.default.isWritableFile(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
        directory = base.appendingPathComponent("routelog-bench-scratch-\(getpid())", isDirectory: true)
    }

    deinit {
        try? store?.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func encode(_ route: Route) throws -> EncodedRoute {
        if savesSinceReset >= 500 { discard() }
        savesSinceReset += 1
        if store == nil {
            try? FileManager.default.removeItem(at: directory)
            store = try RouteStore(at: directory, options: .init(durability: .buffered, compaction: .manual))
            (segmentName, segmentSize) = newestSegment()
        }
        try store!.save(route)
        let (name, size) = newestSegment()
        let start = name == segmentName ? segmentSize : 20
        (segmentName, segmentSize) = (name, size)
        let frame = try read(directory.appendingPathComponent(name), from: start, to: size)
        return try Self.split(frame: frame)
    }

    /// Removes the scratch store (between engines, so its files do not linger).
    func discard() {
        savesSinceReset = 0
        try? store?.close()
        store = nil
        try? FileManager.default.removeItem(at: directory)
    }

    private func newestSegment() -> (String, Int64) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasPrefix("seg-") && $0.hasSuffix(".rlseg") }.sorted()
        guard let name = names.last else { return ("", 0) }
        var info = stat()
        stat(directory.appendingPathComponent(name).path, &info)
        return (name, Int64(info.st_size))
    }

    private func read(_ url: URL, from start: Int64, to end: Int64) throws -> [UInt8] {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(start))
        let data = try handle.read(upToCount: Int(end - start)) ?? Data()
        return [UInt8](data)
    }

    /// Cuts a RoutePut frame into its layout and point block: frame header (16), id
    /// (8), RouteShape (60), Metadata (flags, shift, optional calories, distance, name,
    /// extension),
    /// Layout (splits, segment starts), then the point block to the end.
    static func split(frame: [UInt8]) throws -> EncodedRoute {
        var reader = Varint.Reader(frame)
        reader.offset = 16 + 8 + 60
        let flags = try reader.byte()
        reader.offset += 8
        if flags & 2 != 0 { reader.offset += 8 }
        if flags & 4 != 0 { reader.offset += 8 }
        if flags & 1 != 0 {
            let length = Int(try reader.byte()) | Int(try reader.byte()) << 8
            reader.offset += length
        }
        if flags & 8 != 0 { reader.offset += Int(try reader.next()) }  // the extension fields
        let layoutStart = reader.offset
        let splits = try reader.next()
        for _ in 0..<splits { _ = try reader.byte(); _ = try reader.next(); _ = try reader.next() }
        let starts = try reader.next()
        for _ in 0..<starts { _ = try reader.next() }
        guard reader.offset <= frame.count else { throw BenchError("RoutePut frame shorter than its layout") }
        return EncodedRoute(frame: frame, points: Array(frame[reader.offset...]),
                            layout: Array(frame[layoutStart..<reader.offset]))
    }
}

/// LEB128 varints.
enum Varint {
    struct Reader {
        let bytes: [UInt8]
        var offset = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func byte() throws -> UInt8 {
            guard offset < bytes.count else { throw BenchError("truncated varint data") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func next() throws -> UInt64 {
            var value: UInt64 = 0, shift: UInt64 = 0
            while true {
                let b = try byte()
                value |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return value }
                shift += 7
                guard shift < 64 else { throw BenchError("varint too long") }
            }
        }
    }
}
