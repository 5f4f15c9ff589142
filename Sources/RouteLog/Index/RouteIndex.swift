import Foundation

/// The in-memory index: every live route's summary inputs and record locations, the
/// unfinished recordings, how far the index covers each segment, and where the live
/// bytes are. Built by replaying events in log order (from the index file, the
/// segments' tails, or a writer's commits).
struct RouteIndex: Sendable {
    private(set) var routes = RouteTable()
    /// Recordings neither finished nor discarded.
    private(set) var recordings: [RouteID: IndexedRecording] = [:]
    /// Deletes and discards that must stay on disk while what they delete is there.
    private(set) var tombstones: [RouteID: Tombstone] = [:]
    /// Largest id seen in any record, live or deleted.
    private(set) var maxSeenID: UInt64 = 0
    /// Ids of RecordingChunks and MetadataEdits replayed while nothing made their id
    /// known (no recording, route or tombstone): deleted and compacted away, or whose
    /// RecordingStart or RoutePut was lost to damage. A writer's open that finds damage
    /// notes them in the manifest (``StoreSettings/lostIDs``).
    private(set) var untracedIDs = Set<UInt64>()
    /// End of the last record whose event was applied, per segment.
    private(set) var coveredEnd = SegmentCounters()
    /// Bytes of live records per segment: RoutePuts of live routes and their latest
    /// edits, the records of recordings (finished or not), and tombstones.
    private(set) var liveBytes = SegmentCounters()
    /// Bytes of finished recordings still stored as chunks (live, but compaction would
    /// store each as one smaller record).
    private(set) var chunkedBytes: Int64 = 0
    /// Summaries sorted by (start date, id), made by the first listing and then kept
    /// while changes allow it cheaply. Not made while an index is replayed: opening a
    /// store, verifying or compacting it needs no summaries, and they are most of the
    /// memory a route costs. Valid only while `sortedCacheValid`; kept non-optional so
    /// appends happen in place.
    private var sortedCache: [RouteSummary] = []
    private var sortedCacheValid = false
    /// Totals per local day, once asked for (``totalsLedger(zone:)``), then kept.
    private var ledger: TotalsLedger?
    /// Cell → routes, once a pass-through query asked (``withCellMap(_:)``), then kept.
    private var cellMap: CellMap?
    /// Routes by what a duplicate must share, once a duplicate was looked for
    /// (``withDuplicateCandidates(_:)``), then kept.
    private var duplicates: DuplicateCandidates?

    /// An index holding only `route` and `recording` under `id`, without counters: the
    /// scratch state a writer checks a group of changes against.
    mutating func seed(_ id: RouteID, route: IndexedRoute?, recording: IndexedRecording?) {
        if let route { routes.updateValue(route, forKey: id) }
        if let recording { recordings[id] = recording }
        maxSeenID = max(maxSeenID, id.rawValue)
        sortedCacheValid = false
    }

    /// Makes room up front for the routes of an index file of `bytes` bytes (each takes
    /// more than 100 bytes there, its metadata less than its record), up to a million
    /// routes and 128 MiB: a file's size alone never makes a large allocation.
    mutating func reserve(indexBytes bytes: Int64) {
        routes.reserveCapacity(Int(min(bytes / 100, 1_000_000)), metadata: Int(min(bytes, 128 << 20)))
    }

    /// Sizes the lookup of routes by id for an index file of `bytes` whose routes take
    /// about `bytesPerRoute` each (measured on its first run), capped as ``reserve(indexBytes:)``.
    mutating func reserveLookup(indexBytes bytes: Int64, bytesPerRoute: Double) {
        guard bytesPerRoute >= 1 else { return }
        routes.reserveLookup(Int(min(Double(bytes) / bytesPerRoute, 1_000_000)))
    }

    /// Deleted routes whose records are still on disk.
    var deletedCount: Int { tombstones.values.filter { !$0.isDiscard }.count }
    /// Discarded recordings whose records are still on disk.
    var discardedCount: Int { tombstones.values.filter(\.isDiscard).count }

