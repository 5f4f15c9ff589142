import Foundation

extension RouteStore {
    /// Reads every record of every file, checks every checksum, checks that the index
    /// agrees with the segments, and decodes every live route. What it cannot read is
    /// a problem in the report, never an error. Saves may go on meanwhile; it checks
    /// the store as it was when it started.
    ///
    /// - Parameter progress: called with the fraction done (0...1) as it goes.
    /// - Throws: `.closed` after ``close()``, like every call on a closed handle.
    public func verify(progress: (@Sendable (Double) -> Void)? = nil) throws -> VerificationReport {
        let snapshot = try state.withLock { s in
            try s.checkOpen()
            return VerificationSnapshot(state: s, indexFile: s.segments.isEmpty ? nil : indexFileForVerify(s))
        }
        var withLost = snapshot
        withLost.lost = LostAndFound(files: files).listing()
        return StoreVerifier(snapshot: withLost, directory: directory, progress: progress).run()
    }

    /// The index file, opened read-only for verify (nil when it cannot be opened).
    private func indexFileForVerify(_ s: StoreState) -> DurableFile? {
        try? files.open(.index, number: s.indexFileNumber, writable: false)
    }
}
