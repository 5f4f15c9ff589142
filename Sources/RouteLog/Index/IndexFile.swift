/// The writer's side of the index file: one index record appended for each segment
/// record, after the segment's own sync. Best effort: the segments are the truth, so
/// a failure here only costs a slower next open, which catches up from them.
///
/// The file only ever holds records of synced segment records: a record on disk vouches
/// that its segment record is whole (format-spec.md, "Reading a log"). Buffered saves,
/// which are not synced, are held here until the segment's next sync
/// (``StoreWriter/syncActive()``) and only then written: the kernel writes dirty pages
/// back in any order, so an index record written before its segment record was synced
/// could reach the disk without it, and a power loss would read the lost save as damage.
struct IndexFile: Sendable {
    /// The index's file number (the manifest names it).
    let number: UInt32
    private(set) var file: DurableFile?
    /// Where the next record goes.
    private(set) var end: Int64
    private var unsynced = 0
    /// An append or sync failed: stop appending; the next open catches up.
    private(set) var broken = false
    /// Records of the file outside IndexPutRuns, those read at open and those appended
    /// since: what a rewrite would gather into runs (see ``RouteStore/close()``).
    private(set) var singleRecords: Int

    /// Events of buffered saves, waiting for their segment's sync, and their metadata
    /// as their records hold it, where known.
    private var held: [LogEvent] = []
    private var heldMetadata: [ArraySlice<UInt8>?] = []

    /// Records appended between syncs: the index is synced every this many, and at close.
    /// Buffered saves are held for at most this many, then synced (segment, then index).
    static let syncInterval = 1024

    init(number: UInt32, file: DurableFile?, end: Int64, unsynced: Int = 0, singleRecords: Int = 0) {
        self.number = number
        self.file = file
        self.end = end
        self.unsynced = unsynced
        self.singleRecords = singleRecords
        broken = file == nil
    }

    /// Appends the index records of `events`, in order, in one write: events whose
    /// segment records are synced (and every event held before them). Syncs every
    /// ``syncInterval`` records. `encodedMetadata` is empty or, for each event, its
    /// metadata as its record holds it, where known (see ``records(_:encodedMetadata:storedMetadata:)``).
    mutating func append(_ events: [LogEvent], encodedMetadata: [ArraySlice<UInt8>?] = []) {
        guard !broken, let file else { return }
        let given = Self.aligned(encodedMetadata, with: events)
        let (events, metadata) = held.isEmpty ? (events, given) : (held + events, heldMetadata + given)
        held = []
        heldMetadata = []
        guard !events.isEmpty else { return }
        let (bytes, singles) = Self.records(events, encodedMetadata: metadata)
        do {
            try file.write(bytes, at: end)
            end += Int64(bytes.count)
            unsynced += events.count
            singleRecords += singles
            if unsynced >= Self.syncInterval { try sync() }
        } catch {
            broken = true
            try? file.truncate(to: end)
        }
    }

    /// Holds the events of buffered saves until their segment is synced (the writer
    /// syncs once ``syncInterval`` changes are buffered).
    mutating func hold(_ events: [LogEvent], encodedMetadata: [ArraySlice<UInt8>?] = []) {
        guard !broken, file != nil else { return }
        held += events
        heldMetadata += Self.aligned(encodedMetadata, with: events)
    }

    /// One entry for each event: `encodedMetadata`'s, or none known.
    private static func aligned(_ encodedMetadata: [ArraySlice<UInt8>?], with events: [LogEvent]) -> [ArraySlice<UInt8>?] {
        guard !encodedMetadata.isEmpty else { return Array(repeating: nil, count: events.count) }
        precondition(encodedMetadata.count == events.count, "one metadata entry for each event")
        return encodedMetadata
    }

    /// Writes the held events, their segment records being synced now.
    mutating func appendHeld() { append([]) }

    /// Events held for a segment sync (buffered saves since the last one).
    var heldCount: Int { held.count }