    /// Applies one event in log order (format-spec.md, "Segment records" and "Recordings").
    /// `encodedMetadata`, when given, is the event's metadata as stored in its record: a
    /// put or an edit keeps those bytes as they are instead of encoding them again.
    mutating func apply(_ event: LogEvent, encodedMetadata: ArraySlice<UInt8>? = nil) {
        let location = event.location
        coveredEnd.raise(location.segment, to: location.end)
        maxSeenID = max(maxSeenID, event.id.rawValue)
        switch event {
        case .put(let id, let shape, let metadata, _):
            addRoute(id, IndexedRoute(shape: shape, metadata: metadata, location: location), encodedMetadata)
        case .delete(let id, _):
            guard let old = routes.removeValue(forKey: id) else { return }
            release(id, old)
            bury(id, Tombstone(deleting: id, old, at: location))
            invalidateSortedCache()
        case .edit(let id, var metadata, _):
            guard var route = routes[id] else {
                if tombstones[id] == nil { untracedIDs.insert(id.rawValue) }
                return
            }
            // A field derived from the points that the edit lacks is the route's: the
            // edit was made before the route had it (a recording's, which compaction
            // merged into one RoutePut; format-spec.md, "Derived fields").
            var encodedMetadata = encodedMetadata
            if metadata.takeDerivedFields(of: route.metadata) { encodedMetadata = nil }
            ledger?.remove(id)
            cellMap?.remove(id, route.metadata.derived.cells)
            duplicates?.remove(id, route)
            if let previous = route.editLocation { liveBytes.add(-Int64(previous.length), to: previous.segment) }
            let sameStart = route.metadata.shiftMs == metadata.shiftMs
            route.edited(metadata, at: location)
            liveBytes.add(Int64(location.length), to: location.segment)
            routes.updateValue(route, encodedMetadata: encodedMetadata, forKey: id)
            ledger?.add(id, route)
            cellMap?.add(id, route.metadata.derived.cells)
            duplicates?.add(id, route)
            if sameStart, let index = cachedIndex(of: id, startMs: route.shape.firstMs + metadata.shiftMs) {
                sortedCache[index] = route.summary(id)  // same place in the order
            } else {
                invalidateSortedCache()
            }
        case .recordingStart(let id, let startedMs, let metadata, _):
            guard !routes.contains(id), recordings[id] == nil else { return }
            recordings[id] = IndexedRecording(start: location, startedMs: startedMs, metadata: metadata)
            liveBytes.add(Int64(location.length), to: location.segment)
        case .recordingChunk(let id, let firstPoint, let pointCount, _):
            // Chunks are accepted in order; one past the points accepted so far leaves a
            // gap (a chunk lost to damage), so every later chunk is kept.
            guard let recording = recordings[id], firstPoint >= recording.pointCount else {
                if recordings[id] == nil, !routes.contains(id), tombstones[id] == nil { untracedIDs.insert(id.rawValue) }
                return
            }
            recordings[id]!.chunks.append(RecordedChunk(location: location, firstPoint: firstPoint, pointCount: pointCount))
            liveBytes.add(Int64(location.length), to: location.segment)
        case .recordingFinish(let id, let shape, let metadata, _):
            guard let recording = recordings.removeValue(forKey: id) else { return }
            addRoute(id, IndexedRoute(shape: shape, metadata: metadata, location: location, recorded: recording), encodedMetadata)
        case .recordingDiscard(let id, _):
            guard let recording = recordings.removeValue(forKey: id) else { return }
            for part in recording.locations { liveBytes.add(-Int64(part.length), to: part.segment) }
            bury(id, Tombstone(discarding: id, recording, at: location))
        }
    }

    /// Applies an index record's put, its metadata checked but not decoded: the same
    /// as ``apply(_:encodedMetadata:)`` with its event, which it falls back to when the
    /// id is stored already or a ledger, cell map or sorted listing is kept (each needs
    /// the decoded metadata).
    mutating func applyPut(_ put: LogEvent.IndexedPut) {
        put.encodedMetadata.withUnsafeBytes {
            applyPut(put.id, location: put.location, shape: put.shape, shiftMs: put.metadata.shiftMs, encodedMetadata: $0)
        }
    }

