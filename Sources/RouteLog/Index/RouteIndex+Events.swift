extension RouteIndex {
    /// Events that rebuild this index from nothing: every live route's put (or a
    /// recorded route's start, chunks and finish) and latest edit, every unfinished
    /// recording's start and chunks, and every tombstone's events, in replay order (`segmentOrder` lists the live
    /// segments in manifest order). What a rebuilt index file holds.
    /// About how many records a rewritten index holds outside runs: each edit, each
    /// recording's start, chunks and finish, each delete with the put it follows.
    var recordsOutsideRuns: Int {
        routes.extrasCount + recordings.values.reduce(0) { $0 + 1 + $1.chunks.count } + tombstones.count * 2
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
