import Foundation

extension RouteStore {
    /// Reads every record of every file, checks every checksum, checks that the index
    /// agrees with the segments, and decodes every live route. What it cannot read is
    /// a problem in the report, never an error. Saves may go on meanwhile; it checks
    /// the store as it was when it started. When a compaction removed files it was
    /// reading (their descriptors closed meanwhile by the segment file cache), it
    /// checks the store again as the compaction left it (a read-only handle first
    /// reads what the writer made of it), and `progress` starts again from 0.
    ///
    /// - Parameter progress: called with the fraction done (0...1) as it goes.
    /// - Throws: `.closed` after ``close()``, like every call on a closed handle.
    public func verify(progress: (@Sendable (Double) -> Void)? = nil) throws -> VerificationReport {
        var attempts = 1
        while true {
            let (snapshot, generation) = try state.withLock { s in
                try s.checkOpen()
                return (VerificationSnapshot(state: s, indexFile: s.segments.isEmpty ? nil : indexFileForVerify(s)), s.generation)
            }
            var withLost = snapshot
            withLost.lost = LostAndFound(files: files).listing()
            let report = StoreVerifier(snapshot: withLost, directory: directory, progress: progress).run()
            guard !report.problems.isEmpty, attempts < Self.verifyAttempts,
                  filesSwitched(since: generation, segments: snapshot.segments) else { return report }
            attempts += 1
            if isReadOnly { _ = try? catchUpWithWriter() }
        }
    }

    /// How many times one verify() checks the store when compactions keep removing the
    /// files it reads.
    static let verifyAttempts = 4

    /// True when the store's files were switched since the manifest of `generation`
    /// (a compaction's new MANIFEST) and a segment of `segments` is gone from the
    /// directory: what could not be read there was removed, not damaged.
    private func filesSwitched(since generation: UInt64, segments: SegmentSet) -> Bool {
        guard let now = try? Manifest.read(in: directory, fileSystem: fileSystem), now.generation != generation
        else { return false }
        return segments.segments.contains { !now.segments.contains($0.number) && fileSystem.identityOfName($0.path) == nil }
    }

    /// The index file, opened read-only for verify (nil when it cannot be opened).
    private func indexFileForVerify(_ s: StoreState) -> DurableFile? {
        try? files.open(.index, number: s.indexFileNumber, writable: false)
    }
}
