import Foundation

/// The index written again as runs while saves go on (docs/recovery-and-compaction.md,
/// "The index rewritten in the background"), so that a store an app never closes (one
/// killed in the background) does not open from one record a save forever. The
/// compaction scheduler runs it, never beside a compaction.
///
/// Like a compaction: under the writer lock, a snapshot of the index and where the
/// segments end; outside every lock, the new file written and synced; under the lock
/// again, the records appended since the snapshot copied after it, the manifest
/// switched (the atomic step), and the old file removed. A failure or a close() before
/// the switch removes only the new file; the old index stays in use, still right.
struct BackgroundIndexRewrite {
    let store: RouteStore

    /// Rewrites the index if it is sprawling (``StoreWriter/indexIsSprawling(_:)``), or
    /// with `evenIfFew` whatever it holds (tests that crash a small store's rewrite);
    /// returns whether it did.
    func run(evenIfFew: Bool = false) throws -> Bool {
        let start = try store.withWriter { w -> (RouteIndex, [UInt32], (segment: UInt32, offset: Int64), UInt32)? in
            try w.checkWritable()
            let index = store.state.withLock { $0.index }
            guard evenIfFew || w.indexIsSprawling(index) else { return nil }
            // The new file is synced, so it must vouch only for synced records: buffered
            // saves are synced first (as close() does before its rewrite). Otherwise a
            // power loss that takes them leaves an index locating records the segment
            // lacks, reported as damage, their routes listed but unreadable.
            try w.syncBufferedSaves()
            let active = w.log.active
            return (index, w.manifest.current.segments, (active.number, active.end), w.manifest.reserveFileNumber())
        }
        guard let (snapshot, segmentOrder, tailStart, number) = start else { return false }
        try checkCancelled()
        let file = try store.files.create(.index, number: number)
        var switchAttempted = false
        do {
            let (bytes, singles) = IndexFile.records(snapshot.liveEvents(segmentOrder: segmentOrder),
                                                     storedMetadata: snapshot.routes.storedMetadata)
            try file.write(bytes, at: Int64(FormatConstants.fileHeaderSize))
            try file.syncData()
            try checkCancelled()
            let replaced = try store.withWriter { w -> String in
                try w.checkWritable()
                try checkCancelled()
                // Only the scheduler rewrites segments, and it runs this instead: the
                // snapshot's segments are still there, perhaps with more after them.
                guard Array(w.manifest.current.segments.prefix(segmentOrder.count)) == segmentOrder else {
                    throw RouteLogError(.io, "the segments changed during an index rewrite", path: store.directory)
                }
                // Records appended since the snapshot, synced first when buffered.
                try w.syncBufferedSaves()
                let tailEvents = try IndexRecovery.events(in: w.log.segments, since: tailStart)
                let (tailBytes, tailSingles) = IndexFile.records(tailEvents)
                let tailAt = Int64(FormatConstants.fileHeaderSize + bytes.count)
                // Not synced here: the segments are the truth, and an index that lost
                // these last records is caught up from them at the next open.
                try file.write(tailBytes, at: tailAt)
                let replaced = FormatConstants.indexName(w.index.number)
                switchAttempted = true
                try w.manifest.commit(nextRouteID: w.nextRouteID) { $0.indexFile = number }
                w.index = IndexFile(number: number, file: file, end: tailAt + Int64(tailBytes.count),
                                    unsynced: tailEvents.count, singleRecords: singles + tailSingles)
                let published = (w.manifest.current.generation, w.index.number, w.index.end, w.index.singleRecords)
                store.state.withLock { s in
                    (s.generation, s.indexFileNumber, s.indexBytes, s.indexSingleRecords) = published
                }
                return replaced
            }
            // The switch is durable: readers holding the old file keep reading it.
            if let manifest = try? store.withWriter({ $0.manifest.current }) { store.files.remove([replaced], keeping: manifest) }
            return true
        } catch {
            // Before the switch, only the new file goes; after a failed attempt the writer
            // refuses everything until reopened, and the next open keeps whichever file
            // the manifest names.
            let attempted = switchAttempted
            let inUse = (try? store.withWriter { w in
                attempted && (w.manifest.uncertain != nil || w.manifest.current.indexFile == number)
            }) ?? attempted
            if !inUse { try? store.files.fileSystem.unlink(file.path) }
            throw error
        }
    }

    /// Throws when close() has begun: the rewrite then gives up at once.
    private func checkCancelled() throws {
        try store.state.withLock { try $0.checkOpen() }
    }
}
