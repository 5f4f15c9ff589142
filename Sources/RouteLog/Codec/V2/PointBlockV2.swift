import CRouteLogSystem

/// A version 2 PointBlock (format-spec.md, "PointBlock", "Version 2"): method byte 2,
/// the point count, then one entropy-coded column per field.
enum PointBlockV2 {
    typealias V2 = FormatConstants.ColumnV2

    /// The block of columns gathered (and validated) by ``PointColumns``.
    static func encode(_ columns: PointColumns) -> [UInt8] {
        var out = ByteWriter(capacity: columns.count * 6 + 64)
        out.u8(FormatConstants.Compression.columnsV2.rawValue)
        out.varint(columns.count)
        out.varint(3 + columns.optional.count)
        let encoder = ColumnEncoderV2(capacity: columns.count)
        defer { encoder.deallocate() }
        for (tag, column) in [(FormatConstants.ColumnTag.latitude, columns.latitudes), (.longitude, columns.longitudes), (.time, columns.times)] {
            encoder.encode(tag: tag, values: column.buffer, presence: nil, to: &out)
        }
        for column in columns.optional {
            let presence = column.bitmap.map { ColumnPresence(bitmap: $0, pointCount: columns.count) }
            encoder.encode(tag: column.tag, values: column.values.buffer, presence: presence, to: &out)
        }
        return out.bytes
    }

    /// The columns of a version 2 block, every known one decoded and checked.
    struct Columns {
        var count: Int
        var latitudes: Int64Column, longitudes: Int64Column, times: Int64Column
        var optional: [(tag: FormatConstants.ColumnTag, column: ColumnDecoderV2.Column)]
    }

    /// The coordinates alone of a version 2 block (what a pass-through test needs): the
    /// other columns are skipped, not decoded.
    /// - Throws: ``ByteReader/Malformed`` for bytes that are not a valid block.
    static func decodeCoordinates(_ block: ArraySlice<UInt8>) throws -> (latitudes: Int64Column, longitudes: Int64Column) {
        let columns = try decodeColumns(block, coordinatesOnly: true)
        return (columns.latitudes, columns.longitudes)
    }

    /// Decodes the columns of `block` (method byte included); with `coordinatesOnly`,
    /// latitudes and longitudes only (`times` is then an empty column).
    /// - Throws: ``ByteReader/Malformed`` for bytes that are not a valid block.
    /// `loops` are the C loops the streams are read with: the processor's best unless a
    /// test asks for others. Without `checkingStoredLimits` (codec tests that put any
    /// integer in a column) optional values are not held to the quantization limits.
    static func decodeColumns(_ block: ArraySlice<UInt8>, coordinatesOnly: Bool = false,
                              loops: DecodeLoops = .processor, checkingStoredLimits: Bool = true) throws -> Columns {
        guard block.first == FormatConstants.Compression.columnsV2.rawValue else {
            throw ByteReader.Malformed(reason: "not a version 2 point block", offset: 0)
        }
        let length = block.count - 1
        // A copy with zero padding, so that reading a stream's last bits may look past it.
        let copy = ScratchMemory.take(UInt8.self, count: length + BlockCursor.padding)
        defer { ScratchMemory.give(copy, count: length + BlockCursor.padding) }
        block.withUnsafeBufferPointer { copy.initialize(from: $0.baseAddress! + 1, count: length) }
        (copy + length).initialize(repeating: 0, count: BlockCursor.padding)
        let tables = ScratchMemory.take(UInt64.self, count: 1 << V2.maxCodeLength)
        defer { ScratchMemory.give(tables, count: 1 << V2.maxCodeLength) }
        let decoder = ColumnDecoderV2(tableStorage: tables, loops: loops)

        var cursor = BlockCursor(base: copy, end: length)
        let n = try cursor.count(max: V2.maxPoints, "point count")
        guard n >= 1 else { throw cursor.fail("a point block holds no points") }
        let columnCount = try cursor.count(max: 255, "column count")
        // The required columns by hand and the tags seen as bits: a dictionary and a set
        // hashed every tag of every load.
        var lats: Int64Column?, lons: Int64Column?, times: Int64Column?
        var optional: [(tag: FormatConstants.ColumnTag, column: ColumnDecoderV2.Column)] = []
        var seen = SeenTags()
        for _ in 0..<columnCount {
            let rawTag = try cursor.u8()
            let encoding = try cursor.u8()
            let bodyLength = try cursor.count(max: cursor.remaining, "column length")
            let end = cursor.position + bodyLength
            guard seen.insert(rawTag) else { throw cursor.fail("column \(rawTag) appears twice") }
            guard let tag = FormatConstants.ColumnTag(rawValue: rawTag),
                  !coordinatesOnly || tag == .latitude || tag == .longitude else {
                cursor.position = end  // a newer column, or one not asked for: skip it
                continue
            }
            var body = BlockCursor(base: copy, end: end, position: cursor.position)
            let column = try decoder.decode(&body, end: end, encoding: encoding, pointCount: n)
            cursor.position = end
            switch tag {
            case .latitude, .longitude, .time:
                guard column.presence == nil else { throw cursor.fail("required column \(rawTag) has a presence") }
                switch tag {
                case .latitude: lats = column.values
                case .longitude: lons = column.values
                default: times = column.values
                }
            default:
                optional.append((tag, column))
            }
        }
        guard let lats, let lons, let times = coordinatesOnly ? Int64Column(capacity: 0) : times else {
            throw cursor.fail("a required column (latitude, longitude or time) is missing")
        }
        guard cursor.remaining == 0 else { throw cursor.fail("bytes after the last column") }
        try checkRanges(lats, lons, coordinatesOnly ? nil : times, cursor)
        if checkingStoredLimits { try checkStoredLimits(optional, cursor) }
        optional.sort { $0.tag.rawValue < $1.tag.rawValue }
        return Columns(count: n, latitudes: lats, longitudes: lons, times: times, optional: optional)
    }

