/// The writer's side of the index file: one index record appended for each segment
/// record, after the segment's own sync. Best effort: the segments are the truth, so
/// a failure here only costs a slower next open, which catches up from them.
struct IndexFile: Sendable {
    /// The index's file number (the manifest names it).
    let number: UInt32
    private(set) var file: DurableFile?
    /// Where the next record goes.
    private(set) var end: Int64
    private var unsynced = 0
    /// An append or sync failed: stop appending; the next open catches up.
    private(set) var broken = false

    /// Records appended between syncs: the index is synced every this many, and at close.
    static let syncInterval = 1024

    init(number: UInt32, file: DurableFile?, end: Int64, unsynced: Int = 0) {
        self.number = number
        self.file = file
        self.end = end
        self.unsynced = unsynced
        broken = file == nil
    }

    /// Appends the index records of `events`, in order, in one write.
    mutating func append(_ events: [LogEvent]) {
        guard !broken, let file, !events.isEmpty else { return }
        let bytes = Self.records(events)
        do {
            try file.write(bytes, at: end)
            end += Int64(bytes.count)
            unsynced += events.count
            if unsynced >= Self.syncInterval { try sync() }
        } catch {
            broken = true
            try? file.truncate(to: end)
        }
    }

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

    /// The index records of `events` in one buffer: what a rebuilt or compacted index holds.
    static func records(_ events: [LogEvent]) -> [UInt8] {
        var bytes: [UInt8] = []
        for event in events {
            let record = event.indexRecord()
            bytes += RecordFrame.encode(type: record.type, payload: record.payload)
        }
        return bytes
    }
}