    /// Applies an IndexPutRun's puts in order, each as ``applyPut(_:)`` an IndexPut,
    /// admitting each location to `order` first. The per-segment counters are updated
    /// once for each stretch of puts in one segment, not once a put.
    /// - Throws: ByteReader.Malformed for a payload that is no run; ``LocationOrder/Ahead``.
    mutating func applyPutRun(_ payload: ArraySlice<UInt8>, order: inout LocationOrder) throws {
        try IndexPutRun.withPuts(in: payload) { puts in
            // The puts' locations in one segment, counted at once; the puts applied
            // are counted even when a later one throws.
            var stretch = (segment: UInt32(0), end: Int64(0), bytes: Int64(0))
            defer { if stretch.bytes != 0 { settle(stretch) } }
            while true {
                // The lookup's slots are a cache miss each, the ids' order being
                // scattered by the hash: ask for a later put's slot before this one's
                // is needed. 24 puts ahead, not 8: the rows and metadata written
                // meanwhile push the slots out of the cache, and the miss takes longer
                // than 8 puts do (opens of 100,000 routes about 8% faster).
                if let ahead = puts.id(ahead: 24) { routes.prefetchLookup(RouteID(ahead)) }
                guard try puts.next() else { break }
                let location = puts.put.location, put = puts.put
                try order.admit(location)
                maxSeenID = max(maxSeenID, put.id.rawValue)
                if location.segment != stretch.segment || stretch.bytes == 0 {
                    if stretch.bytes != 0 { settle(stretch) }
                    stretch = (location.segment, location.end, 0)
                }
                guard ledger == nil, cellMap == nil, duplicates == nil, !sortedCacheValid,
                      routes.insertIfNew(put.id, location: location, shape: put.shape, encodedMetadata: put.metadata)
                else {
                    let bytes = ArraySlice(put.metadata)
                    apply(.put(put.id, put.shape, StoredMetadata(MetadataView(checked: bytes)), location), encodedMetadata: bytes)
                    continue
                }
                stretch.end = max(stretch.end, location.end)
                stretch.bytes += Int64(location.length)
            }
        }
    }

    /// Applies a run packed ahead of time exactly as ``applyPutRun(_:order:)``
    /// applies its payload: the rows read right in order, then the rule the next put
    /// broke, thrown.
    /// - Throws: ByteReader.Malformed for a run that is no run; ``LocationOrder/Ahead``.
    mutating func applyPackedRun(_ packed: PackedPutRun, order: inout LocationOrder) throws {
        let rows = packed.rows
        // While the index keeps no totals, cells or sorted listing, a new route is only
        // a row: its metadata is appended at once, and what no row takes is counted dead.
        let direct = ledger == nil && cellMap == nil && duplicates == nil && !sortedCacheValid
        let base = direct ? routes.appendMetadata(packed.metadata) : 0
        var taken = 0
        defer { if direct { routes.forgetMetadata(packed.metadata.count - taken) } }
        var stretch = (segment: UInt32(0), end: Int64(0), bytes: Int64(0))
        defer { if stretch.bytes != 0 { settle(stretch) } }
        for index in rows.indices {
            // As in applyPutRun, the slot of a later row is asked for ahead; further
            // ahead, this loop being shorter (64 rows measured a little faster than 24).
            if index + 64 < rows.count { routes.prefetchLookup(rows[index + 64].id) }
            let row = rows[index], location = row.isWide ? packed.location(index) : row.packedLocation
            try order.admit(location)
            maxSeenID = max(maxSeenID, row.id.rawValue)
            if location.segment != stretch.segment || stretch.bytes == 0 {
                if stretch.bytes != 0 { settle(stretch) }
                stretch = (location.segment, location.end, 0)
            }
            guard direct, routes.insertIfNew(row, metadataBase: base, wide: row.isWide ? packed.wide[index] : nil) else {
                let bytes = packed.storedMetadata(index)
                apply(.put(row.id, packed.shape(index), StoredMetadata(MetadataView(checked: bytes)), location), encodedMetadata: bytes)
                continue
            }
            taken += row.metadataCount
            stretch.end = max(stretch.end, location.end)
            stretch.bytes += Int64(location.length)
        }
        if let failure = packed.failure { throw failure }
    }

    /// Counts puts of one segment, ending at `end` and `bytes` long in all, as covered and live.
    private mutating func settle(_ stretch: (segment: UInt32, end: Int64, bytes: Int64)) {
        coveredEnd.raise(stretch.segment, to: stretch.end)
        liveBytes.add(stretch.bytes, to: stretch.segment)
    }

