import CRouteLogSystem
import Testing
@testable import RouteLog

/// The cells of a route are found by comparing each point with the bounds of the last
/// point's cell, and computing a row and a column only when it leaves them. The bounds
/// must be exactly the coordinates whose row and column are the cell's, and the cells
/// exactly those of a plain count of every point's cell, at every level.
@Suite struct GridCellsTests {
    /// Every stored latitude's row range holds it, and the one below its range's first
    /// value is in the row before: the ranges tile the axis, row by row, at every row
    /// and column of the level.
    @Test(arguments: Array(GridCells.coarsestLevel...GridCells.finestLevel))
    func rowAndColumnRangesAreExactlyTheirCoordinates(level: UInt8) {
        var g = SeededGenerator(state: UInt64(level) * 7919)
        var latitudes: [Int64] = [-900_000_000, 900_000_000, 0, -1, 1, 899_999_999, -899_999_999]
        var longitudes: [Int64] = [-1_800_000_000, 1_800_000_000, 0, -1, 1, 1_799_999_999, -1_799_999_999]
        for _ in 0..<2_000 {
            latitudes.append(Int64.random(in: -900_000_000...900_000_000, using: &g))
            longitudes.append(Int64.random(in: -1_800_000_000...1_800_000_000, using: &g))
        }
        // Every row's and column's first coordinate, and its neighbours.
        let rows = UInt32(1) << UInt32(level)
        for row in 0..<rows {
            let first = GridCells.latitudes(ofRow: row, level: level).lowerBound
            if first != .min { latitudes += [first - 1, first, first + 1] }
        }
        for column in 0..<(2 * rows) {
            let first = GridCells.longitudes(ofColumn: column, level: level).lowerBound
            if first != .min { longitudes += [first - 1, first, first + 1] }
        }
        var misses = 0
        for lat in latitudes {
            let row = GridCells.row(lat, level: level), range = GridCells.latitudes(ofRow: row, level: level)
            if !range.contains(lat) { misses += 1 }
            if range.lowerBound != .min && GridCells.row(range.lowerBound - 1, level: level) != row - 1 { misses += 1 }
            if range.upperBound != .max && GridCells.row(range.upperBound, level: level) != row + 1 { misses += 1 }
        }
        for lon in longitudes {
            let column = GridCells.column(lon, level: level), range = GridCells.longitudes(ofColumn: column, level: level)
            if !range.contains(lon) { misses += 1 }
            if range.lowerBound != .min && GridCells.column(range.lowerBound - 1, level: level) != column - 1 { misses += 1 }
            if range.upperBound != .max && GridCells.column(range.upperBound, level: level) != column + 1 { misses += 1 }
        }
        #expect(misses == 0)
        #expect(GridCells.latitudes(ofRow: 0, level: level).lowerBound == .min)
        #expect(GridCells.latitudes(ofRow: rows - 1, level: level).upperBound == .max)
        #expect(GridCells.longitudes(ofColumn: 2 * rows - 1, level: level).upperBound == .max)
    }

    /// The cells every point falls in, hashed one by one, at the finest level from 13
    /// down that needs at most 256 (what the cells are defined to be).
    static func reference(_ latitudes: [Int64], _ longitudes: [Int64]) -> GridCells? {
        for level in stride(from: GridCells.preferredLevel, through: GridCells.coarsestLevel, by: -1) {
            let ids = Set(zip(latitudes, longitudes).map {
                GridCells.id(row: GridCells.row($0, level: level), column: GridCells.column($1, level: level), level: level)
            })
            if ids.count <= GridCells.maxCells { return GridCells(level: level, ids: ids.sorted()) }
        }
        return nil
    }

    static func cells(_ latitudes: [Int64], _ longitudes: [Int64]) -> GridCells? {
        latitudes.withUnsafeBufferPointer { lat in longitudes.withUnsafeBufferPointer { GridCells(latitudes: lat, longitudes: $0) } }
    }

