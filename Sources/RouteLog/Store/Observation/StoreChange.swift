/// One committed change of a store, as ``RouteStore/changes`` delivers it: after the
/// change is durable (as the store's durability option says), in commit order.
public enum StoreChange: Sendable, Hashable {
    /// A route was saved (a batch save gives one change per route, in id order).
    case saved(RouteID)
    /// A route was deleted.
    case deleted(RouteID)
    /// A route's metadata was edited.
    case edited(RouteID)
    /// A recording began; its id is the id its route will have.
    case recordingStarted(RouteID)
    /// Points of a recording were flushed to the store.
    case recordingFlushed(RouteID)
    /// A recording was finished: it is now route `id`.
    case recordingFinished(RouteID)
    /// An unfinished recording was discarded.
    case recordingDiscarded(RouteID)
    /// A compaction finished and switched the store to its new files. Nothing a
    /// reader sees changed, but the files did.
    case compacted

    /// The route or recording the change is about; nil for ``compacted``.
    public var routeID: RouteID? {
        switch self {
        case .saved(let id), .deleted(let id), .edited(let id), .recordingStarted(let id),
             .recordingFlushed(let id), .recordingFinished(let id), .recordingDiscarded(let id):
            return id
        case .compacted:
            return nil
        }
    }

    /// The changes of one commit's events, in order; the chunks of one recording in a
    /// row are one flush.
    static func of(_ events: [LogEvent]) -> [StoreChange] {
        var changes: [StoreChange] = []
        for event in events {
            let change: StoreChange
            switch event {
            case .put(let id, _, _, _): change = .saved(id)
            case .delete(let id, _): change = .deleted(id)
            case .edit(let id, _, _): change = .edited(id)
            case .recordingStart(let id, _, _, _): change = .recordingStarted(id)
            case .recordingChunk(let id, _, _, _): change = .recordingFlushed(id)
            case .recordingFinish(let id, _, _, _): change = .recordingFinished(id)
            case .recordingDiscard(let id, _): change = .recordingDiscarded(id)
            }
            if change == changes.last, case .recordingFlushed = change { continue }
            changes.append(change)
        }
        return changes
    }
}
