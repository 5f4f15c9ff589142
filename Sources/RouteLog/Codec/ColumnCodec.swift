import Foundation

/// Point columns to the version 1 column block and back (format-spec.md, "PointBlock",
/// "Version 1"): one tagged column per field, each a run of zigzag varints of the
/// values' 0th, 1st or 2nd differences, whichever is shortest. Kept so that routes
/// written by format version 1 stay readable.
enum ColumnCodec {
    typealias Tag = FormatConstants.ColumnTag

    static func encode(_ points: [TrackPoint]) -> [UInt8] {
        // Valid points cannot fail; callers validated them.
        encode(try! PointColumns(points, validating: false))
    }

    static func encode(_ columns: PointColumns) -> [UInt8] {
        var out = ByteWriter(capacity: columns.count * 12 + 64)
        var all: [(Tag, Int64Column, [UInt8]?)] = [
            (.latitude, columns.latitudes, nil), (.longitude, columns.longitudes, nil), (.time, columns.times, nil),
        ]
        for column in columns.optional { all.append((column.tag, column.values, column.bitmap)) }
        out.varint(columns.count)
        out.varint(all.count)
        for (tag, column, bitmap) in all {
            let values = column.buffer
            let (order, size) = cheapestOrder(values)
            out.u8(tag.rawValue)
            out.u8(UInt8(order) | (bitmap == nil ? 0 : FormatConstants.columnHasBitmap))
            out.varint(size + (bitmap?.count ?? 0))
            if let bitmap { out.append(contentsOf: bitmap) }
            writeDifferences(values, order: order, size: size, to: &out)
        }
        return out.bytes
    }

    static func decode(_ block: [UInt8]) throws -> [TrackPoint] {
        var reader = ByteReader(block)
        // Every point costs at least one byte in each required column, which bounds the
        // count by the block's size before anything is allocated for it.
        let count = try reader.count(max: min(RouteValidation.maxPoints, block.count))
        guard count >= 1 else { throw reader.fail("a point block holds no points") }
        let columnCount = try reader.count(max: 255)
        var required: [Tag: [Int64]] = [:]
        var optional: [(PointField, [Int64], [UInt8]?)] = []
        var seen = Set<UInt8>()
        for _ in 0..<columnCount {
            let rawTag = try reader.u8()
            let encoding = try reader.u8()
            let length = try reader.count(max: reader.remaining)
            var column = ByteReader(block, from: reader.position, to: reader.position + length)
            _ = try reader.bytes(length)
            guard seen.insert(rawTag).inserted else { throw reader.fail("column \(rawTag) appears twice") }
            guard let tag = Tag(rawValue: rawTag) else { continue }  // a newer column: skip it
            let order = Int(encoding & FormatConstants.columnOrderMask)
            guard order <= 2, encoding & ~(FormatConstants.columnOrderMask | FormatConstants.columnHasBitmap) == 0
            else { throw column.fail("column \(rawTag) has unknown encoding \(encoding)") }
            var bitmap: [UInt8]?
            var present = count
            if encoding & FormatConstants.columnHasBitmap != 0 {
                let bits = Array(try column.bytes((count + 7) / 8))
                present = bits.reduce(0) { $0 + $1.nonzeroBitCount }
                guard count % 8 == 0 || bits.last! >> UInt8(count % 8) == 0 else {
                    throw column.fail("column \(rawTag) marks points past the end")
                }
                bitmap = bits
            }
            let values = try readValues(&column, count: present, order: order)
            guard column.isAtEnd else { throw column.fail("column \(rawTag) has trailing bytes") }
            switch tag {
            case .latitude, .longitude, .time:
                guard bitmap == nil else { throw column.fail("required column \(rawTag) has a bitmap") }
                required[tag] = values
            default:
                guard let field = PointField.optional.first(where: { $0.tag == tag }) else { continue }
                // A value a writer cannot have stored is damage, as a coordinate is.
                if let limits = Quantization.storedLimits(tag), let bad = values.firstIndex(where: { !limits.contains($0) }) {
                    throw column.fail(values.withUnsafeBufferPointer {
                        Quantization.outsideLimits(tag, $0.baseAddress!, bad, presence: bitmap, limits)
                    })
                }
                optional.append((field, values, bitmap))
            }
        }
        guard let lats = required[.latitude], let lons = required[.longitude], let times = required[.time]
        else { throw reader.fail("a required column (latitude, longitude or time) is missing") }
        guard reader.isAtEnd else { throw reader.fail("bytes after the last column") }
        var points = [TrackPoint]()
        points.reserveCapacity(count)
        for i in 0..<count {
            let lat = Quantization.degrees(lats[i]), lon = Quantization.degrees(lons[i])
            guard (-90.0...90.0).contains(lat), (-180.0...180.0).contains(lon) else {
                throw reader.fail("point \(i) has a coordinate out of range")
            }
            // A writer stores only 1970...2200; anything else would overflow the
            // millisecond arithmetic of time shifts and durations.
            guard (0...FormatConstants.latestTimestampMs).contains(times[i]) else {
                throw reader.fail("point \(i) has a time outside 1970...2200")
            }
            points.append(TrackPoint(latitude: lat, longitude: lon,
                                     timestamp: Quantization.date(milliseconds: times[i])))
        }
        for (field, values, bitmap) in optional {
            var next = 0
            for i in 0..<count where bitmap.map({ $0[i >> 3] & (1 << UInt8(i & 7)) != 0 }) ?? true {
                field.set(&points[i], field.value(values[next]))
                next += 1
            }
        }
        return points
    }

