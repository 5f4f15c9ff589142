/// A RouteDelete or RecordingDiscard whose target is still on disk: while the record
/// that made the id (its RoutePut or RecordingStart) is in a segment, the records that
/// end it must stay too, or replaying the log would bring it back. Compaction drops a
/// tombstone once it rewrites the segment holding that first record.
struct Tombstone: Sendable, Equatable {
    /// The events that re-create this tombstone when replayed, in log order: the
    /// record that made the id first, the delete or discard last (and, for a recorded
    /// route, its RecordingFinish between: without it the recording would replay as
    /// unfinished).
    let events: [LogEvent]

    /// A route deleted by the RouteDelete at `location`.
    init(deleting id: RouteID, _ route: IndexedRoute, at location: RecordLocation) {
        if let recording = route.recorded {
            events = [.recordingStart(id, startedMs: recording.startedMs, recording.metadata, recording.start),
                      .recordingFinish(id, route.shape, route.metadata, route.location),
                      .delete(id, location)]
        } else {
            events = [.put(id, route.shape, route.metadata, route.location), .delete(id, location)]
        }
    }

    /// A recording discarded by the RecordingDiscard at `location`.
    init(discarding id: RouteID, _ recording: IndexedRecording, at location: RecordLocation) {
        events = [.recordingStart(id, startedMs: recording.startedMs, recording.metadata, recording.start),
                  .recordingDiscard(id, location)]
    }

    init(events: [LogEvent]) { self.events = events }

    /// The record that made the id: while it is on disk, this tombstone is needed.
    var creator: RecordLocation { events[0].location }
    /// The records that must stay while the creator is there (the creator itself is
    /// dead: compaction reclaims it with its segment).
    var liveLocations: [RecordLocation] { events.dropFirst().map(\.location) }
    var isDiscard: Bool { if case .recordingDiscard = events.last { return true } else { return false } }
}
