import Foundation

extension RouteStore {
    /// Rewrites the live routes out of every segment but the newest into new segments,
    /// with a new index, and switches to them atomically; the old files are deleted once
    /// the switch is durable (format-spec.md, "Compaction"). Saves, loads and listing go
    /// on from other threads meanwhile; a save waits at most for the final switch.
    /// A crash at any point leaves either the old files or the new ones, never a mix.
    ///
    /// - Returns: bytes before and after, routes moved, time taken.
    /// - Throws: `.corrupted` when a live route's record is damaged (nothing is changed:
    ///   the damage is reported instead of silently dropping the route), `.io`.
    @discardableResult
    public func compact() throws -> CompactionReport {
        try core.withLock { try $0.checkWritable() }
        compaction.begin()
        defer { compaction.end() }
        return try runCompaction()
    }

    /// Starts a background compaction when the policy says the dead bytes are due.
    func compactIfDue() {
        guard case .automatic(let fraction, let minimum) = options.compaction, !compaction.isRunning else { return }
        let due = core.withLock { core -> Bool in
            let (total, live) = core.segmentByteCounts()
            let dead = total - live
            // Finished recordings still in chunks are live but larger than they will be
            // once merged: they are due on the same terms, so each byte of them is
            // rewritten a bounded number of times however many are recorded.
            let chunked = core.state.chunkedBytes
            return core.failure == nil
                && ((dead >= minimum && Double(dead) >= fraction * Double(total))
                    || (chunked >= minimum && Double(chunked) >= fraction * Double(total)))
        }
        guard due, compaction.tryBegin() else { return }
        DispatchQueue.global(qos: .utility).async { [self] in
            defer { compaction.end() }
            _ = try? runCompaction()
        }
    }

    private struct Snapshot {
        var compacted: [UInt32]
        var files: [UInt32: DurableFile]
        var routes: [(RouteID, IndexedRoute)]
        /// Unfinished recordings that start in a compacted segment.
        var recordings: [(RouteID, IndexedRecording)]
        var bytesBefore: Int64
    }