    private static func readValues(_ reader: inout ByteReader, count: Int, order: Int) throws -> [Int64] {
        guard count <= reader.remaining else { throw reader.fail("column claims \(count) values in \(reader.remaining) bytes") }
        var values = [Int64]()
        values.reserveCapacity(count)
        var previous: Int64 = 0, previousDelta: Int64 = 0
        for _ in 0..<count {
            let d = ByteReader.unzigzag(try reader.varint())
            let value: Int64
            switch order {
            case 0: value = d
            case 1: value = previous &+ d
            default:
                let delta = previousDelta &+ d
                value = previous &+ delta
                previousDelta = delta
            }
            previous = value
            values.append(value)
        }
        return values
    }

    private static func writeDifferences(_ values: UnsafeBufferPointer<Int64>, order: Int, size: Int, to out: inout ByteWriter) {
        out.append(count: size) { p in
            var at = 0
            var previous: Int64 = 0, previousDelta: Int64 = 0
            for value in values {
                let delta = value &- previous
                var v = ByteWriter.zigzag(order == 0 ? value : (order == 1 ? delta : delta &- previousDelta))
                while v >= 0x80 {
                    p[at] = UInt8(truncatingIfNeeded: v) | 0x80
                    v >>= 7
                    at += 1
                }
                p[at] = UInt8(v)
                at += 1
                previous = value
                previousDelta = delta
            }
            return at
        }
    }

    /// The delta order whose varints are shortest, and their total size.
    private static func cheapestOrder(_ values: UnsafeBufferPointer<Int64>) -> (order: Int, size: Int) {
        var s0 = 0, s1 = 0, s2 = 0
        var previous: Int64 = 0, previousDelta: Int64 = 0
        for value in values {
            let delta = value &- previous
            s0 += ByteWriter.varintSize(ByteWriter.zigzag(value))
            s1 += ByteWriter.varintSize(ByteWriter.zigzag(delta))
            s2 += ByteWriter.varintSize(ByteWriter.zigzag(delta &- previousDelta))
            previous = value
            previousDelta = delta
        }
        if s0 <= s1 && s0 <= s2 { return (0, s0) }
        return s1 <= s2 ? (1, s1) : (2, s2)
    }
}
