/// The index's grid cells turned around: cell → the routes with a point in it (the
/// cells each route keeps, format-spec.md "Derived fields"), so that a pass-through
/// query looks only at the routes of the cells its area meets instead of every route.
/// Built the first time a pass-through query runs (a store nobody queries by area pays
/// nothing at open), then kept by the index as routes come and go.
struct CellMap: Sendable {
    /// (level << 32 | cell id) → the routes with that cell.
    private var routesByCell: [UInt64: [RouteID]] = [:]
    /// How many routes keep cells at each level (0...16): levels nobody uses are skipped.
    private var routesAtLevel = [Int](repeating: 0, count: Int(GridCells.finestLevel) + 1)
    /// Cells held at each level, to choose between walking the area's cells and
    /// walking the map.
    private var cellsAtLevel = [Int](repeating: 0, count: Int(GridCells.finestLevel) + 1)
    /// Routes saved without cells (before they existed, or recorded): every pass-through
    /// query must test them.
    private(set) var uncelled: Set<RouteID> = []

    private static func key(_ level: UInt8, _ cell: UInt32) -> UInt64 { UInt64(level) << 32 | UInt64(cell) }

    mutating func add(_ id: RouteID, _ cells: GridCells?) {
        guard let cells else {
            uncelled.insert(id)
            return
        }
        routesAtLevel[Int(cells.level)] += 1
        for cell in cells.ids {
            let key = Self.key(cells.level, cell)
            if routesByCell[key] == nil { cellsAtLevel[Int(cells.level)] += 1 }
            routesByCell[key, default: []].append(id)
        }
    }

    mutating func remove(_ id: RouteID, _ cells: GridCells?) {
        guard let cells else {
            uncelled.remove(id)
            return
        }
        routesAtLevel[Int(cells.level)] -= 1
        for cell in cells.ids {
            let key = Self.key(cells.level, cell)
            guard var ids = routesByCell.removeValue(forKey: key) else { continue }
            ids.removeAll { $0 == id }
            if ids.isEmpty { cellsAtLevel[Int(cells.level)] -= 1 } else { routesByCell[key] = ids }
        }
    }

    /// The routes that may pass through `area`: those with a cell meeting it, and those
    /// without cells. Distinct, in no particular order.
    func candidates(_ area: QueryArea) -> [RouteID] {
        var found = Set<RouteID>(uncelled)
        for level in GridCells.coarsestLevel...GridCells.finestLevel where routesAtLevel[Int(level)] > 0 {
            let r0 = GridCells.row(area.south, level: level), r1 = GridCells.row(area.north, level: level)
            let columns = area.longitudes.map { GridCells.column($0.lowerBound, level: level)...GridCells.column($0.upperBound, level: level) }
            let areaCells = Int(r1 - r0 + 1) * columns.reduce(0) { $0 + $1.count }
            if areaCells <= cellsAtLevel[Int(level)] {
                // A small area: look its cells up.
                for row in r0...r1 {
                    for range in columns {
                        for column in range {
                            if let ids = routesByCell[Self.key(level, GridCells.id(row: row, column: column, level: level))] {
                                found.formUnion(ids)
                            }
                        }
                    }
                }
            } else {
                // An area larger than the map's cells at this level: walk the map instead.
                let shift = UInt32(level + 1), mask = (UInt32(1) << shift) - 1
                for (key, ids) in routesByCell where key >> 32 == UInt64(level) {
                    let cell = UInt32(truncatingIfNeeded: key)
                    let row = cell >> shift, column = cell & mask
                    if row >= r0, row <= r1, columns.contains(where: { $0.contains(column) }) { found.formUnion(ids) }
                }
            }
        }
        return Array(found)
    }
}
