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
    /// The live segments, whose records a leftover's are checked against.
    let segments: SegmentSet
    /// True when the open found damage in the live files, a torn tail, or an index it
    /// had to rebuild: then an id they know nothing of may be a route whose record was
    /// damaged or cut off (not one deleted and compacted away).
    let damageFound: Bool
    /// The next file number of the MANIFEST as the open read it (before the writer
    /// handed out any): a segment numbered below it existed when that MANIFEST was
    /// written; one at or above it was made later (after an older MANIFEST came back,
    /// say, or by a compaction whose switch never happened).
    let firstLaterFileNumber: UInt32

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
    /// one the manifest already counted (below its next route id), and for its id:
    /// - a live route: its records read back whole; a RouteDelete is then not held, and
    ///   a MetadataEdit is held when the route has that metadata, or when the open found
    ///   no damage, the route has an edit of its own and the leftover existed when the
    ///   MANIFEST was written (a segment a compaction replaced, or the output of a
    ///   compaction whose switch never happened, since a compaction commits the next
    ///   file number before it creates an output: its latest edit was copied, so the
    ///   live edit is that one or a later one; file numbers say nothing of replay
    ///   order, since a compaction's output takes its run's place);
    /// - an open recording: the record is its start or one of its chunks, which read
    ///   back whole (a finish, discard, edit or delete is a change the live files lack);
    /// - a tombstone: held while the records that make it read back (the id is deleted
    ///   or discarded);
    /// - nothing: held only when the open found no damage and the manifest does not
    ///   say the id may have lost a record (``StoreSettings/lostIDs``), so the id was
    ///   deleted and compacted away, not lost with a damaged record.
    /// A change only in the leftover (the newer segments of a store whose MANIFEST was
    /// replaced by an older copy) or the only whole copy of a record (a compaction's
    /// output left by a crash, when the live record is damaged) is thus kept. A segment
    /// that cannot be read whole, or that is no regular file, is not redundant either;
    /// one a crash left without its header holds nothing and is.
    private func isRedundantSegment(_ name: String) -> Bool {
        guard let file = try? files.open(.segment, number: 0, writable: false, name: name),
              let size = try? file.size()
        else { return false }
        guard let headerBytes = try? file.read(at: 0, count: FormatConstants.fileHeaderSize),
              let header = try? FileHeader.decode(headerBytes, path: file.path, expecting: .segment)
        else { return Self.holdsNoRecord(file, size: size) }
        let segment = LogSegment(number: header.fileNumber, file: file, end: size, version: header.version)
        guard let scan = try? IndexRecovery.scan(segment, from: Int64(FormatConstants.fileHeaderSize)),
              scan.damage.isEmpty, scan.tornTail == nil
        else { return false }
        return scan.events.allSatisfy { event in
            let id = event.id
            guard id.rawValue < manifest.nextRouteID else { return false }
            if let route = index.routes[id] {
                guard readsBack(route) else { return false }
                switch event {
                case .put, .recordingStart, .recordingChunk, .recordingFinish: return true
                case .delete, .recordingDiscard: return false
                case .edit(_, var metadata, _):
                    _ = metadata.takeDerivedFields(of: route.metadata)  // as a replay reads it
                    return route.metadata == metadata
                        || (!damageFound && route.editLocation != nil && header.fileNumber < firstLaterFileNumber)
                }
            }
            if let recording = index.recordings[id] {
                guard recording.locations.allSatisfy(segments.holdsRecord(at:)) else { return false }
                switch event {
                case .recordingStart: return true
                case .recordingChunk(_, let first, let count, _):
                    return recording.chunks.contains { $0.firstPoint == first && $0.pointCount == count }
                default: return false
                }
            }
            if let tombstone = index.tombstones[id] {
                // Held only while the records that make the tombstone read back: the
                // leftover may hold the only whole copy of the delete.
                return tombstone.events.allSatisfy { segments.holdsRecord(at: $0.location) }
            }
            return !damageFound && manifest.settings.lostIDs?.contains(id.rawValue) != true
        }
    }

    /// True for a file a crash left before its header was written: shorter than a
    /// header, or nothing but zero bytes (the size made durable, the bytes not). A
    /// segment is created empty and then given its header, so such files are common
    /// after a crash, and no record can be in them. A file larger than any segment is
    /// not read (a planted sparse file of terabytes would cost the open that long): it
    /// goes to `lost/`, which costs a rename.
    private static func holdsNoRecord(_ file: DurableFile, size: Int64) -> Bool {
        guard size >= Int64(FormatConstants.fileHeaderSize) else { return true }
        guard size <= largestZeroFile else { return false }
        let chunk = 1 << 20
        var offset: Int64 = 0
        while offset < size {
            guard let bytes = try? file.read(at: offset, count: Int(min(Int64(chunk), size - offset))),
                  !bytes.isEmpty, bytes.allSatisfy({ $0 == 0 })
            else { return false }
            offset += Int64(bytes.count)
        }
        return true
    }

    /// The largest header-less file read through for zeros: 1 GiB and a record, more
    /// than a segment of the default size limit grows to. A larger one (a store with
    /// larger segments, or a planted file) goes to `lost/` instead: kept, not read.
    static let largestZeroFile: Int64 = (1 << 30) + Int64(FormatConstants.maxPayloadLength)

    /// True when every record of `route` reads back whole (its checksums hold).
    private func readsBack(_ route: IndexedRoute) -> Bool {
        var locations = [route.location] + (route.recorded?.locations ?? [])
        if let edit = route.editLocation { locations.append(edit) }
        return locations.allSatisfy(segments.holdsRecord(at:))
    }
}
