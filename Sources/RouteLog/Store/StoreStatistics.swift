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
    /// The pid of the process holding the store for writing, if any.
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
    /// and point counts. Reads only memory (and the lock file, for the writer's pid).
    public func statistics() -> StoreStatistics {
        let stats = core.withLock { core -> StoreStatistics in
            let header = Int64(FormatConstants.fileHeaderSize)
            let segments = core.manifest.segments.map { number -> StoreStatistics.Segment in
                let bytes = core.segmentEnds[number] ?? header
                let live = core.state.liveBytes[number] ?? 0
                return .init(number: number, name: FormatConstants.segmentName(number), bytes: bytes,
                             liveBytes: live, deadBytes: max(0, bytes - header - live))
            }
            let points = core.state.routes.values.reduce(0) { $0 + Int($1.shape.pointCount) }
            let live = segments.reduce(0) { $0 + $1.liveBytes }
            let recordings = core.state.recordings.sorted { $0.key < $1.key }.map { id, recording in
                StoreStatistics.Recording(id: id, startedAt: Quantization.date(milliseconds: recording.startedMs), name: recording.metadata.name,
                          points: recording.pointCount, chunks: recording.chunks.count,
                          bytes: recording.locations.reduce(Int64(0)) { $0 + Int64($1.length) })
            }
            return StoreStatistics(
                formatVersion: Int(FormatConstants.version), generation: core.manifest.generation, segments: segments,
                indexFile: FormatConstants.indexName(core.manifest.indexFile), indexBytes: core.indexEnd,
                liveRoutes: core.state.routes.count, deletedRoutes: core.state.deletedCount, points: points,
                totalBytes: segments.reduce(0) { $0 + $1.bytes } + core.indexEnd,
                bytesPerPoint: points == 0 ? 0 : Double(live) / Double(points),
                compressionRatio: live == 0 ? 0 : Double(points * 24) / Double(live),
                writerPID: nil, recordingsInProgress: recordings,
                chunkedRoutes: core.state.routes.values.filter { $0.recorded != nil }.count)
        }
        var result = stats
        result.writerPID = isReadOnly ? StoreLock.holder(in: directory, fileSystem: fileSystem) : getpid()
        return result
    }
}
