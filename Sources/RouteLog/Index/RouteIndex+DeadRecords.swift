extension RouteIndex {
    /// Whether replaying `event` in its place in the log, before the records this index
    /// holds after it, leaves the state this index describes: true only for the records
    /// an index rewritten from the live state leaves out (format-spec.md, "Index
    /// records"), so that a segment ending in such a record does not make the index look
    /// ahead of the log. `position` gives a segment's place in replay order.
    ///
    /// - An edit superseded by a later edit of its route, or of a route deleted (its
    ///   tombstone), or of a route whose records compaction has reclaimed (no trace).
    /// - A delete or discard whose route has no trace: the record that made the id is
    ///   gone, so the tombstone was dropped with it.
    /// - A chunk of a recording that was discarded or deleted, or has no trace.
    ///
    /// Anything else (a put, a recording's start or finish, an edit newer than the
    /// index's, a delete of a route the index holds) changes the state, and the segments
    /// must be replayed.
    func replaysToNothing(_ event: LogEvent, position: (UInt32) -> Int?) -> Bool {
        let id = event.id
        let traced = routes.contains(id) || recordings[id] != nil
        switch event {
        case .edit(_, _, let location):
            if let later = routes.locations(id)?.edit {
                guard let here = position(location.segment), let there = position(later.segment) else { return false }
                return (here, location.offset) < (there, later.offset)
            }
            return !traced
        case .delete, .recordingDiscard:
            return !traced && tombstones[id] == nil
        case .recordingChunk:
            return !traced
        case .put, .recordingStart, .recordingFinish:
            return false
        }
    }
}
