/// Store files that another name also leads to (hard links: a store copied with
/// `cp -al`, a backup made with `rsync --link-dest`, a directory of links made by hand).
/// A writer changes two of its store files in place: it appends to and cuts the last
/// segment, and appends to and cuts the index. Were one of them shared, one store's writes would
/// land in the other's: its records replayed there as the other store's routes, its
/// torn-tail cut taking the other's records with it (docs/recovery-and-compaction.md,
/// "One writer"). `LOCK` and `lost/LOG` have their own owners (StoreLock, LostAndFound),
/// which give a store its own file the same way.
///
/// So before a writer writes them, when the last segment or the index has more than one
/// link, each is replaced by a copy of its own: copied whole, synced, and renamed over
/// its name, leaving the file the other names lead to exactly as it was. The index is
/// copied first: another store's writer appends a record to the segment before its
/// entry to the index, so every entry of the copy names a record the segment's copy,
/// made after, holds; and the copy still vouches for the records it names, so damage
/// to one is reported as damage, not cut as a torn tail. (When that writer rolled to a
/// segment this store does not list, its entries from there on are its own: recovery
/// reads the copy up to the first of them, `IndexRecovery`'s `copiedFromAnotherStore`.)
/// The open then writes its index anew, which changes the MANIFEST and tells this
/// store's readers to read the store again rather than follow appends to the file they
/// hold (a reader also notices a last segment replaced under it:
/// RouteStore+WriterCatchUp). Sealed segments are never
/// written, only read and, by compaction, replaced by new files, so they stay shared
/// and cost no space.
struct LinkedFiles {
    let files: LogFiles

    /// Gives `manifest`'s writer an index and a last segment of its own, in that order;
    /// true when either was shared (the writer then writes its index anew).
    func makePrivate(_ manifest: Manifest) throws -> Bool {
        let index = try makePrivate(FormatConstants.indexName(manifest.indexFile))
        // Also clears a copy an earlier open's crash left, shared or not.
        let segment = try manifest.segments.last.map { try makePrivate(FormatConstants.segmentName($0)) } ?? false
        return index || segment
    }

    private func linkCount(_ file: DurableFile) throws -> Int {
        try DurableFile.retrying("fstat", path: file.path) { try files.fileSystem.linkCount(file.ref) }
    }

    /// Replaces the store file `name` by a copy of its own when another name shares it;
    /// true when it did. A missing file, or anything but a regular file, is left to the
    /// caller's own open to report.
    func makePrivate(_ name: String) throws -> Bool {
        let fileSystem = files.fileSystem
        let path = files.path(name)
        guard let shared = DurableFile.openIfRegular(path, fileSystem: fileSystem) else { return false }
        // The copy's name is the file's own with `.tmp`. One a crash cut short holds a
        // prefix of the file, which is still here: it goes. Anything else there is moved
        // into `lost/`, never followed or overwritten.
        let temporaryName = name + FormatConstants.temporarySuffix
        let temporary = files.path(temporaryName)
        if fileSystem.isSymbolicLink(temporary) != nil {
            if let leftover = DurableFile.openIfRegular(temporary, fileSystem: fileSystem), try holdsPrefix(of: shared, leftover) {
                try fileSystem.checked("unlink", temporary) { try fileSystem.unlink(temporary) }
            } else {
                try LostAndFound(files: files).moveAside(temporaryName, reason: "was in the way of a copy of \(name) of this store's own")
            }
        }
        guard try linkCount(shared) > 1 else { return false }
        try copy(shared, over: path, through: temporary)
        try files.syncDirectory()
        return true
    }

    /// Writes a copy of `shared` at `temporary` (a new name), syncs it, and renames it
    /// over `path`; a copy that fails is removed.
    func copy(_ shared: DurableFile, over path: String, through temporary: String) throws {
        let fileSystem = files.fileSystem
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
    }

    /// True when `leftover`'s bytes are the first bytes of `file`, a megabyte at a time.
    private func holdsPrefix(of file: DurableFile, _ leftover: DurableFile) throws -> Bool {
        let size = try leftover.size()
        guard size <= (try file.size()) else { return false }
        var done: Int64 = 0
        while done < size {
            let count = Int(min(size - done, 1 << 20))
            guard try leftover.read(at: done, count: count) == file.read(at: done, count: count) else { return false }
            done += Int64(count)
        }
        return true
    }
}
