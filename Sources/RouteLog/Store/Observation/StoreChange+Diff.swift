extension StoreChange {
    /// What changed between two states of a store read from its files, when the records
    /// in between cannot be read in order (a compaction replaced the files). The order
    /// is by kind, then by id: recordings started, flushed, finished and discarded,
    /// then routes saved, edited and deleted.
    static func between(_ old: RouteIndex, _ new: RouteIndex) -> [StoreChange] {
        var started: [RouteID] = [], flushed: [RouteID] = [], finished: [RouteID] = [], discarded: [RouteID] = []
        var saved: [RouteID] = [], edited: [RouteID] = [], deleted: [RouteID] = []
        for (id, recording) in new.recordings {
            if let before = old.recordings[id] {
                if before.pointCount != recording.pointCount { flushed.append(id) }
            } else if !old.routes.contains(id) {
                started.append(id)
                if recording.pointCount > 0 { flushed.append(id) }
            }
        }
        for id in old.recordings.keys where new.recordings[id] == nil {
            if new.routes.contains(id) { finished.append(id) } else { discarded.append(id) }
        }
        for id in new.routes.ids {
            if old.routes.contains(id) {
                if !new.routes.sameMetadata(id, in: old.routes) { edited.append(id) }
            } else if old.recordings[id] == nil {
                saved.append(id)
            }
        }
        for id in old.routes.ids where !new.routes.contains(id) { deleted.append(id) }
        let kinds: [(RouteID) -> StoreChange] = [
            StoreChange.recordingStarted, StoreChange.recordingFlushed, StoreChange.recordingFinished,
            StoreChange.recordingDiscarded, StoreChange.saved, StoreChange.edited, StoreChange.deleted,
        ]
        return zip(kinds, [started, flushed, finished, discarded, saved, edited, deleted]).flatMap { make, ids in
            ids.sorted().map(make)
        }
    }
}
