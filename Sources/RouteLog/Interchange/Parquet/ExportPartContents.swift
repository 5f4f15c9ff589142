import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which routes one part of a Parquet export holds (its `routes.parquet` and
/// `points.parquet`), written beside them as `_routelog_export.json` (format-spec.md,
/// "Export: GeoParquet"): a later export into the same place that cannot read a route
/// keeps the earlier tables only if this says they hold it, or if it is missing.
///
/// ```json
/// {"routeIDs":[[1,40],[42,42]],"digest":"9c1e0f3a5b7d2e48"}
/// ```
/// Ascending, disjoint ranges of route ids, first and last included, and a digest of
/// the routes' ids and uuids (``digest(_:)``), which tells the same routes of the same
/// store from another store's routes of the same ids. The leading `_` keeps dataset
/// readers (pyarrow, Spark) from taking it for data.
struct ExportPartContents: Equatable {
    static let fileName = "_routelog_export.json"

    /// The routes, each with its uuid (the tables' `route_uuid`).
    var routes: [RouteID: UUID]

    /// FNV-1a (64 bits) over each route in ascending id order: its id as 8 bytes, little
    /// endian, then its uuid's 16 bytes.
    static func digest(_ routes: [(RouteID, UUID)]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func add(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        for (id, uuid) in routes.sorted(by: { $0.0 < $1.0 }) {
            for shift in stride(from: 0, to: 64, by: 8) { add(UInt8(truncatingIfNeeded: id.rawValue >> UInt64(shift))) }
            withUnsafeBytes(of: uuid.uuid) { for byte in $0 { add(byte) } }
        }
        return hash
    }

    /// The contents recorded in `folder`, or nil when there is no such file or it is not
    /// one this writes (then nothing is known of the tables there). Kept as ranges, so
    /// a forged file of huge ranges costs no more memory than its own bytes.
    static func read(in folder: ExportFolder) -> RouteRanges? {
        read(folder, fileName)
    }

    /// The list in the file `name` of `folder` (a kept one, say), or nil as
    /// ``read(in:)-(ExportFolder)`` says: a regular file only, never through a link.
    static func read(_ folder: ExportFolder, _ name: String) -> RouteRanges? {
        guard let bytes = folder.contents(of: name, atMost: largestFile) else { return nil }
        return bytes.withUnsafeBufferPointer { buffer in
            var parser = ListParser(bytes: buffer)
            return parser.parse()
        }
    }

    /// The contents recorded in the directory at `folder` (a link at its end followed),
    /// as ``read(in:)-(ExportFolder)`` reads them: for a look from outside an export.
    static func read(in folder: URL) -> RouteRanges? {
        guard let opened = try? ExportFolder(opening: folder) else { return nil }
        return read(in: opened)
    }

    /// Reads exactly the shape this writes, `{"routeIDs":[[first,last],...]}` with
    /// spaces allowed between tokens, in one pass with nothing kept but the ranges (a
    /// general JSON parser built a tree many times the file's size for forged input).
    private struct ListParser {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        mutating func parse() -> RouteRanges? {
            var ranges: [ClosedRange<UInt64>] = []
            guard take(0x7B), takeKey("routeIDs"), take(0x3A), take(0x5B) else { return nil }
            if !take(0x5D) {
                repeat {
                    guard take(0x5B), let first = number(), take(0x2C), let last = number(), take(0x5D), first <= last,
                          ranges.last.map({ $0.upperBound < first }) ?? true else { return nil }
                    ranges.append(first...last)
                } while take(0x2C)
                guard take(0x5D) else { return nil }
            }
            // The digest, which lists written before it was added lack.
            var digest: UInt64?
            if take(0x2C) {
                guard takeKey("digest"), take(0x3A), take(0x22), let value = hex(), take(0x22) else { return nil }
                digest = value
            }
            guard take(0x7D) else { return nil }
            skipSpaces()
            return at == bytes.count ? RouteRanges(ranges: ranges, digest: digest) : nil
        }

        /// Exactly 16 lowercase hexadecimal digits.
        private mutating func hex() -> UInt64? {
            guard bytes.count - at >= 16 else { return nil }
            var value: UInt64 = 0
            for _ in 0..<16 {
                let c = bytes[at]
                let digit: UInt8
                switch c {
                case 0x30...0x39: digit = c - 0x30
                case 0x61...0x66: digit = c - 0x61 + 10
                default: return nil
                }
                value = value << 4 | UInt64(digit)
                at += 1
            }
            return value
        }

        private mutating func skipSpaces() {
            while at < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[at]) { at += 1 }
        }

        private mutating func take(_ character: UInt8) -> Bool {
            skipSpaces()
            guard at < bytes.count, bytes[at] == character else { return false }
            at += 1
            return true
        }

        private mutating func takeKey(_ name: String) -> Bool {
            skipSpaces()
            let key = Array("\"\(name)\"".utf8)
            guard bytes.count - at >= key.count, zip(key, bytes[at..<(at + key.count)]).allSatisfy({ $0 == $1 }) else { return false }
            at += key.count
            return true
        }

        /// A whole number from 0 to UInt64.max, no sign, fraction, exponent or leading zero.
        private mutating func number() -> UInt64? {
            skipSpaces()
            let start = at
            var value: UInt64 = 0
            while at < bytes.count, (0x30...0x39).contains(bytes[at]) {
                let (times, overflowA) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflowB) = times.addingReportingOverflow(UInt64(bytes[at] - 0x30))
                guard !overflowA, !overflowB else { return nil }
                value = sum
                at += 1
            }
            guard at > start, at - start == 1 || bytes[start] != 0x30 else { return nil }
            return value
        }
    }

    /// The JSON bytes: ranges of consecutive ids, and the digest.
    var json: Data {
        var ranges: [[UInt64]] = []
        for id in routes.keys.map(\.rawValue).sorted() {
            if let last = ranges.last?.last, last &+ 1 == id {
                ranges[ranges.count - 1][1] = id
            } else {
                ranges.append([id, id])
            }
        }
        let body = ranges.map { "[\($0[0]),\($0[1])]" }.joined(separator: ",")
        let hex = String(Self.digest(routes.map { ($0.key, $0.value) }), radix: 16)
        return Data("{\"routeIDs\":[\(body)],\"digest\":\"\(String(repeating: "0", count: 16 - hex.count) + hex)\"}\n".utf8)
    }

    /// Writes the file into `folder` under a temporary name, then renames it in place.
    /// - Throws: ``RouteLogError`` `.io` when it cannot be written.
    func write(into folder: ExportFolder) throws {
        do {
            try folder.replace(Self.fileName, with: Array(json))
        } catch let error as Errno {
            throw RouteLogError(.io, "cannot write the export's list of routes: \(String(cString: strerror(error.code)))",
                                path: folder.path(Self.fileName))
        }
    }

    /// Removes the file from `folder`, before its tables change: a list that does not
    /// match the tables must never be left.
    /// - Throws: ``RouteLogError`` `.io` when it exists and cannot be removed.
    static func remove(in folder: ExportFolder) throws {
        do {
            try folder.unlink(fileName)
        } catch let error as Errno where error.code != ENOENT {
            throw RouteLogError.io("removing the export's list of routes", path: folder.path(fileName), errno: error.code)
        } catch is Errno {}
    }

    /// Larger than the list of any store this is for (a range is at most 43 bytes): a
    /// larger file means unknown, and its tables are kept.
    private static let largestFile = 16 << 20
}

