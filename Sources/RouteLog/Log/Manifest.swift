#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Which segments are live, in replay order, and which index goes with them
/// (format-spec.md, "Manifest"). Replaced whole and atomically; never edited in place.
struct Manifest: Equatable, Sendable {
    var generation: UInt64
    var nextFileNumber: UInt32
    var nextRouteID: UInt64
    var indexFile: UInt32
    var segments: [UInt32]
    /// The store's settings, carried into every rewrite.
    var settings = StoreSettings()

    /// The largest manifest a reader accepts (and a writer writes).
    static let maximumSize = 1 << 20
    /// The largest generation and next file number a reader accepts (format-spec.md,
    /// "Manifest"): far past any a writer reaches, one a rewrite or a new file at a time,
    /// and far below where adding one would overflow.
    static let maxGeneration: UInt64 = 1 << 62
    static let maxNextFileNumber: UInt32 = 1 << 31

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 32 + 4 * segments.count)
        w.u64(generation)
        w.u32(nextFileNumber)
        // Past 2^62 only when a forged log holds id 2^62 (the largest a record may): the
        // writer then gives out no more ids, and readers accept no larger value.
        w.u64(min(nextRouteID, FormatConstants.maxRouteID))
        w.u32(indexFile)
        w.u32(UInt32(segments.count))
        for segment in segments { w.u32(segment) }
        settings.write(to: &w)
        return FileHeader(kind: .manifest, fileNumber: 0).encoded()
            + RecordFrame.encode(type: .manifestState, payload: w.bytes)
    }

    static func decode(_ bytes: [UInt8], path: String) throws -> Manifest {
        let fileHeader: FileHeader
        do {
            fileHeader = try FileHeader.decode(bytes, path: path, expecting: .manifest)
        } catch let error as RouteLogError where error.code == .corrupted {
            throw damaged(error.message, path: path, offset: error.offset ?? 0)
        }
        let start = FormatConstants.fileHeaderSize
        let payloadStart = start + FormatConstants.recordHeaderSize
        let header = bytes.withUnsafeBytes { RecordFrame.header($0, at: start) }
        guard let header, header.type == FormatConstants.RecordType.manifestState.rawValue else {
            throw damaged("its record's frame is not a ManifestState record's", path: path, offset: Int64(start))
        }
        guard payloadStart + header.length <= bytes.count else {
            throw damaged("its record runs \(payloadStart + header.length - bytes.count) bytes past the end of the file", path: path, offset: Int64(start))
        }
        guard Checksum.masked(bytes, (start + 8)..<(payloadStart + header.length)) == header.checksum,
              let payload = RecordFrame.unescaped(bytes[payloadStart..<(payloadStart + header.length)], version: fileHeader.version)
        else {
            throw damaged("its record, bytes \(start)..<\(payloadStart + header.length), fails its checksum", path: path, offset: Int64(start))
        }
        // The payload's bytes are the file's unless escaping took bytes out: then a
        // field is placed at the payload's start, the nearest offset that is certain.
        let exact = payload.count == header.length
        do {
            var r = ByteReader(payload)
            // A field that makes no sense is reported at its own first byte, not where
            // the reading stopped.
            func at(_ position: Int) -> Int { position - payload.startIndex }
            let generation = try r.u64(), nextFileNumber = try r.u32()
            let routeIDAt = at(r.position)
            var m = Manifest(generation: generation, nextFileNumber: nextFileNumber, nextRouteID: try r.u64(),
                             indexFile: try r.u32(), segments: [])
            let countAt = at(r.position)
            let count = Int(try r.u32())
            guard count >= 1, count * 4 <= r.remaining else {
                throw ByteReader.Malformed(reason: "segment count \(count) does not match the record", offset: countAt)
            }
            for _ in 0..<count { m.segments.append(try r.u32()) }
            m.settings = try StoreSettings(from: &r)
            guard Set(m.segments).count == count, !m.segments.contains(m.indexFile),
                  m.segments.allSatisfy({ $0 < m.nextFileNumber }), m.indexFile < m.nextFileNumber
            else { throw r.fail("file numbers repeat or exceed the next file number") }
            guard m.nextRouteID <= FormatConstants.maxRouteID else {
                throw ByteReader.Malformed(reason: "next route id \(m.nextRouteID) is beyond any a writer assigns", offset: routeIDAt)
            }
            // A writer adds one to each at every rewrite and file: values no writer
            // reaches, which left the next addition nowhere to go.
            guard generation <= Self.maxGeneration else {
                throw ByteReader.Malformed(reason: "generation \(generation) is beyond any a writer reaches", offset: 0)
            }
            guard nextFileNumber <= Self.maxNextFileNumber else {
                throw ByteReader.Malformed(reason: "next file number \(nextFileNumber) is beyond any a writer reaches", offset: 8)
            }
            return m
        } catch let error as ByteReader.Malformed {
            throw damaged("its record makes no sense: \(error.reason)", path: path,
                          offset: Int64(payloadStart + (exact ? error.offset : 0)))
        }
    }

    /// Manifest damage: what is wrong, the file and the offset, and the way back. The
    /// store cannot tell which segments are live, so it cannot open at all.
    static func damaged(_ what: String, path: String, offset: Int64) -> RouteLogError {
        let what = what.replacingOccurrences(of: "; ", with: ", ")  // one "; " only: before the advice
        return RouteLogError.corrupted("the store's MANIFEST is damaged: \(what), so the store cannot tell which segments are live; "
                                       + "restore the store from a backup, then verify it", path: path, offset: offset)
    }

    /// Reads `MANIFEST` from `directory`; nil when there is none.
    static func read(in directory: String, fileSystem: any FileSystem) throws -> Manifest? {
        let path = directory + "/" + FormatConstants.manifestName
        let file: DurableFile
        do {
            file = try DurableFile.open(path, flags: O_RDONLY, fileSystem: fileSystem)
        } catch let error as RouteLogError where error.errno == ENOENT {
            return nil
        }
        let size = try file.size()
        guard size <= Manifest.maximumSize else {
            throw damaged("it is \(size) bytes, larger than the \(Manifest.maximumSize) any manifest may be", path: path,
                          offset: Int64(Manifest.maximumSize))
        }
        return try decode(try file.read(at: 0, count: Int(size)), path: path)
    }
}
