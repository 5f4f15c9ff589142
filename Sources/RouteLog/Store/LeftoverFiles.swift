/// Files of the store that the manifest does not list, found when a writer opens it
/// (docs/recovery-and-compaction.md, "What is never destroyed"): work files of an
/// interrupted compaction or index rebuild, segments a compaction replaced, a manifest
/// being written. Each is deleted only when it provably holds nothing acknowledged that
/// the live files lack; anything else is moved into `lost/` and reported.
struct LeftoverFiles {
    let files: LogFiles
    let manifest: Manifest
    /// The state the live files make.
    let index: RouteIndex

    /// What was moved into `lost/`, by name.
    @discardableResult
    func clear() -> [String] {
        guard let names = try? files.fileSystem.listDirectory(files.directory) else { return [] }
        let live = Set(manifest.segments.map(FormatConstants.segmentName) + [FormatConstants.indexName(manifest.indexFile)])
        var redundant: [String] = []
        var movedAside: [String] = []
        for name in names where !live.contains(name) && StoreFiles.isStoreFile(name)
            && ![FormatConstants.manifestName, FormatConstants.lockName, LostAndFound.directoryName].contains(name) {
            if !name.hasPrefix(FormatConstants.segmentPrefix) || isRedundantSegment(name) {
                redundant.append(name)
            } else if (try? LostAndFound(files: files).moveAside(name, reason: "a segment the manifest does not list, holding records it cannot prove are elsewhere")) != nil {
                movedAside.append(name)
            }
        }
        files.remove(redundant, keeping: manifest)
        return movedAside
    }

    /// True when every record of the segment is one the live files already hold or
    /// have made moot: a copy, or what a compaction replaced. Each record's id must be
    /// one the manifest already counted (below its next route id), and
    /// - a RecordingChunk's recording is finished or gone, or still open with that very
    ///   chunk; a RecordingFinish's or RecordingDiscard's recording is no longer open;
    /// - a RouteDelete's route is no longer live;
    /// - a MetadataEdit's route is no longer live, holds that very metadata, or has its
    ///   latest edit in a segment numbered after this one (file numbers only grow: a later
    ///   segment holds a later change, or a compaction's copy of the latest).
    /// A change only in the leftover (the newer segments of a store whose MANIFEST was
    /// replaced by an older copy) is an acknowledged change the live files lack. A
    /// segment that cannot be read whole, or that is no regular file, is not redundant
    /// either. A RoutePut or RecordingStart is written when its id is handed out, into
    /// the segment then active, which every manifest counting the id lists.
    private func isRedundantSegment(_ name: String) -> Bool {
        guard let file = try? files.open(.segment, number: 0, writable: false, name: name),
              let size = try? file.size(),
              let headerBytes = try? file.read(at: 0, count: FormatConstants.fileHeaderSize),
              let header = try? FileHeader.decode(headerBytes, path: file.path, expecting: .segment)
        else { return false }
        let segment = LogSegment(number: header.fileNumber, file: file, end: size, version: header.version)
        guard let scan = try? IndexRecovery.scan(segment, from: Int64(FormatConstants.fileHeaderSize)),
              scan.damage.isEmpty, scan.tornTail == nil
        else { return false }
        return scan.events.allSatisfy { event in
            guard event.id.rawValue < manifest.nextRouteID else { return false }
            switch event {
            case .put, .recordingStart:
                return true
            case .recordingChunk(let id, let first, let count, _):
                return index.recordings[id].map { $0.chunks.contains { $0.firstPoint == first && $0.pointCount == count } } ?? true
            case .recordingFinish(let id, _, _, _), .recordingDiscard(let id, _):
                return index.recordings[id] == nil
            case .delete(let id, _):
                return !index.routes.contains(id)
            case .edit(let id, let metadata, _):
                guard let route = index.routes[id], route.metadata != metadata else { return true }
                return index.routes.locations(id)?.edit.map { $0.segment > header.fileNumber } ?? false
            }
        }
    }
}
