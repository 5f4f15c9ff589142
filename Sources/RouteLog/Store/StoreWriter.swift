import Foundation

/// The writer's state, behind the store's writer lock: the segment log it appends to,
/// the index file, the manifest, the next route id, and the recordings a recorder of
/// this handle is appending to. The lock is held across a group's write and sync.
struct StoreWriter: Sendable {
    var log: SegmentLog
    var index: IndexFile
    var manifest: ManifestWriter
    var nextRouteID: UInt64
    var attachedRecordings: Set<RouteID> = []
    var closed = false
    /// Write groups and changes written (for statistics: changes per sync).
    var groups = 0
    var changes = 0
    /// Records of buffered changes appended since the last sync of the active segment:
    /// they are synced once ``IndexFile/syncInterval`` have piled up, whether or not the
    /// index file (which holds their records until then) still works.
    private(set) var bufferedSinceSync = 0
    let options: RouteStore.Options

    var files: LogFiles { manifest.files }

    /// Set when a write, sync or switch failed in a way that leaves the files' state
    /// unknown: every later change fails with it until the store is opened again.
    var failure: RouteLogError? { log.failure ?? manifest.uncertain }

    func checkWritable() throws {
        if closed { throw RouteLogError.closed(files.directory) }
        if let failure { throw failure }
    }

    /// Appends `batches` (each all or nothing, in order) in one write to one segment,
    /// rolling first when it is full; one sync covers them all. Then appends their index
    /// records. Returns each batch's events at their locations.
    mutating func append(_ batches: [[PreparedRecord]]) throws -> [[LogEvent]] {
        let frames = batches.flatMap { batch in RecordFrame.encodeBatch(batch.map { ($0.type, $0.payload) }) }
        let total = frames.reduce(0) { $0 + $1.count }
        if log.needsRoll(adding: total, limit: options.segmentSizeLimit) { try roll() }
        let locations = try log.append(frames, durability: options.durability)
        var next = locations.makeIterator()
        let events = batches.map { batch in batch.map { $0.event(next.next()!) } }
        let metadata = batches.flatMap { batch in batch.map(\.encodedMetadata) }
        if options.durability == .buffered {
            // Not yet on disk: their index records wait for the segment's sync, which
            // comes once 1,024 records are buffered. The changes are answered whatever
            // that sync gives (they are buffered: a failed sync fails every change after
            // it, and close()), unless answering them would leave more than 1,024
            // answered records unsynced (a large batch or group): then they fail with it,
            // and their records are cut off the segment again (best effort).
            let appended = events.flatMap { $0 }
            index.hold(appended, encodedMetadata: metadata)
            bufferedSinceSync += appended.count
            if bufferedSinceSync >= IndexFile.syncInterval {
                let pending = bufferedSinceSync
                do {
                    try syncActive()
                } catch {
                    if pending > IndexFile.syncInterval {
                        // Not answered: its records are cut off again, as far as they can be.
                        if let first = locations.first { log.cutActive(to: first.offset) }
                        throw error
                    }
                }
            }
        } else {
            index.append(events.flatMap { $0 }, encodedMetadata: metadata)
        }
        groups += 1
        changes += batches.count
        return events
    }

    /// Notes in the manifest that damage was found and that `ids` may have lost a
    /// record to it (``StoreSettings/lostIDs``), unless it says so already; true when
    /// it was rewritten. Damage met where no index names a record may have been the record
    /// that made an id known (a RecordingStart, a RoutePut): its chunks and edits then
    /// have no other witness once the damage leaves the segments or an index is written
    /// without the id.
    mutating func noteLostIDs(_ ids: LostIDs) throws -> Bool {
        let current = manifest.current.settings.lostIDs
        var noted = current ?? LostIDs()
        guard noted.formUnion(ids) || current == nil else { return false }
        try manifest.commit(nextRouteID: nextRouteID) { $0.settings.lostIDs = noted }
        return true
    }