    /// Walks, tracks that zigzag across a cell's edge point after point, tracks that run
    /// along an edge, tracks wide enough to need a coarser level or no level at all.
    @Test func cellsAreThoseOfEveryPoint() {
        var g = SeededGenerator(state: 2024)
        var tracks: [(lat: [Int64], lon: [Int64])] = []
        for _ in 0..<40 {
            var lat = Int64.random(in: -890_000_000...890_000_000, using: &g)
            var lon = Int64.random(in: -1_790_000_000...1_790_000_000, using: &g)
            let stepSize: Int64 = [30, 3_000, 300_000, 3_000_000][Int.random(in: 0..<4, using: &g)]
            var track: (lat: [Int64], lon: [Int64]) = ([], [])
            for _ in 0..<Int.random(in: 1...3_000, using: &g) {
                lat = max(-900_000_000, min(900_000_000, lat + Int64.random(in: -stepSize...stepSize, using: &g)))
                lon = max(-1_800_000_000, min(1_800_000_000, lon + Int64.random(in: -stepSize...stepSize, using: &g)))
                track.lat.append(lat)
                track.lon.append(lon)
            }
            tracks.append(track)
        }
        // Across the edge of a level-13 cell and back, and along it.
        let edge = GridCells.latitudes(ofRow: 5_000, level: 13).lowerBound
        let edgeLon = GridCells.longitudes(ofColumn: 9_000, level: 13).lowerBound
        tracks.append(((0..<500).map { edge - 1 + Int64($0 % 2) }, (0..<500).map { edgeLon + Int64($0 % 3) - 1 }))
        tracks.append(((0..<500).map { _ in edge }, (0..<500).map { edgeLon - 250 + Int64($0) }))
        // The poles and the antimeridian.
        tracks.append(([900_000_000, 900_000_000, -900_000_000], [1_800_000_000, -1_800_000_000, 1_800_000_000]))
        // Across the globe in long strides: more than 256 cells even at level 8.
        tracks.append(((0..<600).map { -900_000_000 + Int64($0) * 3_000_000 }, (0..<600).map { -1_800_000_000 + Int64($0) * 6_000_000 }))
        for track in tracks {
            #expect(Self.cells(track.lat, track.lon) == Self.reference(track.lat, track.lon))
        }
        // Some tracks must have needed a coarser level and some no level, or the test
        // did not reach those paths.
        let levels = tracks.map { Self.cells($0.lat, $0.lon)?.level }
        #expect(levels.contains(nil))
        #expect(levels.contains { $0 != nil && $0! < GridCells.preferredLevel })
    }

    /// `routelog_first_outside_cell`, which skips the points inside the last point's
    /// cell, finds the first point outside bounds as `Range.contains` does, on the vector
    /// path and the portable one: bounds at the ends of Int64 (the outer rows and
    /// columns), empty bounds, points on and one past each bound, at every offset around
    /// the eight-point loop; and the cells of tracks of 0 to 20 points that cross a
    /// cell's edge at every such offset are those of every point.
    @Test func cellScanFindsTheFirstPointOutside() {
        var g = SeededGenerator(state: 0xCE11)
        for round in 0..<3_000 {
            let n = round < 400 ? round % 40 : Int.random(in: 0...300, using: &g)
            var low = (lat: Int64.random(in: -900_000_000...900_000_000, using: &g),
                       lon: Int64.random(in: -1_800_000_000...1_800_000_000, using: &g))
            let size = Int64(1) << Int64.random(in: 0...31, using: &g)
            var high = (lat: low.lat + size, lon: low.lon + size)
            switch round % 6 {
            case 0: low.lat = .min
            case 1: (high.lat, low.lon) = (.max, .min)
            case 2: high.lon = low.lon  // empty
            case 3: (low, high) = ((.min, .min), (.max, .max))
            default: break
            }
            let edges: [Int64] = [.min, .max, 0, -1, 1, low.lat, high.lat, low.lat &- 1, high.lat &- 1, low.lon, high.lon,
                                  low.lon &- 1, high.lon &- 1]
            var lat = low.lat / 2 + high.lat / 2, lon = low.lon / 2 + high.lon / 2
            let latitudes = (0..<n).map { _ in
                lat &+= Int64.random(in: -1_000...1_000, using: &g)
                return Int.random(in: 0..<30, using: &g) == 0 ? edges.randomElement(using: &g)! : lat
            }
            let longitudes = (0..<n).map { _ in
                lon &+= Int64.random(in: -1_000...1_000, using: &g)
                return Int.random(in: 0..<30, using: &g) == 0 ? edges.randomElement(using: &g)! : lon
            }
            let from = Int.random(in: 0...n, using: &g)
            let expected = (from..<n).first {
                !((low.lat..<high.lat).contains(latitudes[$0]) && (low.lon..<high.lon).contains(longitudes[$0]))
            } ?? n
            for wide in [true, false] {
                let scan = wide ? routelog_first_outside_cell : routelog_first_outside_cell_portable
                let found = withExactlySizedInt64Buffers(latitudes, longitudes) { lat, lon in
                    scan(lat, lon, from, n, low.lat, high.lat, low.lon, high.lon)
                }
                #expect(found == expected, "round \(round) (\(wide ? "vector" : "portable")): from \(from) of \(n)")
            }
        }
        let edge = GridCells.latitudes(ofRow: 5_000, level: 13).lowerBound
        let edgeLon = GridCells.longitudes(ofColumn: 9_000, level: 13).lowerBound
        for n in 0...20 {
            for crossing in 0..<max(1, n) {
                let lat = (0..<n).map { edge - 1 + ($0 >= crossing ? 1 : 0) }
                let lon = (0..<n).map { edgeLon + Int64($0 % 3) - ($0 == n - 1 ? 2 : 0) }
                #expect(Self.cells(lat, lon) == Self.reference(lat, lon), "\(n) points crossing at \(crossing)")
            }
        }
    }