/// Ascending, disjoint ranges of route ids, as ``ExportPartContents`` reads them, with
/// the digest of their routes (nil in a list written before it was added).
struct RouteRanges: Equatable {
    var ranges: [ClosedRange<UInt64>]
    var digest: UInt64? = nil

    /// Whether these are exactly routes of `exported` (each id there, with the uuid the
    /// digest was made from): the same routes of the same store, written again. Without
    /// a digest, never.
    func areWritten(in exported: [RouteID: UUID]) -> Bool {
        guard let digest else { return false }
        var routes: [(RouteID, UUID)] = []
        for range in ranges {
            guard range.upperBound - range.lowerBound < UInt64(exported.count) else { return false }
            for raw in range {
                guard let uuid = exported[RouteID(raw)] else { return false }
                routes.append((RouteID(raw), uuid))
            }
        }
        return ExportPartContents.digest(routes) == digest
    }

    /// Whether any of `ids` is in a range (a binary search each).
    func containsAny(of ids: Set<RouteID>) -> Bool {
        ids.contains { id in
            var low = 0, high = ranges.count
            while low < high {
                let middle = (low + high) / 2
                if ranges[middle].upperBound < id.rawValue { low = middle + 1 } else { high = middle }
            }
            return low < ranges.count && ranges[low].contains(id.rawValue)
        }
    }

    /// Every id (for tests; a forged list may name billions).
    func ids(atMost limit: Int) -> Set<RouteID>? {
        var all = Set<RouteID>()
        for range in ranges {
            guard all.count + Int(clamping: range.upperBound - range.lowerBound) < limit else { return nil }
            for id in range { all.insert(RouteID(id)) }
        }
        return all
    }
}