    private mutating func applyPut(_ id: RouteID, location: RecordLocation, shape: RouteShape, shiftMs: Int64,
                                   encodedMetadata: UnsafeRawBufferPointer) {
        guard ledger == nil, cellMap == nil, duplicates == nil, !sortedCacheValid,
              routes.insertIfNew(id, location: location, shape: shape, encodedMetadata: encodedMetadata)
        else {
            let bytes = ArraySlice(encodedMetadata)
            apply(.put(id, shape, StoredMetadata(MetadataView(checked: bytes)), location), encodedMetadata: bytes)
            return
        }
        coveredEnd.raise(location.segment, to: location.end)
        maxSeenID = max(maxSeenID, id.rawValue)
        liveBytes.add(Int64(location.length), to: location.segment)
    }

    private mutating func addRoute(_ id: RouteID, _ route: IndexedRoute, _ encodedMetadata: ArraySlice<UInt8>?) {
        if let old = routes.updateValue(route, encodedMetadata: encodedMetadata, forKey: id) {
            release(id, old)  // a second RoutePut of one id (only in a forged log): the last wins
            invalidateSortedCache()
        }
        ledger?.add(id, route)
        cellMap?.add(id, route.metadata.derived.cells)
        duplicates?.add(id, route)
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

    private mutating func release(_ id: RouteID, _ route: IndexedRoute) {
        ledger?.remove(id)
        cellMap?.remove(id, route.metadata.derived.cells)
        duplicates?.remove(id, route)
        liveBytes.add(-Int64(route.location.length), to: route.location.segment)
        if let edit = route.editLocation { liveBytes.add(-Int64(edit.length), to: edit.segment) }
        if route.recorded != nil {
            for part in route.recorded!.locations { liveBytes.add(-Int64(part.length), to: part.segment) }
            chunkedBytes -= Self.bytes(of: route)
        }
    }

    private mutating func bury(_ id: RouteID, _ tombstone: Tombstone) {
        if let old = tombstones.updateValue(tombstone, forKey: id) {
            for location in old.liveLocations { liveBytes.add(-Int64(location.length), to: location.segment) }
        }
        for location in tombstone.liveLocations { liveBytes.add(Int64(location.length), to: location.segment) }
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

    /// The zone of the totals ledger kept, if any.
    var totalsZone: TimeZone? { ledger?.zone }

    /// Runs `body` on the totals ledger of `zone`: made from every route the first time
    /// (or when another zone was asked for last), in start order, then maintained by
    /// ``apply(_:)``.
    mutating func withTotalsLedger<T>(zone: TimeZone, _ body: (inout TotalsLedger) -> T) -> T {
        if ledger?.zone != zone {
            var fresh = TotalsLedger(zone: zone)
            for key in startOrder() { routes.addTotals(row: key.row, to: &fresh) }
            ledger = fresh
        }
        return body(&ledger!)
    }

    /// Runs `body` on the cell map: made from every route the first time, then
    /// maintained by ``apply(_:)``.
    mutating func withCellMap<T>(_ body: (inout CellMap) -> T) -> T {
        if cellMap == nil {
            var fresh = CellMap()
            for (id, route) in routes { fresh.add(id, route.metadata.derived.cells) }  // decodes each once
            cellMap = fresh
        }
        return body(&cellMap!)
    }

    /// Runs `body` on the duplicate candidates: made from every route the first time,
    /// then maintained by ``apply(_:)``.
    mutating func withDuplicateCandidates<T>(_ body: (inout DuplicateCandidates) -> T) -> T {
        if duplicates == nil {
            var fresh = DuplicateCandidates()
            for (id, route) in routes { fresh.add(id, route) }
            duplicates = fresh
        }
        return body(&duplicates!)
    }

    /// All summaries sorted by start date, then id.
    mutating func sortedSummaries() -> [RouteSummary] {
        if sortedCacheValid { return sortedCache }
        // Sort small keys, then build the summaries once, in order.
        let sorted = routes.summaries(rows: startOrder().map(\.row))
        sortedCache = sorted
        sortedCacheValid = true
        return sorted
    }

    /// Every route's start (ms) and id, sorted by start, then id.
    private func startOrder() -> [(start: Int64, id: RouteID, row: Int)] {
        var keys = routes.starts
        keys.sort { $0.start != $1.start ? $0.start < $1.start : $0.id < $1.id }
        return keys
    }
}