    /// Makes the appended records durable.
    mutating func sync() throws {
        guard !broken, let file, unsynced > 0 else { return }
        do {
            try file.syncData()
            unsynced = 0
        } catch {
            broken = true
            throw error
        }
    }

    /// Syncs, ignoring a failure (which only marks the index broken).
    mutating func syncQuietly() { try? sync() }

    /// The index records of `events` in one buffer: what a rebuilt or compacted index
    /// holds; and how many of them are not runs. Puts in a row go out as IndexPutRuns
    /// (format-spec.md, "Index records"), which open in a fixed-width pass, each of at
    /// most ``FormatConstants/maxIndexPutRunEntries`` puts and
    /// ``IndexPutRun/maxPayloadBytes`` bytes; the other events one record each.
    /// `encodedMetadata` is empty or, for each event, its own metadata as its segment
    /// record holds it, where known (a save's record, made a moment ago): those bytes go
    /// in as they are. Otherwise `storedMetadata` gives a route's current metadata as
    /// stored, where known (the index's own bytes): a run, an edit or a finish holds
    /// them as they are, once checked to be the event's, instead of encoding the
    /// metadata again.
    static func records(_ events: [LogEvent], encodedMetadata: [ArraySlice<UInt8>?] = [],
                        storedMetadata: (RouteID) -> ArraySlice<UInt8>? = { _ in nil })
        -> (bytes: [UInt8], singleRecords: Int)
    {
        let own = aligned(encodedMetadata, with: events)
        var bytes: [UInt8] = []
        var singles = 0
        /// A put's, an edit's or a finished recording's metadata as stored, when the
        /// route's current metadata is that event's: encoded again, metadata of invalid
        /// UTF-8 (which a segment may hold) grows past its limits and the index would
        /// not open.
        func keptMetadata(of event: LogEvent, at position: Int) -> ArraySlice<UInt8>? {
            if let bytes = own[position] { return bytes }
            switch event {
            case .put(let id, _, let metadata, _), .edit(let id, let metadata, _), .recordingFinish(let id, _, let metadata, _):
                guard let stored = storedMetadata(id), StoredMetadata(MetadataView(checked: stored)) == metadata else { return nil }
                return stored
            default:
                return nil
            }
        }
        var run = IndexPutRun.Builder()
        /// The run's first put and its place, written as an IndexPut when it stays alone.
        var first: (event: LogEvent, position: Int)?
        func append(_ event: LogEvent, at position: Int) {
            singles += 1
            let record = event.indexRecord(encodedMetadata: keptMetadata(of: event, at: position))
            bytes += RecordFrame.encode(type: record.type, payload: record.payload)
        }
        func flushRun(before next: (event: LogEvent, position: Int)?) {
            if run.count > 1 {
                bytes += RecordFrame.encode(type: .indexPutRun, payload: run.payload())
            } else if let first {
                append(first.event, at: first.position)
            }
            run = IndexPutRun.Builder()
            first = nil
            if let next { append(next.event, at: next.position) }
        }
        for (position, event) in events.enumerated() {
            guard case .put(let id, let shape, let metadata, let location) = event else {
                flushRun(before: (event, position))
                continue
            }
            let encoded: [UInt8]
            if let bytes = own[position] {
                encoded = Array(bytes)
            } else if let stored = storedMetadata(id) {
                encoded = Array(stored)
            } else {
                var w = ByteWriter(capacity: 96)
                metadata.write(to: &w)
                encoded = w.bytes
            }
            if run.count > 0, run.payloadSize + IndexPutRun.entrySize + encoded.count > IndexPutRun.maxPayloadBytes {
                flushRun(before: nil)
            }
            if run.count == 0 { first = (event, position) }
            run.add(id: id, location: location, shape: shape, encodedMetadata: encoded)
            if run.count == FormatConstants.maxIndexPutRunEntries { flushRun(before: nil) }
        }
        flushRun(before: nil)
        return (bytes, singles)
    }
}
