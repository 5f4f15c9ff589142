/// The writer's whole rewrites of the index file (format-spec.md, "Index records"): a
/// fresh file holding the live state, its puts in runs, synced, then the manifest
/// switched to it. An open does one when the index cannot be used; ``RouteStore/close()``
/// does one when records appended one by one have piled up, so that the next open reads
/// runs.
extension StoreWriter {
    /// Records a rewrite must gather into runs, at least, for close() to make one.
    static let sprawlingRecords = 1024

    /// Writes a fresh index of `index` and switches the manifest to it; returns the
    /// name of the index file it replaced. A failure before the switch removes the new
    /// file; the old one stays in use.
    @discardableResult
    mutating func rewriteIndex(_ index: RouteIndex) throws -> String {
        let replaced = FormatConstants.indexName(self.index.number)
        let number = manifest.reserveFileNumber()
        let file = try files.create(.index, number: number)
        do {
            let (bytes, singles) = IndexFile.records(index.liveEvents(segmentOrder: manifest.current.segments),
                                                     storedMetadata: index.routes.storedMetadata)
            try file.write(bytes, at: Int64(FormatConstants.fileHeaderSize))
            try file.syncData()
            try manifest.commit(nextRouteID: nextRouteID) { $0.indexFile = number }
            self.index = IndexFile(number: number, file: file, end: Int64(FormatConstants.fileHeaderSize + bytes.count),
                                   singleRecords: singles)
        } catch {
            // Unlisted, unless the switch may have happened (then the next open keeps
            // whichever file the manifest names, and clears the other).
            if manifest.uncertain == nil && manifest.current.indexFile != number { try? files.fileSystem.unlink(file.path) }
            throw error
        }
        return replaced
    }

    /// True when a rewrite of `index` would gather into runs at least
    /// ``sprawlingRecords`` records and a quarter as many as there are routes. The
    /// file's single records are counted first (a count kept): only when they are enough
    /// is what a rewrite would leave of them counted (a sort of every location).
    func indexIsSprawling(_ index: RouteIndex) -> Bool {
        let enough = Self.sprawlingEnough(routes: index.routes.count)
        return failure == nil && !self.index.broken && self.index.singleRecords >= enough
            && self.index.singleRecords - index.recordsOutsideRuns(segmentOrder: manifest.current.segments) >= enough
    }

    /// The single records a rewrite must gather, at least, for a store of `routes` routes.
    static func sprawlingEnough(routes: Int) -> Int { max(sprawlingRecords, routes / 4) }

    /// Rewrites the index when it is sprawling (``indexIsSprawling(_:)``); best effort
    /// (the index is a cache: a failure leaves the old one, still right).
    mutating func rewriteSprawlingIndex(_ index: RouteIndex) {
        guard indexIsSprawling(index), let replaced = try? rewriteIndex(index) else { return }
        files.remove([replaced], keeping: manifest.current)
    }
}
