/// A query's area in stored units (1e-7 degree), with what the tests of a route need:
/// its longitude ranges (two when it crosses the antimeridian) and its grid cells.
struct QueryArea {
    let south: Int64, north: Int64
    /// One range, or two when the area crosses the antimeridian.
    let longitudes: [ClosedRange<Int64>]

    init(_ box: BoundingBox) {
        south = Quantization.degrees(box.southWest.latitude)
        north = Quantization.degrees(box.northEast.latitude)
        let west = Quantization.degrees(box.southWest.longitude), east = Quantization.degrees(box.northEast.longitude)
        longitudes = west <= east ? [west...east] : [west...1_800_000_000, -1_800_000_000...east]
    }

    /// Whether a rectangle (a route's bounding box) meets the area.
    func meets(south s: Int32, west w: Int32, north n: Int32, east e: Int32) -> Bool {
        guard Int64(s) <= north, Int64(n) >= south else { return false }
        return longitudes.contains { $0.overlaps(Int64(w)...Int64(e)) }
    }

    /// Whether a point in stored units is inside.
    func contains(lat: Int64, lon: Int64) -> Bool {
        lat >= south && lat <= north && longitudes.contains { $0.contains(lon) }
    }

    func contains(_ point: TrackPoint) -> Bool {
        contains(lat: Quantization.degrees(point.latitude), lon: Quantization.degrees(point.longitude))
    }

    /// How a route's grid cells stand against the area.
    enum CellAnswer { case none, edge, inside }

    /// `.inside` when some cell lies wholly inside the area (the route has a point
    /// there, so it passes through), `.edge` when cells only meet its border (the
    /// points decide), `.none` when no cell meets it.
    func test(_ cells: GridCells) -> CellAnswer {
        let level = cells.level
        let r0 = GridCells.row(south, level: level), r1 = GridCells.row(north, level: level)
        // A range's first and last columns are whole inside it only where the range
        // reaches -180 or 180 itself: the grid has nothing beyond those.
        let columnRanges = longitudes.map { (columns: GridCells.column($0.lowerBound, level: level)...GridCells.column($0.upperBound, level: level),
                                             fromWestEdge: $0.lowerBound == -1_800_000_000, toEastEdge: $0.upperBound == 1_800_000_000) }
        let shift = UInt32(level + 1), mask = (UInt32(1) << shift) - 1
        var answer = CellAnswer.none
        for id in cells.ids {
            let row = id >> shift, column = id & mask
            guard row >= r0, row <= r1, let range = columnRanges.first(where: { $0.columns.contains(column) }) else { continue }
            // A cell on the area's outer rows or columns may stick out of it.
            let innerRow = row > r0 && row < r1
            let innerColumn = (column > range.columns.lowerBound || range.fromWestEdge)
                && (column < range.columns.upperBound || range.toEastEdge)
            if innerRow && innerColumn { return .inside }
            answer = .edge
        }
        return answer
    }
}
