/// The writer's side of the segments: appends batches of framed records to the last
/// segment and returns where they landed (format-spec.md, "Changes that touch several
/// files"). Readers use the ``segments`` it publishes.
struct SegmentLog: Sendable {
    private(set) var segments: SegmentSet
    /// Set when a write or sync failed in a way that leaves the file's state unknown:
    /// the writer refuses every later change until the store is opened again.
    private(set) var failure: RouteLogError?
    /// Data syncs made of segments (per write group, at rolls and at close).
    private(set) var dataSyncs = 0
    /// Buffered appends to the active segment since its last sync (``syncActive()``).
    private(set) var hasUnsyncedAppends = false
    /// Times records were cut off the active segment again (a failed write taken back,
    /// ``cutActive(to:)``): each time, readers must be told (``WriterMark``).
    private(set) var cuts = 0

    init(segments: SegmentSet) {
        precondition(!segments.isEmpty, "a store has at least one segment")
        self.segments = segments
    }

    var active: LogSegment { segments.last! }

    /// Whether `bytes` more would take a non-empty active segment past `limit`: then
    /// the writer rolls first, so a batch never spans two segments and an empty
    /// segment is never rolled.
    func needsRoll(adding bytes: Int, limit: Int) -> Bool {
        !active.isEmpty && active.end + Int64(bytes) > Int64(limit)
    }

    /// Appends `frames` (whole batches, in order) to the active segment in one write,
    /// makes them durable as `durability` says, and returns each frame's location.
    ///
    /// - Throws: the write's or sync's error. A failed write is truncated away at once;
    ///   when that fails too, or a sync fails (the kernel may have dropped the written
    ///   pages), ``failure`` is set.
    mutating func append(_ frames: [[UInt8]], durability: RouteStore.Durability) throws -> [RecordLocation] {
        let segment = active
        var locations: [RecordLocation] = []
        locations.reserveCapacity(frames.count)
        var offset = segment.end
        for frame in frames {
            locations.append(RecordLocation(segment: segment.number, offset: offset, length: frame.count))
            offset += Int64(frame.count)
        }
        // One write: a single record (most saves) as it is, several joined first.
        let bytes = frames.count == 1 ? frames[0] : Array(frames.joined())
        do {
            try segment.file.write(bytes, at: segment.end)
        } catch {
            // Take the partial append back so no later record follows garbage. If even
            // that fails, stop writing: the next open keeps what was written of the
            // refused records (a whole one reads as saved, a partial one as a torn tail,
            // copied to lost/ before the cut).
            if (try? segment.file.truncate(to: segment.end)) == nil {
                failure = RouteLogError(.io, "a write failed and could not be undone; reopen the store to recover",
                                        path: segment.path, errno: (error as? RouteLogError)?.errno)
            }
            cuts += 1
            throw error
        }
        if durability == .buffered {
            hasUnsyncedAppends = true
        } else {
            do {
                dataSyncs += 1
                if durability == .ordered { try segment.file.syncBarrier() } else { try segment.file.syncData() }
            } catch {
                failure = RouteLogError(.io, "a sync failed; reopen the store to recover",
                                        path: segment.path, errno: (error as? RouteLogError)?.errno)
                try? segment.file.truncate(to: segment.end)
                cuts += 1
                throw error
            }
        }
        segments.setEnd(offset, of: segment.number)
        return locations
    }

    /// Makes everything appended to the active segment durable (before a roll, and at
    /// close with buffered durability). A failure sets ``failure``: what was written
    /// since the last good sync cannot be trusted.
    mutating func syncActive() throws {
        dataSyncs += 1
        do {
            try active.file.syncData()
            hasUnsyncedAppends = false
        } catch {
            failure = RouteLogError(.io, "a sync failed; reopen the store to recover",
                                    path: active.path, errno: (error as? RouteLogError)?.errno)
            throw error
        }
    }

    /// Cuts the active segment back to `end`, best effort, after a failed sync left the
    /// records past it unacknowledged (as a failed sync of `.full` saves does): a
    /// change that failed is then not read back after a reopen.
    mutating func cutActive(to end: Int64) {
        guard end >= Int64(FormatConstants.fileHeaderSize), end <= active.end else { return }
        try? active.file.truncate(to: end)
        segments.setEnd(end, of: active.number)
        cuts += 1
    }

    /// Stops the writer after a cut readers could not be told of (see ``cuts``).
    mutating func stop(_ error: RouteLogError) {
        if failure == nil { failure = error }
    }

    /// Takes a new, empty segment (created and listed in the manifest) as the active one.
    mutating func adopt(_ file: DurableFile, number: UInt32, cache: SegmentFileCache?) {
        segments.append(LogSegment(number: number, file: file, end: Int64(FormatConstants.fileHeaderSize),
                                   cache: cache, writable: true))
    }

    /// Takes the segments of a compaction's switch.
    mutating func replace(with segments: SegmentSet) {
        precondition(!segments.isEmpty, "a store has at least one segment")
        self.segments = segments
    }
}
