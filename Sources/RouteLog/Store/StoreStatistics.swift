import Foundation

/// The layout of a store, for inspectors: files, segments, live and dead bytes.
public struct StoreStatistics: Sendable, Equatable, Codable {
    /// One segment.
    public struct Segment: Sendable, Equatable, Codable {
        /// Its file number.
        public var number: UInt32
        /// Its file name.
        public var name: String
        /// Bytes in the file (valid records and header).
        public var bytes: Int64
        /// Bytes of records still needed (live routes and their latest edits).
        public var liveBytes: Int64
        /// Bytes compaction would reclaim.
        public var deadBytes: Int64
    }

    /// A recording in progress (neither finished nor discarded), from the index.
    public struct Recording: Sendable, Equatable, Codable {
        /// Its id (the id of the route it becomes).
        public var id: RouteID
        /// When it was started (the writer's clock).
        public var startedAt: Date
        /// The name given at the start, if any.
        public var name: String?
        /// Points flushed so far.
        public var points: Int
        /// Chunks written so far.
        public var chunks: Int
        /// Bytes of its records in the segments.
        public var bytes: Int64
    }

    /// How the last compaction of this handle ended.
    public struct CompactionOutcome: Sendable, Equatable, Codable {
        /// When it ended.
        public var finished: Date
        /// How long it ran, in seconds.
        public var duration: TimeInterval
        /// Bytes it gave back.
        public var bytesReclaimed: Int64
        /// Segments it rewrote.
        public var segmentsCompacted: Int
        /// Why it failed; nil when it succeeded.
        public var error: RouteLogError?
    }

    /// What this handle has written since it opened: changes (a save of a batch, a
    /// delete, an edit, a recording flush each count one), the groups they were written
    /// in (group commit writes the changes that wait together), and data syncs.
    public struct Writes: Sendable, Equatable, Codable {
        /// Changes written.
        public var changes = 0
        /// Writes to the log, each holding one or more changes.
        public var groups = 0
        /// fdatasync (F_FULLFSYNC, F_BARRIERFSYNC) calls on segments.
        public var dataSyncs = 0

        /// Counts of a handle that has written nothing yet.
        public init(changes: Int = 0, groups: Int = 0, dataSyncs: Int = 0) {
            self.changes = changes
            self.groups = groups
            self.dataSyncs = dataSyncs
        }
    }

    /// What this handle has written since it opened.
    public var writes = Writes()
    /// What the store's `lost/` folder holds.
    public var lostFiles: [VerificationReport.LostFile] = []
    /// Why `lost/` could not be listed, when it could not (``lostFiles`` is then empty
    /// for want of a look, not because nothing is there): the store's directory was
    /// moved or replaced since this handle opened it, or `lost/` is unreadable.
    public var lostFilesNotListed: String?
    /// The last compaction (the app's or a background one), if any ran.
    public var lastCompaction: CompactionOutcome?
    /// Failed compactions in a row; automatic ones back off (1 s, doubling, at most
    /// 10 minutes) while this is above 0.
    public var compactionFailures = 0
    /// Segments holding a damaged live record, which compaction keeps as found.
    public var damagedSegments: [String] = []

    /// The format version of the store's files.
    public var formatVersion: Int
    /// Bumped at every manifest rewrite (segment roll, compaction, index rebuild).
    public var generation: UInt64
    /// The live segments, in log order.
    public var segments: [Segment]
    /// The index file's name and size.
    public var indexFile: String
    /// Bytes of the index file.
    public var indexBytes: Int64
    /// Routes in the store.
    public var liveRoutes: Int
    /// Deleted routes whose space compaction has not reclaimed yet.
    public var deletedRoutes: Int
    /// Points over every live route.
    public var points: Int
    /// Segment plus index bytes.
    public var totalBytes: Int64
    /// Live record bytes over the live routes' points (0 for an empty store).
    public var bytesPerPoint: Double
    /// How many times smaller the live routes are than 24 bytes a point (latitude,
    /// longitude and time as 8-byte values, the least a plain array would take).
    public var compressionRatio: Double
    /// The pid of the process holding the store for writing, if any; -1 when one holds
    /// it but its pid cannot be read from `LOCK` (deleted, replaced, or given another
    /// name, as `cp -al` does).
    public var writerPID: Int32?
    /// Recordings in progress, oldest first: what `routelog inspect` lists as being
    /// recorded (or left unfinished by a crash).
    public var recordingsInProgress: [Recording] = []
    /// Finished recordings still stored as their chunks; compaction rewrites each as
    /// one record.
    public var chunkedRoutes: Int = 0

    /// Bytes of records compaction would reclaim.
    public var deadBytes: Int64 { segments.reduce(0) { $0 + $1.deadBytes } }
    /// Bytes of records still needed.
    public var liveBytes: Int64 { segments.reduce(0) { $0 + $1.liveBytes } }
}

extension RouteStore {
    /// The store's layout now: files and sizes, live and dead bytes per segment, route
    /// and point counts, the last compaction. Reads only memory (and the lock file, for
    /// the writer's pid).
    /// - Throws: `.closed`.
    public func statistics() throws -> StoreStatistics {
        var stats = try state.withLock { s -> StoreStatistics in
            try s.checkOpen()
            let segments = s.segments.segments.map { segment -> StoreStatistics.Segment in
                let live = s.index.liveBytes[segment.number] ?? 0
                return .init(number: segment.number, name: FormatConstants.segmentName(segment.number), bytes: segment.end,
                             liveBytes: live, deadBytes: max(0, segment.recordBytes - live))
            }
            let points = s.index.routes.pointCount
            let live = segments.reduce(0) { $0 + $1.liveBytes }
            let recordings = s.index.recordings.sorted { $0.key < $1.key }.map { id, recording in
                StoreStatistics.Recording(id: id, startedAt: Quantization.date(milliseconds: recording.startedMs), name: recording.metadata.name,
                                          points: recording.pointCount, chunks: recording.chunks.count,
                                          bytes: recording.locations.reduce(Int64(0)) { $0 + Int64($1.length) })
            }
            return StoreStatistics(
                formatVersion: Int(FormatConstants.version), generation: s.generation, segments: segments,
                indexFile: FormatConstants.indexName(s.indexFileNumber), indexBytes: s.indexBytes,
                liveRoutes: s.index.routes.count, deletedRoutes: s.index.deletedCount, points: points,
                totalBytes: segments.reduce(0) { $0 + $1.bytes } + s.indexBytes,
                bytesPerPoint: points == 0 ? 0 : Double(live) / Double(points),
                compressionRatio: live == 0 ? 0 : Double(points * 24) / Double(live),
                writerPID: nil, recordingsInProgress: recordings,
                chunkedRoutes: s.index.routes.recordedRoutes.count)
        }
        stats.writes = try state.withLock { s in try s.checkOpen(); return s.writes }
        compaction.status.withLock { c in
            stats.lastCompaction = c.last
            stats.compactionFailures = c.consecutiveFailures
            stats.damagedSegments = c.damaged.sorted().map(FormatConstants.segmentName)
        }
        let lost = LostAndFound(files: files).listing()
        stats.lostFiles = lost.entries.map { .init(name: $0.name, bytes: $0.bytes, note: $0.note) }
        stats.lostFilesNotListed = lost.notListed
        stats.writerPID = isReadOnly ? StoreLock.holder(in: directory, fileSystem: fileSystem) : getpid()
        return stats
    }
}