    private func runCompaction() throws -> CompactionReport {
        let started = Date()
        // 1. Seal: roll so that every segment but the new one is immutable, and take the
        //    live routes in those segments.
        let snapshot = try core.withLock { core -> Snapshot in
            try core.checkWritable()
            try core.roll()
            let compacted = Array(core.manifest.segments.dropLast())
            let sealed = Set(compacted)
            let order = Dictionary(uniqueKeysWithValues: compacted.enumerated().map { ($1, $0) })
            let routes = core.state.routes.filter { sealed.contains($0.value.location.segment) }
                .sorted { (order[$0.value.location.segment]!, $0.value.location.offset) < (order[$1.value.location.segment]!, $1.value.location.offset) }
            let recordings = core.state.recordings.filter { sealed.contains($0.value.start.segment) }
                .sorted { (order[$0.value.start.segment]!, $0.value.start.offset) < (order[$1.value.start.segment]!, $1.value.start.offset) }
            return Snapshot(compacted: compacted, files: core.segments.filter { sealed.contains($0.key) },
                            routes: routes, recordings: recordings, bytesBefore: core.fileBytes())
        }
        // 2. Copy, outside the lock: other threads save into the new segment meanwhile.
        var writer = CompactionWriter(store: self)
        var outputEvents: [LogEvent] = []
        do {
            for (id, route) in snapshot.routes {
                let file = snapshot.files[route.location.segment]!
                let frame: [UInt8]
                if route.recorded != nil {
                    frame = try Self.mergedRecordingFrame(id, route, files: snapshot.files)
                } else if route.editLocation == nil {
                    let copy = try Self.readRouteFrame(file, at: route.location, id: id)
                    // A route saved in a batch has "batch continues" in its frame (byte
                    // 13). Its copy must stand alone: the rest of its batch may be deleted
                    // or copied into the next segment, and a reader would take the copy
                    // for the start of an unfinished batch, a torn tail.
                    frame = copy[13] == 0 ? copy
                        : RecordFrame.encode(type: .routePut, payload: Array(copy[FormatConstants.recordHeaderSize...]))
                } else {
                    var record = try Self.readRouteRecord(file, at: route.location, id: id)
                    record.metadata = route.metadata
                    frame = RecordFrame.encode(type: .routePut, payload: record.payload())
                }
                let location = try writer.append(frame)
                outputEvents.append(.put(id, route.shape, route.metadata, location))
            }
            for (id, recording) in snapshot.recordings {
                outputEvents += try Self.copyUnfinishedRecording(id, recording, files: snapshot.files, into: &writer)
            }
            try writer.finishSegments()
        } catch {
            writer.abandon()
            throw error
        }
        // The new index's records for the copied routes, written and synced outside the
        // lock too; only the records of segments written since the roll wait for it.
        let indexNumber = writer.reserveNumber()
        let index: DurableFile
        let outputIndexBytes = outputEvents.flatMap { $0.indexRecord() }
        do {
            index = try core.withLock { try $0.createLogFile(kind: .index, number: indexNumber) }
            try index.write(outputIndexBytes, at: Int64(FormatConstants.fileHeaderSize))
            try index.syncData()
        } catch {
            writer.abandon()
            try? fileSystem.unlink(directory + "/" + FormatConstants.indexName(indexNumber))
            throw error
        }
        // 3. Switch, under the lock: index the segments written since the roll, then
        //    rewrite the manifest (the atomic step).
        let (report, obsolete) = try core.withLock { core -> (CompactionReport, [String]) in
            var switchAttempted = false
            do {
                try core.checkWritable()
                let tail = Array(core.manifest.segments.drop(while: { snapshot.compacted.contains($0) }))
                let tailEvents = try core.indexedEvents(of: tail)
                let tailBytes = tailEvents.flatMap { $0.indexRecord() }
                let indexEnd = Int64(FormatConstants.fileHeaderSize + outputIndexBytes.count)
                // Not synced here: the segments are the truth, and an index that lost
                // these last records is caught up from them at the next open.
                try index.write(tailBytes, at: indexEnd)
                var next = core.manifest
                next.generation += 1
                next.nextRouteID = max(next.nextRouteID, core.nextRouteID)
                next.indexFile = indexNumber
                next.segments = writer.segments + tail
                switchAttempted = true
                try next.write(in: core.directory, fileSystem: core.fileSystem)  // the switch

                let obsolete = snapshot.compacted.map { core.path(FormatConstants.segmentName($0)) }
                    + [core.path(FormatConstants.indexName(core.manifest.indexFile))]
                core.manifest = next
                for number in snapshot.compacted {
                    core.segments[number] = nil
                    core.segmentEnds[number] = nil
                }
                for (number, file) in writer.files { core.segments[number] = file }
                for (number, end) in writer.ends { core.segmentEnds[number] = end }
                core.index = index
                core.indexEnd = indexEnd + Int64(tailBytes.count)
                core.indexUnsynced = tailEvents.count
                core.indexBroken = false
                var state = StoreState()
                for event in outputEvents + tailEvents { state.apply(event) }
                core.state = state
                core.nextRouteID = max(core.nextRouteID, state.maxSeenID + 1)
                let report = CompactionReport(bytesBefore: snapshot.bytesBefore, bytesAfter: core.fileBytes(),
                                              routesMoved: snapshot.routes.count, segmentsCompacted: snapshot.compacted.count,
                                              duration: 0)
                return (report, obsolete)
            } catch let uncertain as Manifest.SwitchUncertain {
                // Old or new files may be live on disk: keep both and make the app reopen.
                core.failure = RouteLogError(.io, "a compaction could not make its switch durable; reopen the store to recover",
                                             path: core.directory, errno: uncertain.underlying.errno)
                throw uncertain.underlying
            } catch {
                if !switchAttempted {
                    writer.abandon()
                    try? core.fileSystem.unlink(index.path)
                }
                throw error
            }
        }
        // 4. The switch is durable: the old files are garbage. Removing them needs no lock
        //    (readers holding them open keep reading), and a crash here only leaves files
        //    the next open removes.
        for path in obsolete { try? fileSystem.unlink(path) }
        try? fileSystem.syncDirectory(directory)
        var result = report
        result.duration = Date().timeIntervalSince(started)
        return result
    }

    /// A finished recording as one RoutePut: its chunks' points in one point block,
    /// with its current metadata; the bytes a save of the same route writes.
    private static func mergedRecordingFrame(_ id: RouteID, _ route: IndexedRoute, files: [UInt32: DurableFile]) throws -> [UInt8] {
        let (finish, points) = try readRecordedRoute(id, RecordedRouteFiles(route: route, files: files))
        let record = RouteRecord(id: id, shape: finish.shape, metadata: route.metadata, splits: finish.layout.splits,
                                 segmentStarts: finish.layout.segmentStarts,
                                 pointBlock: RouteCodec.encodePoints(points)[...])
        let payload = record.payload()
        guard payload.count <= FormatConstants.maxPayloadLength else {
            throw RouteLogError.invalid("route \(id) would encode to \(payload.count) bytes as one record, past the 64 MiB limit")
        }
        return RecordFrame.encode(type: .routePut, payload: payload)
    }

