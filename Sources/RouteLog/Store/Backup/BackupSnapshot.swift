/// What a backup copies, taken in one step under the store's locks: the live segments
/// with their files held open (a compaction that removes them from the directory
/// meanwhile does not take them from the backup), each up to its committed end, the
/// index up to what it held then, and the manifest that names them.
struct BackupSnapshot: Sendable {
    var manifest: Manifest
    var segments: [LogSegment]
    var index: DurableFile?
    var indexEnd: Int64
    /// Routes in the store when the snapshot was taken.
    var routeCount: Int

    /// Takes the snapshot. For a writer's handle the writer lock is held, so the
    /// manifest and the published state agree; a read-only handle builds the manifest
    /// from what it last read.
    static func take(_ store: RouteStore) throws -> BackupSnapshot {
        try store.writer.withLock { writer in
            try store.state.withLock { s in
                try s.checkOpen()
                let numbers = s.segments.numbers
                var manifest = writer?.manifest.current ?? Manifest(
                    generation: s.generation,
                    nextFileNumber: max(s.manifestNextFileNumber, (numbers + [s.indexFileNumber]).max()! + 1),
                    nextRouteID: max(s.manifestNextRouteID, s.index.maxSeenID + 1), indexFile: s.indexFileNumber,
                    segments: numbers)
                manifest.segments = numbers
                // A read-only handle's settings are the manifest's as it last read them; a
                // writer's next id is ahead of its last manifest commit.
                if let writer { manifest.nextRouteID = max(manifest.nextRouteID, writer.nextRouteID) }
                else { manifest.settings = s.settings }
                manifest.indexFile = s.indexFileNumber
                let index = try? store.files.open(.index, number: s.indexFileNumber, writable: false)
                return BackupSnapshot(manifest: manifest, segments: s.segments.segments, index: index,
                                      indexEnd: s.indexBytes, routeCount: s.index.routes.count)
            }
        }
    }
}
