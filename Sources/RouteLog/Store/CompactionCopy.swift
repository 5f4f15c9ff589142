/// The live records of the segments a compaction rewrites, checked and then copied
/// into new segments in replay order (docs/recovery-and-compaction.md, "Compaction"):
/// RoutePuts and latest edits, recordings' records, and tombstones whose target is
/// still on disk. A finished recording whose records are all rewritten becomes one
/// RoutePut, the bytes a save of the same route writes.
struct CompactionCopy {
    /// One thing to write, placed at `location`'s place in replay order.
    enum Item {
        case record(RecordLocation, FormatConstants.RecordType, RouteID)
        /// A finished recording merged into one RoutePut, at its RecordingFinish's place.
        case merged(RouteID, IndexedRoute)

        var location: RecordLocation {
            switch self {
            case .record(let location, _, _): return location
            case .merged(_, let route): return route.location
            }
        }
    }

    let index: RouteIndex
    let segments: SegmentSet
    let rewritten: Set<UInt32>
    /// Where each copied record went.
    private(set) var moved: [RecordLocation: RecordLocation] = [:]
    /// Where each merged recording's RoutePut went.
    private(set) var merged: [RouteID: RecordLocation] = [:]
    /// The metadata of each merged recording's RoutePut: the recording's, with the
    /// derived fields (stats, grid cells, preview) a save computes, made here from the
    /// whole route, which a recording never holds at once before.
    private var mergedMetadata: [RouteID: StoredMetadata] = [:]
    /// Merged recordings whose latest edit was written anew with the merged metadata:
    /// an edit carries the derived fields of the route's metadata, which the recording's
    /// edit was made without (copied as it was, it would take them away again on replay).
    private var editsWrittenAnew: Set<RouteID> = []

    /// Ids that may have lost the record that made them known to damage (the
    /// manifest's note, ``StoreSettings/lostIDs``): ``checkRewritten()`` keeps their
    /// records that the index has no trace of.
    let lostIDs: LostIDs?

    init(index: RouteIndex, segments: SegmentSet, rewritten: Set<UInt32>, lostIDs: LostIDs? = nil) {
        self.index = index
        self.segments = segments
        self.rewritten = rewritten
        self.lostIDs = lostIDs
    }

    private func inRewritten(_ location: RecordLocation) -> Bool { rewritten.contains(location.segment) }

    /// Everything to write for the rewritten segments, in replay order.
    func items() -> [Item] {
        var items: [Item] = []
        func add(_ location: RecordLocation, _ type: FormatConstants.RecordType, _ id: RouteID) {
            if inRewritten(location) { items.append(.record(location, type, id)) }
        }
        for (id, route) in index.routes {
            if let recording = route.recorded {
                if (recording.locations + [route.location]).allSatisfy(inRewritten) {
                    items.append(.merged(id, route))
                } else {
                    add(recording.start, .recordingStart, id)
                    for chunk in recording.chunks { add(chunk.location, .recordingChunk, id) }
                    add(route.location, .recordingFinish, id)
                }
            } else {
                add(route.location, .routePut, id)
            }
            if let edit = route.editLocation { add(edit, .metadataEdit, id) }
        }
        for (id, recording) in index.recordings {
            add(recording.start, .recordingStart, id)
            for chunk in recording.chunks { add(chunk.location, .recordingChunk, id) }
        }
        for (id, tombstone) in index.tombstones where !inRewritten(tombstone.creator) {
            for event in tombstone.events.dropFirst() { add(event.location, Self.type(of: event), id) }
        }
        return items.sorted { order($0.location) < order($1.location) }
    }

    private func order(_ location: RecordLocation) -> (Int, Int64) {
        (segments.position(of: location.segment) ?? Int.max, location.offset)
    }

    /// The segments among `items` holding a record that does not read back whole, or
    /// that holds another id than the index says: a compaction keeps them as found
    /// instead of dropping what it cannot copy, or copying one route's record as
    /// another's (and dropping the other's as dead).
    func damagedSegments(_ items: [Item]) -> Set<UInt32> {
        var damaged = Set<UInt32>()
        let reader = RecordReader(segments: segments)
        for item in items {
            switch item {
            case .record(let location, let type, let id):
                let payload = try? segments.read(at: location, type: type, what: "route \(id)")
                if payload.flatMap(Self.id(of:)) != id.rawValue { damaged.insert(location.segment) }
            case .merged(let id, let route):
                if (try? reader.recordedRoute(id, route)) == nil {
                    for part in route.recorded!.locations + [route.location] { damaged.insert(part.segment) }
                }
            }
        }
        return damaged
    }

