#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The open descriptors of one store's segments, at most ``capacity`` of them, least
/// recently used closed first (issue: "any number of segments under a small file
/// limit"). A store of a thousand segments then needs a few dozen descriptors, not a
/// thousand. A file taken from here stays open while its user holds it (a scan, a read):
/// eviction only drops the cache's reference, and the descriptor closes with the last one.
///
/// A file opened again must be the very file the store opened (``SegmentFile/identity``,
/// its device and inode, and ``SegmentFile/birth``, when it was made, for an inode number
/// a removed file freed is soon given again), not only a file with the segment's header: a copy of the
/// segment restored over it, a backup's copy renamed in, or the store's directory moved
/// away and another store's put at its path all give a file whose header names the
/// same number. It is opened in the directory the writer holds, and a read-only
/// handle's only in the directory it opened (``LogFiles/reopenFile(_:flags:)``). A
/// writer never gives a segment another file once it has opened it (a compaction writes
/// new numbers and removes the old files; a writer's open gives its last segment a copy
/// of its own before it opens it, LinkedFiles), so a file found changed was replaced
/// from outside, and is refused. A read-only handle's last segment may become another
/// file at a writer's open (that copy): its catch-up with the writer reads the store
/// again (RouteStore+WriterCatchUp), and until then the segment is refused as any
/// replaced file is.
final class SegmentFileCache: Sendable {
    /// Most descriptors kept open when no one is using them.
    let capacity: Int
    private let state: StateLock<Entries>

    private struct Entries {
        var files: [String: (file: DurableFile, used: UInt64)] = [:]
        var clock: UInt64 = 0
        var opens = 0
        /// Set when the store closed: nothing is kept from then on.
        var closed = false
        /// The store's files, where an evicted segment is opened again; the writer's held
        /// directory is let go when the store closes.
        var store: LogFiles
    }

    /// A cache of the segments of `store` (whose own ``LogFiles/segmentFiles`` it ignores).
    init(capacity: Int, store: LogFiles) {
        self.capacity = max(1, capacity)
        var store = store
        store.segmentFiles = nil
        state = StateLock(Entries(store: store))
    }

    /// Descriptors the cache holds now.
    var openCount: Int { state.withLock { $0.files.count } }
    /// Files opened again after eviction, since the cache was made (for tests and statistics).
    var reopenCount: Int { state.withLock { $0.opens } }

    /// Keeps a file just opened or created under its path, as the most recently used.
    func insert(_ file: DurableFile) {
        let capacity = self.capacity
        state.withLock { entries in
            guard !entries.closed else { return }
            entries.clock += 1
            entries.files[file.path] = (file, entries.clock)
            Self.evict(&entries, keeping: capacity)
        }
    }

    /// The open file of `segment`, opened again when it was evicted.
    ///
    /// - Throws: `.corrupted` when the name now leads to something else (no regular
    ///   file, another file than the one the store opened, or a header naming another
    ///   file number); `.io` when it cannot be opened (ENOENT when a compaction has
    ///   removed it since the caller took its segment list), or when the directory at a
    ///   read-only handle's path is no longer the one it opened (moved or replaced).
    func file(for segment: SegmentFile) throws -> DurableFile {
        let capacity = self.capacity
        return try state.withLock { entries in
            entries.clock += 1
            if let hit = entries.files[segment.path] {
                entries.files[segment.path] = (hit.file, entries.clock)
                return hit.file
            }
            let file = try Self.reopen(segment, entries: &entries)
            entries.opens += 1
            // A read that began before the store closed gets the file for itself: it
            // closes when that read is done.
            guard !entries.closed else { return file }
            entries.files[segment.path] = (file, entries.clock)
            Self.evict(&entries, keeping: capacity)
            return file
        }
    }

    /// Drops every descriptor and keeps none opened from now on: the store closed. A
    /// file in use by a read still under way closes when that read ends.
    func close() {
        state.withLock { entries in
            entries.closed = true
            entries.files.removeAll()
            entries.store.held = nil
        }
    }

    private static func reopen(_ segment: SegmentFile, entries: inout Entries) throws -> DurableFile {
        let name = FormatConstants.segmentName(segment.number)
        let flags = segment.writable ? O_RDWR : O_RDONLY
        let file: DurableFile
        do {
            file = try entries.store.reopenFile(name, flags: flags)
        } catch let error as RouteLogError where error.errno == EMFILE || error.errno == ENFILE {
            // Out of descriptors elsewhere in the process: give back half of ours once.
            evict(&entries, keeping: entries.files.count / 2)
            file = try entries.store.reopenFile(name, flags: flags)
        }
        // The file the store opened, or none: a copy under the name holds the same
        // header, and may hold the same bytes only up to where it was made. The new
        // descriptor closes with `file` as this throws.
        guard segment.isOpenedFile(file) else {
            throw RouteLogError.corrupted("segment \(segment.number)'s file was replaced by another file while the store was open "
                                          + "(its name now leads to a file the store did not open, whatever its header says): "
                                          + "it is not read as the segment; open the store again to read what is there now",
                                          path: segment.path, offset: 0)
        }
        // Numbers are never reused, so a header naming another number means the name now
        // holds a different file: never read another file's bytes as this segment's.
        let header = try file.read(at: 0, count: FormatConstants.fileHeaderSize)
        if header.count >= 16 {
            let number = UInt32(header[12]) | UInt32(header[13]) << 8 | UInt32(header[14]) << 16 | UInt32(header[15]) << 24
            guard number == segment.number || segment.headerDamaged else {
                throw RouteLogError.corrupted("segment \(segment.number) was replaced by another file (its header says \(number)) while the store was open",
                                              path: segment.path, offset: 12)
            }
        }
        return file
    }

    private static func evict(_ entries: inout Entries, keeping limit: Int) {
        while entries.files.count > limit,
              let oldest = entries.files.min(by: { $0.value.used < $1.value.used })?.key {
            entries.files[oldest] = nil
        }
    }
}
