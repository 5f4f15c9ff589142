import Foundation

/// A validated ``RouteQuery`` turned into tests on the index's entries: everything but
/// the pass-through test at an area's edge is decided without reading a route.
struct QueryMatcher {
    let query: RouteQuery
    private let fromMs: Int64?, toMs: Int64?
    private let foldedName: String?
    private let box: QueryArea?
    /// The pass-through area, if the query has one.
    let pass: QueryArea?

    /// How an index entry stands against the query.
    enum Answer { case no, yes, needsPoints }

    /// - Throws: `.invalidArgument` for a query ``RouteQuery/validate()`` refuses.
    init(_ query: RouteQuery) throws {
        try query.validate()
        self.query = query
        // Dates far outside 1970...2200 clamp: no route starts there anyway.
        func ms(_ date: Date) -> Int64 {
            let seconds = min(max(date.timeIntervalSince1970, -1e12), 1e12)
            return Int64((seconds * 1000).rounded(.up))
        }
        fromMs = query.from.map(ms)
        toMs = query.to.map(ms)
        foldedName = query.nameContains.flatMap { $0.isEmpty ? nil : Self.fold($0) }
        box = query.boundingBoxIntersects.map(QueryArea.init)
        pass = query.passesThrough.map(QueryArea.init)
    }

    /// True when the query's filters let every route through (sort, limit and offset aside).
    var selectsEverything: Bool {
        fromMs == nil && toMs == nil && query.activities == nil && query.tags.isEmpty && foldedName == nil && box == nil && pass == nil
    }

    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    /// The tests that need only a route's shape and start (ms): false when the route
    /// cannot match, so that its metadata need not be decoded.
    func mayMatch(_ shape: RouteShape, startMs start: Int64) -> Bool {
        if let fromMs, start < fromMs { return false }
        if let toMs, start >= toMs { return false }
        if let box, !box.meets(south: shape.south, west: shape.west, north: shape.north, east: shape.east) { return false }
        if let pass, !pass.meets(south: shape.south, west: shape.west, north: shape.north, east: shape.east) { return false }
        return true
    }

    /// The test of everything the index holds; `.needsPoints` when only the route's
    /// points can tell whether it passes through the area.
    func test(_ route: IndexedRoute) -> Answer {
        let shape = route.shape, metadata = route.metadata
        guard mayMatch(shape, startMs: shape.firstMs + metadata.shiftMs) else { return .no }
        if let kinds = query.activities {
            guard let kind = metadata.activity, kinds.contains(kind) else { return .no }
        }
        for tag in query.tags where !metadata.tags.contains(tag) { return .no }
        if let foldedName {
            guard let name = metadata.name, Self.fold(name).contains(foldedName) else { return .no }
        }
        if let pass {
            // Without cells (a route saved before they existed) the points decide.
            guard let cells = metadata.derived.cells else { return .needsPoints }
            switch pass.test(cells) {
            case .none: return .no
            case .inside: return .yes
            case .edge:
                // The first and last points are in the shape, exactly as stored.
                let start = pass.contains(lat: Int64(shape.startLat), lon: Int64(shape.startLon))
                return start || pass.contains(lat: Int64(shape.endLat), lon: Int64(shape.endLon)) ? .yes : .needsPoints
            }
        }
        return .yes
    }

    /// The pass-through test on a route's points.
    func passes(_ route: Route) -> Bool {
        guard let pass else { return true }
        return route.points.contains { pass.contains($0) }
    }

    /// The pass-through test on a route's coordinates in stored units.
    func passes(latitudes: [Int64], longitudes: [Int64]) -> Bool {
        guard let pass else { return true }
        return latitudes.indices.contains { pass.contains(lat: latitudes[$0], lon: longitudes[$0]) }
    }

    /// `summaries` sorted, offset and limited as the query says.
    func arranged(_ summaries: [RouteSummary]) -> [RouteSummary] {
        guard query.limit != 0, query.offset < summaries.count else { return [] }
        var sorted: [RouteSummary]
        let tieBreak: (RouteSummary, RouteSummary) -> Bool = { ($0.startDate, $0.id) < ($1.startDate, $1.id) }
        func by<K: Comparable>(_ key: (RouteSummary) -> K) -> [RouteSummary] {
            let keyed = summaries.map { (key($0), $0) }
            return keyed.sorted {
                if $0.0 != $1.0 { return query.ascending ? $0.0 < $1.0 : $0.0 > $1.0 }
                return tieBreak($0.1, $1.1)
            }.map(\.1)
        }
        switch query.sort {
        case .startDate: sorted = by { $0.startDate }
        case .distance: sorted = by { $0.distance }
        case .duration: sorted = by { $0.duration }
        case .name: sorted = by { Self.fold($0.name ?? "") }
        }
        let end = query.limit.map { query.offset + min($0, sorted.count - query.offset) } ?? sorted.count
        return Array(sorted[query.offset..<end])
    }
}
