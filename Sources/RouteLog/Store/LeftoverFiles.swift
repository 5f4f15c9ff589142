/// Files of the store that the manifest does not list, found when a writer opens it
/// (docs/recovery-and-compaction.md, "What is never destroyed"): work files of an
/// interrupted compaction or index rebuild, segments a compaction replaced, a manifest
/// being written. Each is deleted only when it provably holds nothing acknowledged that
/// the live files lack; anything else is moved into `lost/` and reported.
struct LeftoverFiles {
    let files: LogFiles
    let manifest: Manifest

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

    /// True when every record of the segment belongs to an id the manifest already
    /// counted (below its next route id): a copy, or what a compaction replaced. A
    /// segment that cannot be read whole, or that is no regular file, is not.
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
        return scan.events.allSatisfy { $0.id.rawValue < manifest.nextRouteID }
    }
}
