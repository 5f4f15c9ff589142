import Foundation
import RouteLog

/// RouteLog's encoding of a route's points, for the baselines that store those bytes
/// (SQLite with a blob per route) or write them bare (the fdatasync limit).
struct EncodedRoute {
    /// The point block: RouteLog's column encoding.
    var points: [UInt8]
    /// Splits and segment starts (varints), which the blob layout keeps beside the points.
    var layout: [UInt8]

    init(_ route: Route) throws {
        points = try RouteLogBytes.encodePoints(route)
        layout = RouteLogBytes.encodeLayout(route)
    }

    var count: Int { points.count + layout.count }
}

/// The bridge to RouteLog's codec. Only this file knows how the library exposes it.
enum RouteLogBytes {
    static func encodePoints(_ route: Route) throws -> [UInt8] {
        try StandInCodec.encode(route.points)
    }

    static func decode(points: [UInt8], layout: [UInt8]) throws -> Route {
        var route = Route(points: try StandInCodec.decode(points))
        try decodeLayout(layout, into: &route)
        return route
    }

    /// Splits and segment starts as varints: count, then (unit, point index, elapsed ms)
    /// per split; count, then each segment start.
    static func encodeLayout(_ route: Route) -> [UInt8] {
        var out: [UInt8] = []
        Varint.append(UInt64(route.splits.count), to: &out)
        for split in route.splits {
            out.append(split.unit.rawValue)
            Varint.append(UInt64(split.pointIndex), to: &out)
            Varint.append(UInt64(max(0, (split.elapsedTime * 1_000).rounded())), to: &out)
        }
        Varint.append(UInt64(route.segmentStarts.count), to: &out)
        for start in route.segmentStarts { Varint.append(UInt64(start), to: &out) }
        return out
    }

    static func decodeLayout(_ bytes: [UInt8], into route: inout Route) throws {
        var reader = Varint.Reader(bytes)
        let splitCount = try reader.next()
        for _ in 0..<splitCount {
            guard let unit = Split.Unit(rawValue: try reader.byte()) else { throw BenchError("bad split unit") }
            route.splits.append(Split(unit: unit, pointIndex: Int(try reader.next()),
                                      elapsedTime: Double(try reader.next()) / 1_000))
        }
        let startCount = try reader.next()
        for _ in 0..<startCount { route.segmentStarts.append(Int(try reader.next())) }
    }
}

/// LEB128 varints.
enum Varint {
    static func append(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

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

/// Stands in for RouteLog's codec until the library exposes one: quantized columns,
/// delta-encoded, zigzag varints, no LZ4. Removed once `RouteCodec` is public.
enum StandInCodec {
    private static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }
    private static func unzigzag(_ v: UInt64) -> Int64 { Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1) }

    static func encode(_ points: [TrackPoint]) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(points.count * 12)
        Varint.append(UInt64(points.count), to: &out)
        let columns: [(TrackPoint) -> Double?] = [
            { $0.latitude * 1e7 }, { $0.longitude * 1e7 }, { $0.timestamp.timeIntervalSince1970 * 1e3 },
            { $0.altitude.map { $0 * 100 } }, { $0.horizontalAccuracy.map { $0 * 100 } },
            { $0.verticalAccuracy.map { $0 * 100 } }, { $0.speed.map { $0 * 100 } }, { $0.course.map { $0 * 100 } },
        ]
        for column in columns {
            var previous: Int64 = 0
            for p in points {
                guard let value = column(p) else { out.append(0); continue }
                let q = Int64(value.rounded())
                Varint.append(zigzag(q &- previous) &+ 1, to: &out)
                previous = q
            }
        }
        return out
    }

    static func decode(_ bytes: [UInt8]) throws -> [TrackPoint] {
        var reader = Varint.Reader(bytes)
        let count = Int(try reader.next())
        guard count <= bytes.count else { throw BenchError("bad point count") }
        var columns = [[Double?]](repeating: [], count: 8)
        for c in 0..<8 {
            var previous: Int64 = 0
            columns[c].reserveCapacity(count)
            for _ in 0..<count {
                let raw = try reader.next()
                if raw == 0 { columns[c].append(nil); continue }
                previous = previous &+ unzigzag(raw - 1)
                columns[c].append(Double(previous))
            }
        }
        return (0..<count).map { i in
            TrackPoint(latitude: columns[0][i]! / 1e7, longitude: columns[1][i]! / 1e7,
                       timestamp: Date(timeIntervalSince1970: columns[2][i]! / 1e3),
                       altitude: columns[3][i].map { $0 / 100 }, horizontalAccuracy: columns[4][i].map { $0 / 100 },
                       verticalAccuracy: columns[5][i].map { $0 / 100 }, speed: columns[6][i].map { $0 / 100 },
                       course: columns[7][i].map { $0 / 100 })
        }
    }
}