    /// What reading the rewritten segments whole found (``checkRewritten()``).
    struct RewrittenCheck {
        /// Segments holding a record the index does not account for: kept as found.
        var unaccounted = Set<UInt32>()
        /// Bytes that are no valid record, per segment: kept in `lost/` before the
        /// segment goes.
        var damage: [UInt32: [DamagedRange]] = [:]
        /// Segments holding a RecordingChunk or MetadataEdit of an id the index has no
        /// trace of, which nothing says was lost (no damage here, and the id is not
        /// among the lost ids): dropped as dead with their segment unless the compaction
        /// finds damage no manifest noted (``Compactor``).
        var orphansDropped = Set<UInt32>()
    }

    /// Reads every record of the rewritten segments (with its checksum), to the end of
    /// each file.
    ///
    /// A segment holding a record the index does not account for, which a replay of the
    /// segments keeps, is kept as found rather than have the record dropped as dead (a
    /// route lost, a deleted one back, an edit lost): a RoutePut, RecordingStart or
    /// RecordingFinish of an id of which the index has no live route, no unfinished
    /// recording and no tombstone; a RouteDelete or RecordingDiscard of a route or
    /// recording the index holds live from before it; a MetadataEdit of a route whose
    /// latest edit the index places before it. None is possible in a log whose index is
    /// its own (ids are never used again); a forged or damaged index file has them.
    ///
    /// A RecordingChunk or MetadataEdit of an id the index has no trace of (no route,
    /// recording or tombstone) is dead when its recording or route was deleted and
    /// compacted away, but holds acknowledged points or metadata when the record that
    /// made its id known (a RecordingStart, a RoutePut) was lost to damage the index did
    /// not reach. Such damage may have left the segments since (a compaction that
    /// rewrote its segment copied it into `lost/`), and the record's segment may be
    /// rewritten sessions later; so a segment holding such a record is kept as found
    /// when its id is among the lost ids (the manifest's note of the ids without a
    /// trace when damage was found), or when the segments read here hold damage, and
    /// so is every rewritten segment holding damage, which keeps saying that a record
    /// was lost. The others are ``RewrittenCheck/orphansDropped``.
    ///
    /// Bytes that are no valid record (damage, or a damaged last record) are noted: once
    /// an index was rebuilt, nothing says what such bytes held, so the compaction keeps a
    /// copy of them in `lost/` before it removes their segment. (Damage in a record the
    /// index locates keeps its segment as found: ``damagedSegments(_:)``.)
    func checkRewritten() -> RewrittenCheck {
        func order(_ location: RecordLocation) -> (Int, Int64) { self.order(location) }
        var check = RewrittenCheck()
        /// Segments holding records of ids with no trace, and whether one of those ids
        /// is among the lost ids.
        var orphans: [UInt32: Bool] = [:]
        func orphan(_ id: RouteID, in number: UInt32) {
            orphans[number] = orphans[number] == true || lostIDs?.contains(id.rawValue) == true
        }
        func isKnown(_ id: RouteID) -> Bool {
            index.routes.contains(id) || index.recordings[id] != nil || index.tombstones[id] != nil
        }
        for number in rewritten {
            guard let segment = segments.segment(number) else { continue }
            do {
                let file = try segment.file
                var scanner = LogScanner(file: file, from: Int64(FormatConstants.fileHeaderSize),
                                         fileSize: max(segment.end, try file.size()), version: segment.version)
                var damage: [DamagedRange] = []
                if segment.handle.headerDamaged {
                    damage.append(DamagedRange(path: segment.path, offset: 0, length: Int64(FormatConstants.fileHeaderSize)))
                }
                while let record = try scanner.next() {
                    // Read as a replay reads it: a record of a type this version does not
                    // know is nothing a replay keeps; one that passes its checksum but
                    // makes no sense is damage (the open reports it), kept as such.
                    let read: LogEvent?
                    do {
                        read = try LogEvent.fromSegment(record, segment: number)
                    } catch {
                        damage.append(DamagedRange(path: segment.path, offset: record.offset, length: Int64(record.frameLength)))
                        continue
                    }
                    guard let event = read else { continue }
                    let id = event.id, here = order(event.location)
                    let accounted: Bool
                    switch event {
                    case .put, .recordingStart, .recordingFinish:
                        accounted = index.routes.contains(id) || index.recordings[id] != nil || index.tombstones[id] != nil
                    case .delete:
                        accounted = index.routes.location(id).map { order($0) > here } ?? true
                    case .edit:
                        accounted = index.routes.locations(id).map { order($0.location) > here || $0.edit.map { order($0) >= here } == true } ?? true
                        if !isKnown(id) { orphan(id, in: number) }
                    case .recordingDiscard:
                        accounted = index.recordings[id].map { order($0.start) > here } ?? true
                    case .recordingChunk:
                        accounted = true
                        if !isKnown(id) { orphan(id, in: number) }
                    }
                    if !accounted {
                        check.unaccounted.insert(number)
                        break
                    }
                }
                damage += scanner.damage
                if scanner.tailLength > 0 {
                    damage.append(DamagedRange(path: segment.path, offset: scanner.validEnd, length: scanner.tailLength))
                }
                if !damage.isEmpty { check.damage[number] = DamagedRange.merged(damage) }
            } catch {
                check.unaccounted.insert(number)
            }
        }
        let kept = orphans.filter { !check.damage.isEmpty || $0.value }.keys
        if !kept.isEmpty {
            check.unaccounted.formUnion(kept)
            check.unaccounted.formUnion(check.damage.keys)
        }
        check.orphansDropped = Set(orphans.keys).subtracting(kept)
        return check
    }

