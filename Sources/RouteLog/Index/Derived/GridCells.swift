import CRouteLogSystem

/// The coarse grid of a pass-through query (format-spec.md, "Derived fields": cells): a
/// route keeps the ids of the cells its points fall in, so a query tests a few integers
/// per route and decodes points only for routes at the edge of the area.
struct GridCells: Equatable, Sendable {
    /// The grid level: 2^level rows, 2^(level+1) columns.
    var level: UInt8
    /// Cell ids, ascending and distinct.
    var ids: [UInt32]

    static let preferredLevel: UInt8 = 13
    static let coarsestLevel: UInt8 = 8
    static let finestLevel: UInt8 = 16
    static let maxCells = 256

    /// The row of a latitude in stored units (1e-7 degree) at `level` (at most 16).
    /// Wrapping arithmetic: a stored latitude is within ±9e8, so nothing overflows, and
    /// a save computes this for every point (the checked operations branch on each).
    @inline(__always)
    static func row(_ lat: Int64, level: UInt8) -> UInt32 {
        let rows = Int64(1) &<< Int64(level)
        let r = (lat &+ 900_000_000) &* rows / 1_800_000_000
        return UInt32(truncatingIfNeeded: max(0, min(rows &- 1, r)))
    }

    /// The column of a longitude in stored units at `level` (within ±1.8e9, as above).
    @inline(__always)
    static func column(_ lon: Int64, level: UInt8) -> UInt32 {
        let columns = Int64(1) &<< Int64(level &+ 1)
        let c = (lon &+ 1_800_000_000) &* columns / 3_600_000_000
        return UInt32(truncatingIfNeeded: max(0, min(columns &- 1, c)))
    }

    static func id(row: UInt32, column: UInt32, level: UInt8) -> UInt32 { row << UInt32(level + 1) | column }

    /// The stored latitudes whose ``row(_:level:)`` is `row`: those from the first whose
    /// (lat + 9e8) × rows reaches row × 1.8e9 up to the next row's first (the outer rows
    /// reach to the ends of Int64, as the clamping does).
    static func latitudes(ofRow row: UInt32, level: UInt8) -> Range<Int64> {
        let rows = Int64(1) << Int64(level)
        return firstOf(Int64(row), rows, span: 1_800_000_000, offset: 900_000_000)
            ..< firstOf(Int64(row) + 1, rows, span: 1_800_000_000, offset: 900_000_000)
    }

    /// The stored longitudes whose ``column(_:level:)`` is `column` (as above).
    static func longitudes(ofColumn column: UInt32, level: UInt8) -> Range<Int64> {
        let columns = Int64(1) << Int64(level + 1)
        return firstOf(Int64(column), columns, span: 3_600_000_000, offset: 1_800_000_000)
            ..< firstOf(Int64(column) + 1, columns, span: 3_600_000_000, offset: 1_800_000_000)
    }

    /// The smallest v with (v + offset) × parts / span ≥ part: v + offset is
    /// ⌈part × span / parts⌉. Int64.min for the first part, Int64.max past the last.
    private static func firstOf(_ part: Int64, _ parts: Int64, span: Int64, offset: Int64) -> Int64 {
        if part <= 0 { return .min }
        if part >= parts { return .max }
        return (part * span + parts - 1) / parts - offset
    }

    /// The cells of stored coordinates, at the finest level from 13 down to 8 that
    /// needs at most 256 cells; nil when even level 8 needs more. The coordinates must
    /// be within the stored ranges (±9e8, ±1.8e9), as a validated or checked column's
    /// are: far beyond them ``row(_:level:)``'s wrapping product means nothing.
    init?(latitudes: UnsafeBufferPointer<Int64>, longitudes: UnsafeBufferPointer<Int64>) {
        let n = min(latitudes.count, longitudes.count)
        let lat = latitudes.baseAddress ?? UnsafePointer(bitPattern: 8)!, lon = longitudes.baseAddress ?? lat
        var level = Self.preferredLevel
        while true {
            var set = Set<UInt32>()
            // Shaped for speed: a track stays in one cell for many points, so the points
            // inside the last one's cell are skipped (routelog_first_outside_cell, eight at a
            // time where the processor can); only a change of cell computes a row and a
            // column (two divisions) and is hashed.
            var rows: Range<Int64> = 0..<0, columns: Range<Int64> = 0..<0
            var i = 0
            while true {
                i = routelog_first_outside_cell(lat, lon, i, n, rows.lowerBound, rows.upperBound,
                                                columns.lowerBound, columns.upperBound)
                guard i < n else { break }
                let row = Self.row(lat[i], level: level), column = Self.column(lon[i], level: level)
                i += 1
                rows = Self.latitudes(ofRow: row, level: level)
                columns = Self.longitudes(ofColumn: column, level: level)
                set.insert(Self.id(row: row, column: column, level: level))
                if set.count > Self.maxCells { break }
            }
            if set.count <= Self.maxCells {
                self.init(level: level, ids: set.sorted())
                return
            }
            guard level > Self.coarsestLevel else { return nil }
            level -= 1
        }
    }

    init(level: UInt8, ids: [UInt32]) {
        self.level = level
        self.ids = ids
    }

    func write(to w: inout ByteWriter) {
        w.u8(level)
        w.varint(ids.count)
        var previous: UInt32 = 0
        for (i, id) in ids.enumerated() {
            w.varint(UInt64(i == 0 ? id : id - previous))
            previous = id
        }
    }

    /// Reads stored cells. Level 16's ids reach 2^33, past the 32 bits an id is kept in:
    /// those cells are kept as the level-15 cells that hold them (row and column halved),
    /// a cover just as true for a query, one step coarser. RouteLog writes level 13 at
    /// most; another writer may use 16.
    init(from r: inout ByteReader) throws {
        var ids: [UInt32] = []
        let stored = try Self.read(&r) { count in ids.reserveCapacity(count) } each: { level, id in
            guard level == Self.finestLevel else { return ids.append(UInt32(id)) }
            // (row, column) to (row / 2, column / 2): id = row × 2^17 + column.
            ids.append(UInt32((id >> 18) << 16 | (id & 0x1_FFFF) >> 1))
        }
        if stored == Self.finestLevel {
            level = Self.finestLevel - 1
            self.ids = Set(ids).sorted()
        } else {
            level = stored
            self.ids = ids
        }
    }

    /// Checks the cells at `r` without keeping them (format-spec.md, "Derived fields").
    static func check(_ r: inout ByteReader) throws {
        _ = try read(&r) { _ in } each: { _, _ in }
    }

    /// Reads stored cells, calling `each` with the level and every id in order (below
    /// 2^(2 level + 1)); returns the level.
    private static func read(_ r: inout ByteReader, count: (Int) -> Void, each: (UInt8, UInt64) -> Void) throws -> UInt8 {
        let level = try r.u8()
        guard (coarsestLevel...finestLevel).contains(level) else { throw r.fail("cell level \(level)") }
        let cellCount = try r.count(max: maxCells)
        guard cellCount >= 1 else { throw r.fail("no cells") }
        count(cellCount)
        let limit = UInt64(1) << UInt64(2 * Int(level) + 1)
        var value: UInt64 = 0
        for i in 0..<cellCount {
            let delta = try r.varint()
            guard i == 0 || delta > 0, delta < limit, value + delta < limit else { throw r.fail("cell ids not ascending inside the grid") }
            value += delta
            each(level, value)
        }
        return level
    }
}