    /// Starts a new segment and lists it in the manifest (format-spec.md, "Roll").
    /// Whatever the durability, the old segment is whole on disk before the next one
    /// exists, so a crash never keeps later records and loses earlier ones.
    mutating func roll() throws {
        try syncActive()
        let number = manifest.reserveFileNumber()
        let file = try files.create(.segment, number: number)
        do {
            try manifest.commit(nextRouteID: nextRouteID) { $0.segments.append(number) }
        } catch {
            // The new segment is ours and unlisted, unless the switch may have happened.
            if manifest.uncertain == nil { try? files.fileSystem.unlink(file.path) }
            throw error
        }
        log.adopt(file, number: number, cache: files.segmentFiles)
    }

    /// Makes everything durable that close() promises: the last segment when saves
    /// were buffered, then the index. With `live` (the store's index), rewrites the
    /// index file in between when one-by-one records piled up (best effort, see
    /// ``rewriteSprawlingIndex(_:)``): after the segment's sync, so that the new file
    /// vouches only for synced records and its failure cannot cost the saves their sync.
    mutating func closeFiles(rewriting live: RouteIndex? = nil) throws {
        defer { closed = true }
        if options.durability == .buffered {
            // A segment sync or write that failed (perhaps unheard: the sync every
            // 1,024 saves, a background compaction's or rewrite's) leaves the buffered
            // saves since the last good sync unknown, and a second sync proves nothing:
            // close() says so. An uncertain manifest switch leaves the segment fine:
            // its buffered saves are synced as usual.
            if let failed = log.failure {
                index.syncQuietly()
                throw failed
            }
            try syncActive()
        }
        if let live { rewriteSprawlingIndex(live) }
        index.syncQuietly()
    }

    /// Syncs the last segment, then writes the index records held for it (buffered
    /// saves): only now may the index vouch for them.
    mutating func syncActive() throws {
        bufferedSinceSync = 0
        try log.syncActive()
        index.appendHeld()
    }

    /// Syncs buffered saves before an index that covers them is written (a compaction's,
    /// a rewrite's): a synced index must vouch only for synced records.
    mutating func syncBufferedSaves() throws {
        if options.durability == .buffered { try syncActive() }
    }
}

/// One caller's change waiting for the writer (LevelDB's writer queue): its records
/// are prepared when its group's turn comes, against the state as it is then.
final class WriteTicket: @unchecked Sendable {
    let prepare: (inout WriteView) throws -> [PreparedRecord]
    /// Set by the group's leader, read after it, both under the queue's lock.
    fileprivate var result: Result<[LogEvent], any Error>?

    init(_ prepare: @escaping (inout WriteView) throws -> [PreparedRecord]) {
        self.prepare = prepare
    }
}

/// Group commit: callers that arrive while a write and sync are in flight wait in
/// line; the first in line then writes every waiting change in one write and one sync
/// (each change still all or nothing) and hands each caller its result, which is only
/// acknowledged after the sync that covers it.
final class WriteQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var waiting: [WriteTicket] = []

    /// The most changes one group takes.
    static let maxGroup = 64

    /// Changes in line now, the group being written included (for tests that line
    /// changes up behind a held writer).
    var waitingCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return waiting.count
    }

    /// Queues `ticket` and returns its events once written; the caller that is first in
    /// line runs `leader` for its group, which returns one result per ticket.
    func submit(_ ticket: WriteTicket,
                leader: ([WriteTicket]) -> [Result<[LogEvent], any Error>]) throws -> [LogEvent] {
        condition.lock()
        waiting.append(ticket)
        while ticket.result == nil && waiting.first !== ticket { condition.wait() }
        if let result = ticket.result {
            condition.unlock()
            return try result.get()
        }
        let group = Array(waiting.prefix(Self.maxGroup))
        condition.unlock()
        let results = leader(group)
        condition.lock()
        for (member, result) in zip(group, results) { member.result = result }
        waiting.removeFirst(group.count)
        condition.broadcast()
        condition.unlock()
        return try ticket.result!.get()
    }
}
