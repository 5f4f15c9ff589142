#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Store files that another name also leads to (hard links: a store copied with
/// `cp -al`, a backup made with `rsync --link-dest`, a directory of links made by hand).
/// A writer changes two of its files in place: it appends to and cuts the last segment,
/// and appends to and cuts the index. Were one of them shared, one store's writes would
/// land in the other's: its records replayed there as the other store's routes, its
/// torn-tail cut taking the other's records with it (docs/recovery-and-compaction.md,
/// "One writer").
///
/// So before a writer writes one of them, a file with more than one link is replaced by
/// a copy of its own: copied whole, synced, and renamed over its name, leaving the file
/// the other names lead to exactly as it was. Sealed segments are never written, only
/// read and, by compaction, replaced by new files, so they stay shared and cost no space.
struct LinkedFiles {
    let files: LogFiles

    /// Makes the files `manifest`'s writer changes in place its own: the last segment
    /// and the index. Returns the names it copied.
    @discardableResult
    func makePrivate(_ manifest: Manifest) throws -> [String] {
        var names = [FormatConstants.indexName(manifest.indexFile)]
        if let last = manifest.segments.last { names.insert(FormatConstants.segmentName(last), at: 0) }
        return try names.filter { try makePrivate($0) }
    }

    /// Replaces the store file `name` by a copy of its own when another name shares it;
    /// true when it did. A missing file, or anything but a regular file, is left to the
    /// caller's own open to report.
    func makePrivate(_ name: String) throws -> Bool {
        let fileSystem = files.fileSystem
        let path = files.path(name)
        guard let shared = try? DurableFile.open(path, flags: O_RDONLY, fileSystem: fileSystem),
              try DurableFile.retrying("fstat", path: path, { try fileSystem.linkCount(shared.ref) }) > 1 else { return false }
        // The copy's name is the file's own with `.tmp`: a copy a crash left behind is a
        // leftover the next writer's open judges like any other (LeftoverFiles). Anything
        // already there is moved into `lost/` first, never followed or overwritten.
        let temporaryName = name + FormatConstants.temporarySuffix
        let temporary = files.path(temporaryName)
        if fileSystem.isSymbolicLink(temporary) != nil {
            try LostAndFound(files: files).moveAside(temporaryName, reason: "was in the way of a copy of \(name) of this store's own")
        }
        let copy = try DurableFile.create(temporary, fileSystem: fileSystem)
        do {
            try files.protect(copy)
            try copy.copy(from: shared)
            try copy.syncAll()
            try fileSystem.checked("rename", temporary) { try fileSystem.rename(temporary, to: path) }
        } catch {
            try? fileSystem.unlink(temporary)
            throw error
        }
        try files.syncDirectory()
        return true
    }
}
