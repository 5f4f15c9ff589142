extension RouteIndex {
    /// Events that rebuild this index from nothing: every live route's put (or a
    /// recorded route's start, chunks and finish) and latest edit, every unfinished
    /// recording's start and chunks, and every tombstone's events, in replay order (`segmentOrder` lists the live
    /// segments in manifest order). What a rebuilt index file holds.
    /// How many records outside runs an index rewritten from this one holds (its
    /// ``liveEvents(segmentOrder:)`` through ``IndexFile/records(_:)``): every event
    /// but a put, and each put with no other put beside it in replay order (or left
    /// alone at the end of a full run). Read from the locations, nothing decoded.
    func recordsOutsideRuns(segmentOrder: [UInt32]) -> Int {
        let order = Dictionary(uniqueKeysWithValues: segmentOrder.enumerated().map { ($1, $0) })
        var records: [(segment: Int, offset: Int64, isPut: Bool)] = []
        records.reserveCapacity(routes.count + routes.extrasCount + tombstones.count * 2)
        func add(_ location: RecordLocation, isPut: Bool) {
            records.append((order[location.segment] ?? 0, location.offset, isPut))
        }
        func add(_ recording: IndexedRecording) {
            add(recording.start, isPut: false)
            for chunk in recording.chunks { add(chunk.location, isPut: false) }
        }
        routes.forEachLocation { location, edit, recorded in
            if let recorded { add(recorded) }
            add(location, isPut: recorded == nil)
            if let edit { add(edit, isPut: false) }
        }
        for recording in recordings.values { add(recording) }
        for tombstone in tombstones.values {
            for event in tombstone.events {
                if case .put = event { add(event.location, isPut: true) } else { add(event.location, isPut: false) }
            }
        }
        records.sort { ($0.segment, $0.offset) < ($1.segment, $1.offset) }
        var outside = 0, puts = 0
        for record in records {
            if record.isPut {
                puts += 1
            } else {
                if puts % FormatConstants.maxIndexPutRunEntries == 1 { outside += 1 }
                puts = 0
                outside += 1
            }
        }
        if puts % FormatConstants.maxIndexPutRunEntries == 1 { outside += 1 }
        return outside
    }

    func liveEvents(segmentOrder: [UInt32]) -> [LogEvent] {
        var events: [LogEvent] = []
        func recordingEvents(_ id: RouteID, _ recording: IndexedRecording) {
            events.append(.recordingStart(id, startedMs: recording.startedMs, recording.metadata, recording.start))
            for chunk in recording.chunks {
                events.append(.recordingChunk(id, firstPoint: chunk.firstPoint, pointCount: chunk.pointCount, chunk.location))
            }
        }
        for (id, route) in routes {
            if let recording = route.recorded {
                recordingEvents(id, recording)
                events.append(.recordingFinish(id, route.shape, route.metadata, route.location))
            } else {
                events.append(.put(id, route.shape, route.metadata, route.location))
            }
            if let edit = route.editLocation { events.append(.edit(id, route.metadata, edit)) }
        }
        for (id, recording) in recordings { recordingEvents(id, recording) }
        for tombstone in tombstones.values { events += tombstone.events }
        return Self.sortedInReplayOrder(events, segmentOrder: segmentOrder)
    }

    static func sortedInReplayOrder(_ events: [LogEvent], segmentOrder: [UInt32]) -> [LogEvent] {
        let order = Dictionary(uniqueKeysWithValues: segmentOrder.enumerated().map { ($1, $0) })
        return events.sorted {
            (order[$0.location.segment] ?? 0, $0.location.offset) < (order[$1.location.segment] ?? 0, $1.location.offset)
        }
    }
}
