import Foundation

/// One live route as the in-memory index knows it.
///
/// A value type over one immutable heap object: the index holds 100,000 of these, and
/// an 8-byte reference moves through the dictionary (and its snapshots) far faster than
/// 200 bytes of fields. Changing a field makes a new object, so snapshots taken by
/// verify or compaction never see a later change.
struct IndexedRoute: Sendable {
    private final class Storage: Sendable {
        let shape: RouteShape
        let metadata: StoredMetadata
        let location: RecordLocation
        let editLocation: RecordLocation?
        let recorded: IndexedRecording?

        init(_ shape: RouteShape, _ metadata: StoredMetadata, _ location: RecordLocation,
             _ editLocation: RecordLocation?, _ recorded: IndexedRecording?) {
            self.shape = shape
            self.metadata = metadata
            self.location = location
            self.editLocation = editLocation
            self.recorded = recorded
        }
    }

    private var storage: Storage

    init(shape: RouteShape, metadata: StoredMetadata, location: RecordLocation,
         editLocation: RecordLocation? = nil, recorded: IndexedRecording? = nil) {
        storage = Storage(shape, metadata, location, editLocation, recorded)
    }

    var shape: RouteShape {
        get { storage.shape }
        set { storage = Storage(newValue, metadata, location, editLocation, recorded) }
    }

    var metadata: StoredMetadata {
        get { storage.metadata }
        set { storage = Storage(shape, newValue, location, editLocation, recorded) }
    }

    /// The RoutePut, or for a recorded route not compacted yet its RecordingFinish.
    var location: RecordLocation {
        get { storage.location }
        set { storage = Storage(shape, metadata, newValue, editLocation, recorded) }
    }

    /// The latest MetadataEdit, if any (its bytes are live too).
    var editLocation: RecordLocation? {
        get { storage.editLocation }
        set { storage = Storage(shape, metadata, location, newValue, recorded) }
    }

    /// For a finished recording not yet merged by compaction: its start and chunks,
    /// which hold the points.
    var recorded: IndexedRecording? {
        get { storage.recorded }
        set { storage = Storage(shape, metadata, location, editLocation, newValue) }
    }

    /// Sets the metadata and the edit's location at once (one new object, not two).
    mutating func edited(_ metadata: StoredMetadata, at location: RecordLocation) {
        storage = Storage(shape, metadata, self.location, location, recorded)
    }

    func summary(_ id: RouteID) -> RouteSummary { shape.summary(id: id, metadata: metadata) }
}

/// One accepted chunk of a recording.
struct RecordedChunk: Equatable, Sendable {
    var location: RecordLocation
    var firstPoint: Int
    var pointCount: Int
}

/// A recording's records as the in-memory index knows them (format-spec.md, "Recordings").
struct IndexedRecording: Equatable, Sendable {
    var start: RecordLocation
    var startedMs: Int64
    var metadata: StoredMetadata
    var chunks: [RecordedChunk] = []

    /// Points in the accepted chunks.
    var pointCount: Int { chunks.last.map { $0.firstPoint + $0.pointCount } ?? 0 }
    /// Every location holding this recording's bytes.
    var locations: [RecordLocation] { [start] + chunks.map(\.location) }
}

/// The store's state rebuilt from the index and the segments' tails: live routes,
/// unfinished recordings, how far the index covers each segment, and where the live
/// bytes are.
struct StoreState: Sendable {
    private(set) var routes: [RouteID: IndexedRoute] = [:]
    /// Recordings neither finished nor discarded.
    private(set) var recordings: [RouteID: IndexedRecording] = [:]
    /// Largest id seen in any record, live or deleted.
    private(set) var maxSeenID: UInt64 = 0
    /// End of the last record whose event was applied, per segment.
    private(set) var coveredEnd = SegmentCounters()
    /// Bytes of live records (RoutePuts of live routes and their latest edits, and the
    /// records of recordings, finished or not) per segment.
    private(set) var liveBytes = SegmentCounters()
    private(set) var deletedCount = 0
    private(set) var discardedCount = 0
    /// Bytes of finished recordings still stored as chunks (live, but compaction would
    /// store each as one smaller record).
    private(set) var chunkedBytes: Int64 = 0
    /// Summaries sorted by (start date, id), kept while changes allow it cheaply.
    /// Valid only while `sortedCacheValid`; kept non-optional so appends happen in place.
    private var sortedCache: [RouteSummary] = []
    private var sortedCacheValid = true

    /// Makes room for `count` routes up front (the index size tells roughly how many).
    mutating func reserve(_ count: Int) {
        routes.reserveCapacity(count)
        sortedCache.reserveCapacity(count)
    }