    /// The ids of the RecordingChunks and MetadataEdits in the live segments (each up
    /// to its end) that the index has no trace of: what a replay of the whole log would
    /// note as lost ids (``RouteIndex/untracedIDs``). Reads every segment.
    func untracedIDs() -> LostIDs {
        var ids = Set<UInt64>()
        for segment in segments.segments {
            guard let file = try? segment.file else { continue }
            var scanner = LogScanner(file: file, from: Int64(FormatConstants.fileHeaderSize), fileSize: segment.end,
                                     version: segment.version)
            while let record = try? scanner.next() {
                guard let event = try? LogEvent.fromSegment(record, segment: segment.number) else { continue }
                switch event {
                case .recordingChunk(let id, _, _, _), .edit(let id, _, _):
                    if !index.routes.contains(id) && index.recordings[id] == nil && index.tombstones[id] == nil {
                        ids.insert(id.rawValue)
                    }
                default:
                    break
                }
            }
        }
        return LostIDs(ids)
    }

    /// True when `segment` holds bytes that are no valid record up to `end` (a damaged
    /// header, damage, a record that passes its checksum but makes no sense, a tail), or
    /// cannot be read: what ``checkRewritten()`` keeps in `lost/`, looked for in a
    /// segment no compaction is rewriting.
    static func holdsDamage(_ segment: LogSegment, to end: Int64) -> Bool {
        guard !segment.handle.headerDamaged, let file = try? segment.file else { return true }
        var scanner = LogScanner(file: file, from: Int64(FormatConstants.fileHeaderSize), fileSize: end, version: segment.version)
        do {
            while let record = try scanner.next() {
                _ = try LogEvent.fromSegment(record, segment: segment.number)
            }
        } catch {
            return true
        }
        return !scanner.damage.isEmpty || scanner.tailLength > 0
    }

    /// The id a segment record's payload starts with (every type's does).
    private static func id(of payload: ArraySlice<UInt8>) -> UInt64? {
        guard payload.count >= 8 else { return nil }
        return payload.withUnsafeBytes { $0.u64(at: 0) }
    }

