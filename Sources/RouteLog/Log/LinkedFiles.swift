#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
/// link, each is replaced by a copy of its own: copied whole, synced, and swapped with
/// the file at its name, leaving the file the other names lead to exactly as it was
/// (and anything else found at the name in `lost/`). The index is
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
        if files.hasName(temporaryName) {
            // Unlinked only while the name still leads to the file compared: one renamed
            // to it since is kept, as anything else there is.
            if let leftover = DurableFile.openIfRegular(temporary, fileSystem: fileSystem), try leftover.isPrefix(of: shared),
               let compared = fileSystem.identity(leftover.ref), files.identityOfName(temporaryName) == compared {
                try fileSystem.checked("unlink", temporary) { try fileSystem.unlink(temporary) }
            } else {
                try LostAndFound(files: files).moveAside(temporaryName, reason: "was in the way of a copy of \(name) of this store's own")
            }
        }
        guard try linkCount(shared) > 1 else { return false }
        try copy(shared, named: name)
        try files.syncDirectory()
        return true
    }

    /// Writes a copy of `shared` (the store file `name`) at the name with `.tmp` (free by
    /// now), syncs it, and puts it in place (``putInPlace(_:replacing:)``); a copy that
    /// fails is removed.
    func copy(_ shared: DurableFile, named name: String) throws {
        let fileSystem = files.fileSystem
        let temporary = files.path(name + FormatConstants.temporarySuffix)
        let copy = try DurableFile.create(temporary, fileSystem: fileSystem)
        let made = fileSystem.identity(copy.ref)
        do {
            try files.protect(copy)
            try copy.copy(from: shared)
            try copy.syncAll()
        } catch {
            try? removeCopy(made, named: name)
            throw error
        }
        try putInPlace(name, replacing: shared, copy: made)
    }

    /// Removes the copy `made` from the name with `.tmp`: unlinked while the name leads to
    /// it; anything else found there (a file renamed to the name since the copy was made)
    /// is moved into `lost/`, never unlinked.
    private func removeCopy(_ made: FileIdentity?, named name: String) throws {
        let fileSystem = files.fileSystem
        let temporaryName = name + FormatConstants.temporarySuffix
        let temporary = files.path(temporaryName)
        guard let there = files.hasName(temporaryName) ? files.identityOfName(temporaryName) : nil else { return }
        if let made, there == made {
            try fileSystem.checked("unlink", temporary) { try fileSystem.unlink(temporary) }
        } else {
            try LostAndFound(files: files).moveAside(temporaryName, reason: "was put in the place of a copy of \(name) of this store's own")
        }
    }

    /// Puts the copy at `name` with `.tmp` in place at `name`, replacing nothing it has not
    /// checked: the two names swap their files in one step (``FileSystem/exchange(_:with:)``),
    /// and what the temporary name leads to then is looked at. The file that was opened, still
    /// under another name, loses this one (its bytes stay, for the other store);
    /// anything else (a file renamed to `name` after the link count was looked at, or
    /// the shared file whose other names went meanwhile, which may hold bytes written
    /// after the copy) is moved into `lost/`, never unlinked.
    ///
    /// A swap rather than LostAndFound's scheme for a shared `lost/LOG` (the shared file
    /// renamed to a free name, then the copy renamed to the name, replacing nothing):
    /// between those two renames the name leads nowhere, and a crash there leaves the
    /// MANIFEST naming a last segment or index that is missing. With the swap, the name
    /// leads to the shared file or to the whole, synced copy at every instant; a crash
    /// after it leaves the shared file at the temporary name, which the next open's
    /// ``makePrivate(_:)`` removes when the copy holds all of its bytes and keeps in
    /// `lost/` otherwise. The name is then looked at: should it lead to anything but the
    /// copy made (a file renamed to the temporary name after the copy was synced), the
    /// two are swapped back and that file is kept in `lost/`, and the open fails with
    /// nothing changed. A file system that cannot swap (some network ones, ENOTSUP)
    /// gets a look then a rename, which leaves a moment between the two, as
    /// ``FileSystem/renameExclusive(_:to:)`` does there: the rename is made only while
    /// the name leads to the shared file, the temporary name to the copy, and the shared
    /// file has another name still (its last name would take its bytes with it).
    private func putInPlace(_ name: String, replacing shared: DurableFile, copy made: FileIdentity?) throws {
        let fileSystem = files.fileSystem
        let path = files.path(name)
        let temporaryName = name + FormatConstants.temporarySuffix
        let temporary = files.path(temporaryName)
        let own = fileSystem.identity(shared.ref)
        let changed = RouteLogError(.io, "the file, or the copy RouteLog made of it for the store, was replaced or lost its other names meanwhile; "
                                        + "nothing was changed (anything put in their place is in lost/): open the store again", path: path)
        do {
            try fileSystem.checked("rename", temporary) { try fileSystem.exchange(temporary, with: path) }
        } catch let error as RouteLogError where error.errno == ENOTSUP {
            // A rename replaces what is at the name: only the shared file, while it has
            // another name still (else its last name, and its bytes, would go), and only by
            // the copy made.
            guard let own, let made, files.identityOfName(name) == own, files.identityOfName(temporaryName) == made,
                  try linkCount(shared) > 1 else {
                try? removeCopy(made, named: name)
                throw changed
            }
            try fileSystem.checked("rename", temporary) { try fileSystem.rename(temporary, to: path) }
            return
        } catch {
            try? removeCopy(made, named: name)
            throw error
        }
        // What took the name must be the copy made: a file renamed to the temporary name
        // since then would otherwise stand for the store's file. The two are swapped back,
        // and that file is kept in lost/.
        if let made, files.identityOfName(name) != made {
            try fileSystem.checked("rename", temporary) { try fileSystem.exchange(temporary, with: path) }
            try removeCopy(made, named: name)
            throw changed
        }
        // The shared file, with another name still: this one goes, its bytes stay.
        if let own, files.identityOfName(temporaryName) == own, try linkCount(shared) > 1 {
            try fileSystem.checked("unlink", temporary) { try fileSystem.unlink(temporary) }
        } else if files.hasName(temporaryName) {
            try LostAndFound(files: files).moveAside(temporaryName, reason: "was at \(name) when this store's copy of it took its place")
        }
    }
}
