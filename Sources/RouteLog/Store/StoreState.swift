import Foundation

/// One live route as the in-memory index knows it.
struct IndexedRoute: Sendable {
    var shape: RouteShape
    var metadata: StoredMetadata
    /// The RoutePut, or for a recorded route not compacted yet its RecordingFinish.
    var location: RecordLocation
    /// The latest MetadataEdit, if any (its bytes are live too).
    var editLocation: RecordLocation?
    /// For a finished recording not yet merged by compaction: its start and chunks,
    /// which hold the points.
    var recorded: IndexedRecording?

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
    private(set) var coveredEnd: [UInt32: Int64] = [:]
    /// Bytes of live records (RoutePuts of live routes and their latest edits, and the
    /// records of recordings, finished or not) per segment.
    private(set) var liveBytes: [UInt32: Int64] = [:]
    private(set) var deletedCount = 0
    private(set) var discardedCount = 0
    /// Bytes of finished recordings still stored as chunks (live, but compaction would
    /// store each as one smaller record).
    private(set) var chunkedBytes: Int64 = 0
    private var sortedCache: [RouteSummary]?

    /// Applies one event in log order.
    mutating func apply(_ event: LogEvent) {
        let location = event.location
        coveredEnd[location.segment] = max(coveredEnd[location.segment] ?? 0, location.end)
        switch event {
        case .put(let id, let shape, let metadata, _):
            maxSeenID = max(maxSeenID, id.rawValue)
            if let old = routes[id] { release(old) }  // a compacted copy replacing its original
            addRoute(id, IndexedRoute(shape: shape, metadata: metadata, location: location))
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
        case .recordingStart(let id, let startedMs, let metadata, _):
            maxSeenID = max(maxSeenID, id.rawValue)
            guard routes[id] == nil, recordings[id] == nil else { return }
            recordings[id] = IndexedRecording(start: location, startedMs: startedMs, metadata: metadata)
            liveBytes[location.segment, default: 0] += Int64(location.length)
        case .recordingChunk(let id, let firstPoint, let pointCount, _):
            maxSeenID = max(maxSeenID, id.rawValue)
            // Only the next chunk in order is accepted: after a lost or damaged chunk the
            // later ones would leave a gap in the points.
            guard recordings[id]?.pointCount == firstPoint else { return }
            recordings[id]!.chunks.append(RecordedChunk(location: location, firstPoint: firstPoint, pointCount: pointCount))
            liveBytes[location.segment, default: 0] += Int64(location.length)
        case .recordingFinish(let id, let shape, let metadata, _):
            maxSeenID = max(maxSeenID, id.rawValue)
            guard let recording = recordings.removeValue(forKey: id) else { return }
            addRoute(id, IndexedRoute(shape: shape, metadata: metadata, location: location, recorded: recording))
        case .recordingDiscard(let id, _):
            maxSeenID = max(maxSeenID, id.rawValue)
            guard let recording = recordings.removeValue(forKey: id) else { return }
            for part in recording.locations { liveBytes[part.segment, default: 0] -= Int64(part.length) }
            discardedCount += 1
        }
    }

    private mutating func addRoute(_ id: RouteID, _ route: IndexedRoute) {
        routes[id] = route
        liveBytes[route.location.segment, default: 0] += Int64(route.location.length)
        for part in route.recorded?.locations ?? [] { liveBytes[part.segment, default: 0] += Int64(part.length) }
        if route.recorded != nil { chunkedBytes += Self.bytes(of: route) }
        if let cache = sortedCache, let last = cache.last,
           (last.startDate, last.id) < (route.summary(id).startDate, id) {
            sortedCache!.append(route.summary(id))
        } else {
            sortedCache = nil
        }
    }

    private mutating func release(_ route: IndexedRoute) {
        liveBytes[route.location.segment, default: 0] -= Int64(route.location.length)
        if let edit = route.editLocation { liveBytes[edit.segment, default: 0] -= Int64(edit.length) }
        for part in route.recorded?.locations ?? [] { liveBytes[part.segment, default: 0] -= Int64(part.length) }
        if route.recorded != nil { chunkedBytes -= Self.bytes(of: route) }
    }

    /// A recorded route's start, chunks and finish.
    private static func bytes(of route: IndexedRoute) -> Int64 {
        (route.recorded?.locations ?? []).reduce(Int64(route.location.length)) { $0 + Int64($1.length) }
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
