/// One record a change will append: its type and payload, and the event it becomes
/// once its location is known.
struct PreparedRecord: Sendable {
    let type: FormatConstants.RecordType
    let payload: [UInt8]
    let event: @Sendable (RecordLocation) -> LogEvent
    /// The event's metadata exactly as `payload` holds it, when the change has it at
    /// hand (a save): the indexes take these bytes instead of writing the metadata again.
    var encodedMetadata: ArraySlice<UInt8>? = nil
}

/// What a change is checked against when its turn comes in the writer: the committed
/// index plus the changes of the same group prepared before it, the next route id, and
/// the recordings a recorder of this handle is appending to.
struct WriteView {
    /// Reads the committed entry of an id (under the state lock, for an instant).
    private let committed: (RouteID) -> (IndexedRoute?, IndexedRecording?)
    /// The entries this group has touched, with its changes applied: the same replay
    /// rules as the store's index, on a scratch index of a few entries.
    private var scratch = RouteIndex()
    private var seeded: Set<RouteID> = []
    private(set) var nextRouteID: UInt64
    private(set) var attachedRecordings: Set<RouteID>

    init(nextRouteID: UInt64, attachedRecordings: Set<RouteID>,
         committed: @escaping (RouteID) -> (IndexedRoute?, IndexedRecording?)) {
        self.nextRouteID = nextRouteID
        self.attachedRecordings = attachedRecordings
        self.committed = committed
    }

    private mutating func seed(_ id: RouteID) {
        guard seeded.insert(id).inserted else { return }
        let (route, recording) = committed(id)
        scratch.seed(id, route: route, recording: recording)
    }

    mutating func route(_ id: RouteID) -> IndexedRoute? {
        seed(id)
        return scratch.routes[id]
    }

    mutating func recording(_ id: RouteID) -> IndexedRecording? {
        seed(id)
        return scratch.recordings[id]
    }

    /// `count` new ids, consecutive, never used before. A writer gives out ids below
    /// 2^62 only, so that the next one (at most 2^62) is a next route id a MANIFEST may
    /// hold; an id of 2^62 comes only from a forged log, and leaves none to give.
    /// - Throws: `.invalidArgument` once the ids are used up (nothing is written).
    mutating func allocateIDs(_ count: Int) throws -> UInt64 {
        guard nextRouteID <= FormatConstants.maxRouteID - UInt64(count) else {
            throw RouteLogError.invalid("the store has given out every route id below 2^62 (the next would be \(nextRouteID)); nothing was written")
        }
        defer { nextRouteID += UInt64(count) }
        return nextRouteID
    }

    mutating func attach(_ id: RouteID) { attachedRecordings.insert(id) }
    mutating func detach(_ id: RouteID) { attachedRecordings.remove(id) }

    /// Takes a prepared change into the view, so later changes of the group see it.
    mutating func apply(_ records: [PreparedRecord]) {
        for record in records {
            let event = record.event(.pending)
            seed(event.id)
            scratch.apply(event, encodedMetadata: record.encodedMetadata)
        }
    }
}

extension RecordLocation {
    /// The location of a record not written yet (only a writer's scratch index sees it).
    static let pending = RecordLocation(segment: 0, offset: 0, length: FormatConstants.recordHeaderSize)
}

/// A value a change's `prepare` works out for its caller (the leader runs `prepare` on
/// its own thread while the caller waits for the result, which orders the two).
final class PreparedValue<Value>: @unchecked Sendable {
    var value: Value?
}