    /// The column tags a block has listed so far, one bit each.
    private struct SeenTags {
        private var bits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

        /// Marks `tag`; false when it was marked already.
        mutating func insert(_ tag: UInt8) -> Bool {
            let bit = UInt64(1) << UInt64(tag & 63)
            let was: UInt64
            switch tag >> 6 {
            case 0: was = bits.0; bits.0 |= bit
            case 1: was = bits.1; bits.1 |= bit
            case 2: was = bits.2; bits.2 |= bit
            default: was = bits.3; bits.3 |= bit
            }
            return was & bit == 0
        }
    }

    /// Optional values a writer cannot have stored (format-spec.md, "Quantization": an
    /// altitude past ±10,000 km, a negative heart rate) are damage, as coordinates are:
    /// a forged block's are not handed on to code that trusts the limits (an export's
    /// 32-bit columns, a figure printed whole). A newer column, which this reader skips,
    /// has no limits here.
    private static func checkStoredLimits(_ optional: [(tag: FormatConstants.ColumnTag, column: ColumnDecoderV2.Column)],
                                          _ cursor: BlockCursor) throws {
        for (tag, column) in optional {
            guard let limits = Quantization.storedLimits(tag) else { continue }
            let values = column.values
            let i = routelog_first_value_outside(values.base, values.count, limits.lowerBound, limits.upperBound)
            guard i < values.count else { continue }
            throw cursor.fail(Quantization.outsideLimits(tag, values.base, i, presence: column.presence, limits))
        }
    }

    /// Coordinates and times a writer cannot have stored are damage (as in version 1).
    /// Times run 1970...2200: anything else would overflow the millisecond arithmetic of
    /// time shifts. Without times (a coordinates-only decode) no time is checked.
    static let storedRanges = routelog_point_ranges(latitude: 900_000_000, longitude: 1_800_000_000,
                                                    latest_time: FormatConstants.latestTimestampMs)

    private static func checkRanges(_ lats: Int64Column, _ lons: Int64Column, _ times: Int64Column?, _ cursor: BlockCursor) throws {
        var ranges = storedRanges
        let i = routelog_first_point_out_of_range(lats.base, lons.base, times?.base, lats.count, &ranges)
        guard i < lats.count else { return }
        let lat = lats.base[i], lon = lons.base[i]
        guard lat.magnitude <= ranges.latitude, lon.magnitude <= ranges.longitude else {
            throw cursor.fail("point \(i) has a coordinate out of range")
        }
        throw cursor.fail("point \(i) has a time outside 1970...2200")
    }
}
