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

    /// Events of buffered saves, waiting for their segment's sync.
    private var held: [LogEvent] = []

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
    /// ``syncInterval`` records.
    mutating func append(_ events: [LogEvent]) {
        guard !broken, let file else { return }
        let events = held.isEmpty ? events : held + events
        held = []
        guard !events.isEmpty else { return }
        let (bytes, singles) = Self.records(events)
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
    mutating func hold(_ events: [LogEvent]) {
        guard !broken, file != nil else { return }
        held += events
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
    /// `storedMetadata` gives a route's current metadata as stored, where known (the
    /// index's own bytes): a run, an edit or a finish holds them as they are instead of
    /// encoding the metadata again.
    static func records(_ events: [LogEvent], storedMetadata: (RouteID) -> ArraySlice<UInt8>? = { _ in nil })
        -> (bytes: [UInt8], singleRecords: Int)
    {
        var bytes: [UInt8] = []
        var singles = 0
        /// A put's, an edit's or a finished recording's metadata as stored, when the
        /// route's current metadata is that event's: encoded again, metadata of invalid
        /// UTF-8 (which a segment may hold) grows past its limits and the index would
        /// not open.
        func keptMetadata(of event: LogEvent) -> ArraySlice<UInt8>? {
            switch event {
            case .put(let id, _, let metadata, _), .edit(let id, let metadata, _), .recordingFinish(let id, _, let metadata, _):
                guard let stored = storedMetadata(id), StoredMetadata(MetadataView(checked: stored)) == metadata else { return nil }
                return stored
            default:
                return nil
            }
        }
        var run = IndexPutRun.Builder()
        /// The run's first put, written as an IndexPut when it stays alone.
        var first: LogEvent?
        func append(_ event: LogEvent) {
            singles += 1
            let record = event.indexRecord(encodedMetadata: keptMetadata(of: event))
            bytes += RecordFrame.encode(type: record.type, payload: record.payload)
        }
        func flushRun(before next: LogEvent?) {
            if run.count > 1 {
                bytes += RecordFrame.encode(type: .indexPutRun, payload: run.payload())
            } else if let first {
                append(first)
            }
            run = IndexPutRun.Builder()
            first = nil
            if let next { append(next) }
        }
        for event in events {
            guard case .put(let id, let shape, let metadata, let location) = event else {
                flushRun(before: event)
                continue
            }
            let encoded: [UInt8]
            if let stored = storedMetadata(id) {
                encoded = Array(stored)
            } else {
                var w = ByteWriter(capacity: 96)
                metadata.write(to: &w)
                encoded = w.bytes
            }
            if run.count > 0, run.payloadSize + IndexPutRun.entrySize + encoded.count > IndexPutRun.maxPayloadBytes {
                flushRun(before: nil)
            }
            if run.count == 0 { first = event }
            run.add(id: id, location: location, shape: shape, encodedMetadata: encoded)
            if run.count == FormatConstants.maxIndexPutRunEntries { flushRun(before: nil) }
        }
        flushRun(before: nil)
        return (bytes, singles)
    }
}