    /// Calls `body` with copies of `a` and `b` in allocations of exactly their size, so
    /// that a read past either is caught under AddressSanitizer.
    func withExactlySizedInt64Buffers<R>(_ a: [Int64], _ b: [Int64], _ body: (UnsafePointer<Int64>, UnsafePointer<Int64>) -> R) -> R {
        let pa = UnsafeMutablePointer<Int64>.allocate(capacity: max(1, a.count))
        let pb = UnsafeMutablePointer<Int64>.allocate(capacity: max(1, b.count))
        defer {
            pa.deallocate()
            pb.deallocate()
        }
        pa.initialize(from: a, count: a.count)
        pb.initialize(from: b, count: b.count)
        return body(pa, pb)
    }

    /// The format allows level 16, whose ids reach 2^33 (row × 2^17 + column): more than
    /// the 32 bits the index keeps an id in. RouteLog writes level 13 at most, but a
    /// stored level 16 is valid and must read: it is kept as the level-15 cells that
    /// hold those cells (a cover as true for a query, one step coarser), never trapped
    /// on.
    @Test func level16CellsReadAsTheLevel15CellsHoldingThem() throws {
        // Level-16 cells (row, column), first and last rows and columns among them.
        let cells16: [(row: UInt64, column: UInt64)] = [(0, 0), (0, 1), (1, 0), (1, 1), (2, 7), (40_000, 3),
                                                        (40_001, 131_071), (65_535, 131_070), (65_535, 131_071)]
        let ids = cells16.map { $0.row << 17 | $0.column }.sorted()
        var w = ByteWriter(capacity: 64)
        w.u8(16)
        w.varint(ids.count)
        var previous: UInt64 = 0
        for (i, id) in ids.enumerated() {
            w.varint(i == 0 ? id : id - previous)
            previous = id
        }
        var check = ByteReader(w.bytes[...])
        try GridCells.check(&check)
        #expect(check.isAtEnd)
        var r = ByteReader(w.bytes[...])
        let read = try GridCells(from: &r)
        let expected = Set(cells16.map { UInt32($0.row >> 1) << 16 | UInt32($0.column >> 1) }).sorted()
        #expect(read.level == 15)
        #expect(read.ids == expected)
        // What it writes back reads back the same.
        var again = ByteWriter(capacity: 64)
        read.write(to: &again)
        var r2 = ByteReader(again.bytes[...])
        #expect(try GridCells(from: &r2) == read)
    }
}