    /// Copies an unfinished recording's start and its chunks in compacted segments
    /// (checked, unchanged) and returns their events at the new locations.
    private static func copyUnfinishedRecording(_ id: RouteID, _ recording: IndexedRecording, files: [UInt32: DurableFile],
                                                into writer: inout CompactionWriter) throws -> [LogEvent] {
        let startFile = files[recording.start.segment]!
        let start = try readPayload(startFile, at: recording.start, type: .recordingStart, what: "recording \(id)'s start")
        var events: [LogEvent] = [.recordingStart(id, startedMs: recording.startedMs, recording.metadata,
                                                  try writer.append(RecordFrame.encode(type: .recordingStart, payload: start)))]
        for chunk in recording.chunks {
            guard let file = files[chunk.location.segment] else { continue }  // written after the roll: stays where it is
            let payload = try readPayload(file, at: chunk.location, type: .recordingChunk, what: "recording \(id)'s chunk")
            let location = try writer.append(RecordFrame.encode(type: .recordingChunk, payload: payload))
            events.append(.recordingChunk(id, firstPoint: chunk.firstPoint, pointCount: chunk.pointCount, location))
        }
        return events
    }
}

/// The new segments a compaction writes, rolled at the store's size limit. Their
/// numbers are taken from the manifest's counter as they are needed, so they never
/// clash with a segment the writer rolls meanwhile.
struct CompactionWriter {
    let store: RouteStore
    var segments: [UInt32] = []
    var files: [UInt32: DurableFile] = [:]
    var ends: [UInt32: Int64] = [:]

    init(store: RouteStore) { self.store = store }

    mutating func reserveNumber() -> UInt32 {
        let number = store.core.withLock { core -> UInt32 in
            let n = core.manifest.nextFileNumber
            core.manifest.nextFileNumber += 1
            return n
        }
        return number
    }

    mutating func append(_ frame: [UInt8]) throws -> RecordLocation {
        let header = Int64(FormatConstants.fileHeaderSize)
        if segments.isEmpty || (ends[segments.last!]! > header && ends[segments.last!]! + Int64(frame.count) > Int64(store.options.segmentSizeLimit)) {
            let number = reserveNumber()
            let file = try store.core.withLock { try $0.createLogFile(kind: .segment, number: number) }
            segments.append(number)
            files[number] = file
            ends[number] = header
        }
        let number = segments.last!
        let offset = ends[number]!
        try files[number]!.write(frame, at: offset)
        ends[number] = offset + Int64(frame.count)
        return RecordLocation(segment: number, offset: offset, length: frame.count)
    }

    /// Makes every new segment durable; a compaction with no live routes still needs one
    /// segment to stand first in the manifest's list only if the tail is empty, which it
    /// never is (the roll made one).
    func finishSegments() throws {
        for number in segments { try files[number]!.syncData() }
    }

    /// Removes what was written, after a failure before the switch.
    func abandon() {
        for number in segments { try? store.fileSystem.unlink(files[number]!.path) }
    }
}

extension StoreCore {
    /// Bytes of the live segments and the index.
    func fileBytes() -> Int64 {
        let segmentsBytes = segmentEnds.values.reduce(0, +)
        return segmentsBytes + indexEnd
    }

    /// (all record bytes, live record bytes) over the live segments, headers excluded.
    func segmentByteCounts() -> (total: Int64, live: Int64) {
        let header = Int64(FormatConstants.fileHeaderSize)
        let total = segmentEnds.values.reduce(0) { $0 + $1 - header }
        let live = manifest.segments.reduce(0) { $0 + (state.liveBytes[$1] ?? 0) }
        return (total, live)
    }

    /// The events of every record in `segments`, read from the files.
    func indexedEvents(of segments: [UInt32]) throws -> [LogEvent] {
        var events: [LogEvent] = []
        for number in segments {
            var scanner = LogScanner(file: self.segments[number]!, from: Int64(FormatConstants.fileHeaderSize),
                                     fileSize: segmentEnds[number]!)
            while let record = try scanner.next() {
                if let event = try? LogEvent.fromSegment(record, segment: number) { events.append(event) }
            }
        }
        return events
    }
}
