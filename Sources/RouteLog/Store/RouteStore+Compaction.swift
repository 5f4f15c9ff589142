import Foundation

extension RouteStore {
    /// Reclaims the space of deleted routes, replaced edits and discarded or merged
    /// recordings: the live records of every segment worth rewriting (at least
    /// ``Options/compactionRewriteThreshold`` of it dead) are copied into new segments at
    /// its place, with a new index, and the manifest switches to them atomically; the
    /// old files are deleted once the switch is durable. Segments with little dead, or
    /// holding a damaged record, are left as they are and listed in the report. Saves,
    /// loads and listing go on from other threads meanwhile; a save waits at most for
    /// the final switch. A crash at any point leaves either the old files or the new
    /// ones, never a mix. Waits for a background compaction that is running.
    ///
    /// - Returns: bytes before and after, records moved, segments rewritten and skipped.
    /// - Throws: `.io`; `.closed`, also when ``close()`` is called while it runs (it
    ///   then gives up, changing nothing); `.invalidArgument` for a read-only handle.
    @discardableResult
    public func compact() throws -> CompactionReport {
        try checkOpenedInThisProcess()
        try state.withLock { try $0.checkOpen() }
        guard !isReadOnly else {
            throw RouteLogError(.invalidArgument, "the store was opened read-only; open it with mode .createIfMissing or .mustExist to compact it", path: directory)
        }
        return try compaction.runNow(self)
    }

    /// Record bytes of the live segments, the dead ones among them, and the bytes of
    /// finished recordings still stored as chunks.
    func deadByteCounts() -> (total: Int64, dead: Int64, chunked: Int64) {
        state.withLock { s in
            var total: Int64 = 0, live: Int64 = 0
            for segment in s.segments.segments {
                total += segment.recordBytes
                live += s.index.liveBytes[segment.number] ?? 0
            }
            return (total, max(0, total - live), s.index.chunkedBytes)
        }
    }

    func deadBytes() -> Int64 { deadByteCounts().dead }
}
