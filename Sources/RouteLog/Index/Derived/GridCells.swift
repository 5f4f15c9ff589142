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

    /// The cells of stored coordinates, at the finest level from 13 down to 8 that
    /// needs at most 256 cells; nil when even level 8 needs more.
    init?(latitudes: UnsafeBufferPointer<Int64>, longitudes: UnsafeBufferPointer<Int64>) {
        var level = Self.preferredLevel
        while true {
            var set = Set<UInt32>()
            // Shaped for speed: a track stays in one cell for many points, so only a
            // change of cell is hashed.
            var last = UInt32.max
            for i in latitudes.indices {
                let id = Self.id(row: Self.row(latitudes[i], level: level), column: Self.column(longitudes[i], level: level), level: level)
                guard id != last else { continue }
                last = id
                set.insert(id)
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

    init(from r: inout ByteReader) throws {
        var ids: [UInt32] = []
        level = try Self.read(&r) { count in ids.reserveCapacity(count) } each: { ids.append($0) }
        self.ids = ids
    }

    /// Checks the cells at `r` without keeping them (format-spec.md, "Derived fields").
    static func check(_ r: inout ByteReader) throws {
        _ = try read(&r) { _ in } each: { _ in }
    }

    /// Reads stored cells, calling `each` with every id in order; returns the level.
    private static func read(_ r: inout ByteReader, count: (Int) -> Void, each: (UInt32) -> Void) throws -> UInt8 {
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
            each(UInt32(value))
        }
        return level
    }
}
