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
    private(set) var coveredEnd = SegmentCounters()
    /// Bytes of live records (RoutePuts of live routes and their latest edits) per segment.
    private(set) var liveBytes = SegmentCounters()
    private(set) var deletedCount = 0
    /// Summaries sorted by (start date, id), kept while changes allow it cheaply.
    private var sortedCache: [RouteSummary]? = []

    /// Makes room for `count` routes up front (the index size tells roughly how many).
    mutating func reserve(_ count: Int) {
        routes.reserveCapacity(count)
        sortedCache?.reserveCapacity(count)
    }

    /// Applies one event in log order.
    mutating func apply(_ event: LogEvent) {
        let location = event.location
        coveredEnd.raise(location.segment, to: location.end)
        switch event {
        case .put(let id, let shape, let metadata, _):
            maxSeenID = max(maxSeenID, id.rawValue)
            let route = IndexedRoute(shape: shape, metadata: metadata, location: location)
            if let old = routes.updateValue(route, forKey: id) {
                release(old)  // a compacted copy replacing its original
                sortedCache = nil
            }
            liveBytes.add(Int64(location.length), to: location.segment)
            if sortedCache != nil {
                let summary = route.summary(id)
                if let last = sortedCache!.last, (last.startDate, last.id) >= (summary.startDate, id) {
                    sortedCache = nil
                } else {
                    sortedCache!.append(summary)
                }
            }
        case .delete(let id, _):
            maxSeenID = max(maxSeenID, id.rawValue)
            guard let old = routes.removeValue(forKey: id) else { return }
            release(old)
            deletedCount += 1
            sortedCache = nil
        case .edit(let id, let metadata, _):
            guard var route = routes[id] else { return }
            if let previous = route.editLocation { liveBytes.add(-Int64(previous.length), to: previous.segment) }
            let sameStart = route.metadata.shiftMs == metadata.shiftMs
            route.metadata = metadata
            route.editLocation = location
            liveBytes.add(Int64(location.length), to: location.segment)
            routes[id] = route
            if sameStart, let index = cachedIndex(of: id, startMs: route.shape.firstMs + metadata.shiftMs) {
                sortedCache![index] = route.summary(id)  // same place in the order
            } else {
                sortedCache = nil
            }
        }
    }

    private mutating func release(_ route: IndexedRoute) {
        liveBytes.add(-Int64(route.location.length), to: route.location.segment)
        if let edit = route.editLocation { liveBytes.add(-Int64(edit.length), to: edit.segment) }
    }

    /// Where route `id`, starting at `startMs`, sits in the sorted cache, if the cache exists.
    private func cachedIndex(of id: RouteID, startMs: Int64) -> Int? {
        guard let cache = sortedCache else { return nil }
        let start = Quantization.date(milliseconds: startMs)
        var low = 0, high = cache.count
        while low < high {
            let mid = (low + high) / 2
            if (cache[mid].startDate, cache[mid].id) < (start, id) { low = mid + 1 } else { high = mid }
        }
        return low < cache.count && cache[low].id == id ? low : nil
    }

    /// All summaries sorted by start date, then id.
    mutating func sortedSummaries() -> [RouteSummary] {
        if let sortedCache { return sortedCache }
        // Sort small keys, then build the summaries once, in order.
        var keys: [(start: Int64, id: RouteID)] = []
        keys.reserveCapacity(routes.count)
        for (id, route) in routes { keys.append((route.shape.firstMs + route.metadata.shiftMs, id)) }
        keys.sort { $0.start != $1.start ? $0.start < $1.start : $0.id < $1.id }
        let sorted = keys.map { routes[$0.id]!.summary($0.id) }
        sortedCache = sorted
        return sorted
    }
}