    /// Applies one event in log order.
    mutating func apply(_ event: LogEvent) {
        let location = event.location
        coveredEnd.raise(location.segment, to: location.end)
        switch event {
        case .put(let id, let shape, let metadata, _):
            maxSeenID = max(maxSeenID, id.rawValue)
            addRoute(id, IndexedRoute(shape: shape, metadata: metadata, location: location))
        case .delete(let id, _):
            maxSeenID = max(maxSeenID, id.rawValue)
            guard let old = routes.removeValue(forKey: id) else { return }
            release(old)
            deletedCount += 1
            invalidateSortedCache()
        case .edit(let id, let metadata, _):
            guard var route = routes[id] else { return }
            if let previous = route.editLocation { liveBytes.add(-Int64(previous.length), to: previous.segment) }
            let sameStart = route.metadata.shiftMs == metadata.shiftMs
            route.edited(metadata, at: location)
            liveBytes.add(Int64(location.length), to: location.segment)
            routes[id] = route
            if sameStart, let index = cachedIndex(of: id, startMs: route.shape.firstMs + metadata.shiftMs) {
                sortedCache[index] = route.summary(id)  // same place in the order
            } else {
                invalidateSortedCache()
            }
        case .recordingStart(let id, let startedMs, let metadata, _):
            maxSeenID = max(maxSeenID, id.rawValue)
            guard routes[id] == nil, recordings[id] == nil else { return }
            recordings[id] = IndexedRecording(start: location, startedMs: startedMs, metadata: metadata)
            liveBytes.add(Int64(location.length), to: location.segment)
        case .recordingChunk(let id, let firstPoint, let pointCount, _):
            maxSeenID = max(maxSeenID, id.rawValue)
            // Only the next chunk in order is accepted: after a lost or damaged chunk the
            // later ones would leave a gap in the points.
            guard recordings[id]?.pointCount == firstPoint else { return }
            recordings[id]!.chunks.append(RecordedChunk(location: location, firstPoint: firstPoint, pointCount: pointCount))
            liveBytes.add(Int64(location.length), to: location.segment)
        case .recordingFinish(let id, let shape, let metadata, _):
            maxSeenID = max(maxSeenID, id.rawValue)
            guard let recording = recordings.removeValue(forKey: id) else { return }
            addRoute(id, IndexedRoute(shape: shape, metadata: metadata, location: location, recorded: recording))
        case .recordingDiscard(let id, _):
            maxSeenID = max(maxSeenID, id.rawValue)
            guard let recording = recordings.removeValue(forKey: id) else { return }
            for part in recording.locations { liveBytes.add(-Int64(part.length), to: part.segment) }
            discardedCount += 1
        }
    }

    private mutating func addRoute(_ id: RouteID, _ route: IndexedRoute) {
        if let old = routes.updateValue(route, forKey: id) {
            release(old)  // a compacted copy replacing its original
            invalidateSortedCache()
        }
        liveBytes.add(Int64(route.location.length), to: route.location.segment)
        // A recorded route's start and chunks were counted live as they arrived.
        if route.recorded != nil { chunkedBytes += Self.bytes(of: route) }
        if sortedCacheValid {
            let summary = route.summary(id)
            if let last = sortedCache.last, (last.startDate, last.id) >= (summary.startDate, id) {
                invalidateSortedCache()
            } else {
                sortedCache.append(summary)
            }
        }
    }

    private mutating func release(_ route: IndexedRoute) {
        liveBytes.add(-Int64(route.location.length), to: route.location.segment)
        if let edit = route.editLocation { liveBytes.add(-Int64(edit.length), to: edit.segment) }
        if route.recorded != nil {
            for part in route.recorded!.locations { liveBytes.add(-Int64(part.length), to: part.segment) }
            chunkedBytes -= Self.bytes(of: route)
        }
    }

    /// A recorded route's start, chunks and finish.
    private static func bytes(of route: IndexedRoute) -> Int64 {
        (route.recorded?.locations ?? []).reduce(Int64(route.location.length)) { $0 + Int64($1.length) }
    }

    private mutating func invalidateSortedCache() {
        sortedCacheValid = false
        sortedCache = []
    }

    /// Where route `id`, starting at `startMs`, sits in the sorted cache, if the cache exists.
    private func cachedIndex(of id: RouteID, startMs: Int64) -> Int? {
        guard sortedCacheValid else { return nil }
        let cache = sortedCache
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
        if sortedCacheValid { return sortedCache }
        // Sort small keys, then build the summaries once, in order.
        var keys: [(start: Int64, id: RouteID)] = []
        keys.reserveCapacity(routes.count)
        for (id, route) in routes { keys.append((route.shape.firstMs + route.metadata.shiftMs, id)) }
        keys.sort { $0.start != $1.start ? $0.start < $1.start : $0.id < $1.id }
        let sorted = keys.map { routes[$0.id]!.summary($0.id) }
        sortedCache = sorted
        sortedCacheValid = true
        return sorted
    }
}
