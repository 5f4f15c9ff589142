/// What readers see, behind the store's state lock (held for microseconds): the
/// in-memory index, the live segments, and whether the handle is open. Only the writer
/// changes it, after its changes are on disk.
struct StoreState: Sendable {
    enum Lifecycle: Sendable, Equatable {
        case open
        /// close() has begun: new calls fail; a running compaction gives up.
        case closing
        case closed
    }

    var index: RouteIndex
    var segments: SegmentSet
    /// The manifest's generation, and the index file's number and size (for statistics).
    var generation: UInt64
    var indexFileNumber: UInt32
    var indexBytes: Int64
    /// Records of the index file outside runs (a writer's handle): when they pile up,
    /// the index is written again as runs in the background.
    var indexSingleRecords = 0
    var lifecycle = Lifecycle.open
    let directory: String
    /// Damage and torn tails met while opening (verify() reports these too).
    var openDamage: [DamagedRange] = []
    var tornTails: [DamagedRange] = []
    /// The index file could not be used when the store opened: a writer rebuilt it, a
    /// read-only handle did without it.
    var indexRebuilt = false
    var indexDamaged = false
    /// Leftover files the writer moved into `lost/` when it opened the store.
    var movedToLost: [String] = []
    /// The store's settings as its manifest holds them.
    var settings = StoreSettings()
    /// The manifest's next route id and file number as this handle read them (a
    /// read-only handle's backup keeps them, so ids of compacted routes stay retired).
    var manifestNextRouteID: UInt64 = 1
    var manifestNextFileNumber: UInt32 = 1
    /// A read-only handle's last record read in the last segment (see ``FollowedTail``);
    /// nil for a writer's handle.
    var followedTail: FollowedTail?
    /// A read-only handle's last writer's mark read in `LOCK` (``WriterMark``).
    var followedMark: String?
    /// What the writer has done since the store opened (for statistics).
    var writes = StoreStatistics.Writes()

    /// Throws the one error every call on a closed handle throws.
    func checkOpen() throws {
        guard lifecycle == .open else { throw RouteLogError.closed(directory) }
    }
}

extension RouteLogError {
    /// What every call on a handle after ``RouteStore/close()`` throws.
    static func closed(_ directory: String) -> RouteLogError {
        RouteLogError(.closed, "the store handle is closed; open the store again to use it", path: directory)
    }
}
