import Foundation

/// One live route as the in-memory index knows it.
struct IndexedRoute: Sendable {
    var shape: RouteShape
    var metadata: StoredMetadata
    var location: RecordLocation
    /// The latest MetadataEdit, if any (its bytes are live too).
    var editLocation: RecordLocation?

    func summary(_ id: RouteID) -> RouteSummary { shape.summary(id: id, metadata: metadata) }
}

/// The store's state rebuilt from the index and the segments' tails: live routes,
/// how far the index covers each segment, and where the live bytes are.
struct StoreState: Sendable {
    private(set) var routes: [RouteID: IndexedRoute] = [:]
    /// Largest id seen in any record, live or deleted.
    private(set) var maxSeenID: UInt64 = 0
    /// End of the last record whose event was applied, per segment.
    private(set) var coveredEnd: [UInt32: Int64] = [:]
    /// Bytes of live records (RoutePuts of live routes and their latest edits) per segment.
    private(set) var liveBytes: [UInt32: Int64] = [:]
    private(set) var deletedCount = 0
    private var sortedCache: [RouteSummary]?

    /// Applies one event in log order.
    mutating func apply(_ event: LogEvent) {
        let location = event.location
        coveredEnd[location.segment] = max(coveredEnd[location.segment] ?? 0, location.end)
        switch event {
        case .put(let id, let shape, let metadata, _):
            maxSeenID = max(maxSeenID, id.rawValue)
            if let old = routes[id] { release(old) }  // a compacted copy replacing its original
            routes[id] = IndexedRoute(shape: shape, metadata: metadata, location: location)
            liveBytes[location.segment, default: 0] += Int64(location.length)
            if let cache = sortedCache, let last = cache.last,
               (last.startDate, last.id) < (routes[id]!.summary(id).startDate, id) {
                sortedCache!.append(routes[id]!.summary(id))
            } else {
                sortedCache = nil
            }
        case .delete(let id, _):
            maxSeenID = max(maxSeenID, id.rawValue)
            guard let old = routes.removeValue(forKey: id) else { return }
            release(old)
            deletedCount += 1
            sortedCache = nil
        case .edit(let id, let metadata, _):
            guard var route = routes[id] else { return }
            if let previous = route.editLocation { liveBytes[previous.segment, default: 0] -= Int64(previous.length) }
            route.metadata = metadata
            route.editLocation = location
            liveBytes[location.segment, default: 0] += Int64(location.length)
            routes[id] = route
            sortedCache = nil
        }
    }

    private mutating func release(_ route: IndexedRoute) {
        liveBytes[route.location.segment, default: 0] -= Int64(route.location.length)
        if let edit = route.editLocation { liveBytes[edit.segment, default: 0] -= Int64(edit.length) }
    }

    /// Forgets segments that compaction removed (their coverage and byte counts).
    mutating func dropSegments(_ segments: Set<UInt32>) {
        for s in segments {
            coveredEnd[s] = nil
            liveBytes[s] = nil
        }
    }

    /// All summaries sorted by start date, then id.
    mutating func sortedSummaries() -> [RouteSummary] {
        if let sortedCache { return sortedCache }
        let sorted = routes.map { $0.value.summary($0.key) }
            .sorted { ($0.startDate, $0.id) < ($1.startDate, $1.id) }
        sortedCache = sorted
        return sorted
    }
}