    /// Writes `items` (one run's) into `output`, starting a new segment for the run; a
    /// run with nothing live gets no segment (an empty one would be listed for good,
    /// since nothing in it is ever dead).
    mutating func copy(_ items: [Item], into output: inout CompactionOutput, checkCancelled: () throws -> Void) throws {
        guard !items.isEmpty else { return }
        try output.startSegment()
        let reader = RecordReader(segments: segments)
        for (n, item) in items.enumerated() {
            if n % 256 == 0 { try checkCancelled() }
            switch item {
            case .record(let location, let type, let id):
                let frame = try reader.frame(at: location, type: type, what: "route \(id)")
                if type == .metadataEdit, let metadata = mergedMetadata[id] {
                    // Read above all the same: a damaged edit keeps its segment as found.
                    let payload = MetadataEditRecord(id: id, metadata: metadata).payload()
                    moved[location] = try output.append(RecordFrame.encode(type: .metadataEdit, payload: payload))
                    editsWrittenAnew.insert(id)
                    continue
                }
                moved[location] = try output.append(frame)
            case .merged(let id, let route):
                let (finish, points) = try reader.recordedRoute(id, route)
                var metadata = route.metadata
                if metadata.derived.isEmpty, let columns = try? PointColumns(points, validating: false, measuring: finish.layout.segmentStarts) {
                    metadata.derived = DerivedFields(points: points, columns: columns, segmentStarts: finish.layout.segmentStarts)
                }
                mergedMetadata[id] = metadata
                let record = RouteRecord(id: id, shape: finish.shape, metadata: metadata, splits: finish.layout.splits,
                                         segmentStarts: finish.layout.segmentStarts,
                                         pointBlock: RouteCodec.encodePoints(points)[...])
                let payload = record.payload()
                guard RecordFrame.fitsOnceEscaped(size: payload.count, payload: { payload }) else {
                    throw RouteLogError.invalid("route \(id) would encode to \(RecordFrame.storedSize(of: payload)) bytes as one record, past the 64 MiB limit")
                }
                merged[id] = try output.append(RecordFrame.encode(type: .routePut, payload: payload))
            }
        }
    }

    /// The index events of the copied state: the snapshot's live events with every
    /// record in a rewritten segment at its new place, merged recordings as RoutePuts,
    /// and tombstones whose target went with its segment left out.
    func remappedEvents() throws -> [LogEvent] {
        func remap(_ location: RecordLocation) throws -> RecordLocation {
            guard inRewritten(location) else { return location }
            guard let new = moved[location] else {
                throw RouteLogError.corrupted("compaction did not copy a live record it should have", path: segments.segment(location.segment)?.path ?? "", offset: location.offset)
            }
            return new
        }
        var events: [LogEvent] = []
        for (id, route) in index.routes {
            if let at = merged[id] {
                events.append(.put(id, route.shape, mergedMetadata[id] ?? route.metadata, at))
            } else if let recording = route.recorded {
                events.append(.recordingStart(id, startedMs: recording.startedMs, recording.metadata, try remap(recording.start)))
                for chunk in recording.chunks {
                    events.append(.recordingChunk(id, firstPoint: chunk.firstPoint, pointCount: chunk.pointCount, try remap(chunk.location)))
                }
                events.append(.recordingFinish(id, route.shape, route.metadata, try remap(route.location)))
            } else {
                events.append(.put(id, route.shape, route.metadata, try remap(route.location)))
            }
            if let edit = route.editLocation {
                let metadata = editsWrittenAnew.contains(id) ? mergedMetadata[id] ?? route.metadata : route.metadata
                events.append(.edit(id, metadata, try remap(edit)))
            }
        }
        for (id, recording) in index.recordings {
            events.append(.recordingStart(id, startedMs: recording.startedMs, recording.metadata, try remap(recording.start)))
            for chunk in recording.chunks {
                events.append(.recordingChunk(id, firstPoint: chunk.firstPoint, pointCount: chunk.pointCount, try remap(chunk.location)))
            }
        }
        for tombstone in index.tombstones.values where !inRewritten(tombstone.creator) {
            for event in tombstone.events { events.append(event.relocated(try remap(event.location))) }
        }
        return events
    }

    static func type(of event: LogEvent) -> FormatConstants.RecordType {
        switch event {
        case .put: return .routePut
        case .delete: return .routeDelete
        case .edit: return .metadataEdit
        case .recordingStart: return .recordingStart
        case .recordingChunk: return .recordingChunk
        case .recordingFinish: return .recordingFinish
        case .recordingDiscard: return .recordingDiscard
        }
    }
}

extension LogEvent {
    /// The same event for its record at `location`.
    func relocated(_ location: RecordLocation) -> LogEvent {
        switch self {
        case .put(let id, let shape, let metadata, _): return .put(id, shape, metadata, location)
        case .delete(let id, _): return .delete(id, location)
        case .edit(let id, let metadata, _): return .edit(id, metadata, location)
        case .recordingStart(let id, let startedMs, let metadata, _): return .recordingStart(id, startedMs: startedMs, metadata, location)
        case .recordingChunk(let id, let first, let count, _): return .recordingChunk(id, firstPoint: first, pointCount: count, location)
        case .recordingFinish(let id, let shape, let metadata, _): return .recordingFinish(id, shape, metadata, location)
        case .recordingDiscard(let id, _): return .recordingDiscard(id, location)
        }
    }
}
