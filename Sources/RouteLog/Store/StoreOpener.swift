#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Opening a store (docs/recovery-and-compaction.md, "Opening"): check the directory,
/// take the writer's lock, read the manifest (or create the store), for a writer give it
/// its own copy of a file it writes that a hard link shares (LinkedFiles), open the
/// segments, recover the index, and for a writer cut torn tails, bring the index file up to date
/// and remove files a crash left behind.
struct StoreOpener {
    let directory: String
    let options: RouteStore.Options
    let fileSystem: any FileSystem
    /// The store's open segment descriptors, shared with the handle it opens.
    let segmentFiles: SegmentFileCache
    /// The directory a writer locked, held (``StoreLock/heldDirectory``): its uses of
    /// `lost/`, and its segments opened again, go through it.
    let held: HeldDirectory?
    /// The directory a read-only handle opened (``RouteStore/directoryIdentity``): its
    /// segments are opened again only there.
    let opened: DirectoryIdentity?

    /// An opener of the store at `directory`; without `segmentFiles`, it makes the cache of
    /// the handle it opens, which opens segments again through `held` or `opened`.
    init(directory: String, options: RouteStore.Options, fileSystem: any FileSystem, segmentFiles: SegmentFileCache? = nil,
         held: HeldDirectory? = nil, opened: DirectoryIdentity? = nil) {
        self.directory = directory
        self.options = options
        self.fileSystem = fileSystem
        self.held = held
        self.opened = opened
        self.segmentFiles = segmentFiles ?? SegmentFileCache(
            capacity: options.openSegmentFileLimit,
            store: LogFiles(directory: directory, fileSystem: fileSystem, protection: options.fileProtection, held: held, opened: opened))
    }

    var files: LogFiles {
        LogFiles(directory: directory, fileSystem: fileSystem, protection: options.fileProtection, segmentFiles: segmentFiles,
                 held: held, opened: opened)
    }
    var writable: Bool { options.mode != .readOnly }

    /// Makes sure the directory is there (creating it when the mode allows).
    func prepareDirectory() throws {
        switch fileSystem.isDirectory(directory) {
        case nil:
            guard options.mode == .createIfMissing else {
                throw absence(of: directory, RouteLogError(.notFound, "there is no RouteLog store here", path: directory))
            }
            do {
                try fileSystem.checked("mkdir", directory) { try fileSystem.makeDirectory(directory) }
            } catch let error as RouteLogError where error.errno == EEXIST {
                // Another creator made it first: open what is there.
            }
            // Files created in the directory later take its class by default.
            if let ref = try? fileSystem.open(directory, flags: O_RDONLY | O_DIRECTORY, mode: 0) {
                defer { fileSystem.close(ref) }
                try options.fileProtection.apply(toDescriptor: ref.fd, path: directory)
            }
            let parent = (directory as NSString).deletingLastPathComponent
            try fileSystem.checked("fsync directory", parent) { try fileSystem.syncDirectory(parent.isEmpty ? "." : parent) }
        case false?:
            throw RouteLogError(.invalidArgument, "this is a file, not a RouteLog store directory; pass the store's directory", path: directory)
        case true?:
            break
        }
    }

    /// The manifest, creating the store first when there is none and the mode allows.
    func readOrCreateManifest() throws -> Manifest {
        if let manifest = try Manifest.read(in: directory, fileSystem: fileSystem) { return manifest }
        guard options.mode == .createIfMissing else {
            throw RouteLogError(.notFound, "there is no RouteLog store here (no MANIFEST)", path: directory)
        }
        try StoreCreation(files: files).create()
        guard let manifest = try Manifest.read(in: directory, fileSystem: fileSystem) else {
            throw RouteLogError.corrupted("the store was created but its MANIFEST is missing", path: directory)
        }
        return manifest
    }

    /// Opens every segment the manifest lists; each `end` is the file's size until
    /// recovery finds where its valid records end.
    func openSegments(_ manifest: Manifest) throws -> (SegmentSet, damage: [DamagedRange]) {
        var set = SegmentSet()
        var damage: [DamagedRange] = []
        for (position, number) in manifest.segments.enumerated() {
            let path = files.path(FormatConstants.segmentName(number))
            let file: DurableFile
            do {
                file = try files.open(.segment, number: number, writable: writable)
            } catch let error as RouteLogError where error.errno == ENOENT {
                throw RouteLogError.corrupted("segment \(number) is listed in the manifest but missing; restore it from a backup", path: path)
            } catch let error as RouteLogError where !writable && (error.errno == EACCES || error.errno == EPERM)
                && position < manifest.segments.count - 1 {
                // A sealed segment a reader may not open costs only its own routes, as
                // damage does: the index lists them, and reading one says why it cannot
                // be read (IndexRecovery refuses the open if the index does not cover
                // the whole file). Its size needs no permission to read it.
                guard let size = fileSystem.sizeOfName(path) else { throw error }
                set.append(LogSegment(unreadable: error, number: number, path: path, end: size, fileSystem: fileSystem))
                continue
            }
            let headerBytes = try file.read(at: 0, count: FormatConstants.fileHeaderSize)
            var version = FormatConstants.version
            var headerDamaged = false
            do {
                let header = try FileHeader.decode(headerBytes, path: path, expecting: .segment)
                version = header.version
                guard header.fileNumber == number else {
                    throw RouteLogError.corrupted("the segment's header says file \(header.fileNumber), its name says \(number)", path: path, offset: 12)
                }
            } catch let error as RouteLogError where error.code == .corrupted {
                // The manifest vouches for this file; its records check themselves, so a
                // damaged header costs only the header (its version field, if plausible,
                // still says how payloads are stored).
                damage.append(DamagedRange(path: path, offset: 0, length: Int64(FormatConstants.fileHeaderSize)))
                headerDamaged = true
                if headerBytes.count >= 12, (1...FormatConstants.version).contains(UInt16(headerBytes[10]) | UInt16(headerBytes[11]) << 8) {
                    version = UInt16(headerBytes[10]) | UInt16(headerBytes[11]) << 8
                }
            }
            set.append(LogSegment(number: number, file: file, end: try file.size(), version: version,
                                  cache: segmentFiles, writable: writable, headerDamaged: headerDamaged))
        }
        return (set, damage)
    }

    /// Refuses a path without a store before anything is written there, when the mode
    /// does not create one (a writer would otherwise leave a LOCK file behind).
    func checkStoreExists() throws {
        guard options.mode != .createIfMissing else { return }
        let manifest = files.path(FormatConstants.manifestName)
        guard fileSystem.isDirectory(manifest) == false else {
            throw absence(of: manifest, RouteLogError(.notFound, "there is no RouteLog store here (no MANIFEST)", path: directory))
        }
    }

    /// Why `path`, which could not be looked at, is not there to open: `missing` when
    /// it does not exist, else what opening it says (another user's store, a directory
    /// this user may not search, is a permission error, not a missing store).
    private func absence(of path: String, _ missing: RouteLogError) -> RouteLogError {
        do {
            let ref = try fileSystem.checked("open", path) { try fileSystem.open(path, flags: O_RDONLY, mode: 0) }
            fileSystem.close(ref)
            return missing
        } catch let error as RouteLogError where error.errno != nil && error.errno != ENOENT && error.errno != ENOTDIR {
            return error
        } catch {
            return missing
        }
    }

    /// Opens the store's files and recovers its state; a writer also gets its side.
    func open() throws -> (StoreState, StoreWriter?) {
        // A reader's mark is read before anything it lists: a cut after it shows as a
        // new mark at the next catch-up.
        let mark = writable ? nil : WriterMark.read(in: directory, fileSystem: fileSystem)
        let manifest = try readOrCreateManifest()
        // A writer's appends and cuts must not reach a file another store's name shares.
        let linked = writable ? try LinkedFiles(files: files).makePrivate(manifest) : false
        var (segments, headerDamage) = try openSegments(manifest)
        let indexFile = try? files.open(.index, number: manifest.indexFile, writable: writable)
        let recovery = try IndexRecovery(segments: segments, indexFile: indexFile, indexNumber: manifest.indexFile,
                                         copiedFromAnotherStore: linked)
        for (number, end) in recovery.segmentEnds { segments.setEnd(end, of: number) }
        var state = StoreState(index: recovery.index, segments: segments, generation: manifest.generation,
                               indexFileNumber: manifest.indexFile, indexBytes: recovery.indexEnd, directory: directory)
        state.settings = manifest.settings
        state.manifestNextRouteID = manifest.nextRouteID
        state.manifestNextFileNumber = manifest.nextFileNumber
        state.openDamage = headerDamage + recovery.damage
        state.tornTails = recovery.tornTails
        state.indexRebuilt = recovery.indexUnusable
        state.indexDamaged = recovery.indexFileDamaged && !writable
        guard writable else {
            let last = segments.segments.last!
            state.followedTail = try FollowedTail.take(of: last, from: recovery.lastRecordStarts[last.number])
            state.followedMark = mark
            return (state, nil)
        }

        let nextRouteID = max(manifest.nextRouteID, recovery.index.maxSeenID + 1)
        let log = SegmentLog(segments: segments)
        try keepAndCutTornTail(of: log.active, tail: recovery.tornTails.first { $0.path == log.active.path })
        var writer = StoreWriter(log: log, index: IndexFile(number: manifest.indexFile, file: nil, end: 0),
                                 manifest: ManifestWriter(files: files, current: manifest),
                                 nextRouteID: nextRouteID, options: options)
        let rewrite = recovery.indexUnusable || recovery.indexVersion < FormatConstants.version || linked
        // The records the index is to cover anew were read from the page cache: a writer
        // killed before its sync (a buffered save, or a save not yet answered) leaves
        // them there, not yet on disk. Synced first, so that the index vouches only for
        // records on disk, and leftovers are judged against records on disk only.
        if rewrite || !recovery.caughtUp.isEmpty { try writer.log.syncActive() }
        // Files a writer or compaction left unlisted are judged before this open makes
        // any file: one of them may hold the next file number (a file made before its
        // number was committed), which a roll or an index rewrite below reserves again.
        state.movedToLost = LeftoverFiles(files: files, manifest: writer.manifest.current, index: state.index,
                                           segments: writer.log.segments, damageFound: !state.openDamage.isEmpty || !state.tornTails.isEmpty || state.indexRebuilt,
                                           firstLaterFileNumber: manifest.nextFileNumber).clear()
        // Damage met while opening may have been the record that made an id known: the
        // ids of the records the replay found no trace for are noted before any index is
        // written without them (compaction keeps their records).
        if !state.openDamage.isEmpty { _ = try writer.noteLostIDs(LostIDs(state.index.untracedIDs)) }
        // Appends go after whole records of the current version only: a last segment
        // holding damage, or written by version 1, is left as it is for a new one.
        let activePath = writer.log.active.path
        if writer.log.active.version < FormatConstants.version || state.openDamage.contains(where: { $0.path == activePath }) {
            try writer.roll()
        }
        if rewrite {
            // The index file replaced (unusable, of an older version, or shared with
            // another store) is no longer listed: removed (its name only, never
            // followed), as leftovers are above.
            let replaced = try writer.rewriteIndex(state.index)
            files.remove([replaced], keeping: writer.manifest.current)
        } else if let indexFile = recovery.indexFile {
            if recovery.indexTornTail != nil { try indexFile.truncate(to: recovery.indexEnd) }
            writer.index = IndexFile(number: manifest.indexFile, file: indexFile, end: recovery.indexEnd,
                                     singleRecords: recovery.indexSingleRecords)
            writer.index.append(recovery.caughtUp)
            writer.index.syncQuietly()
        }
        state.segments = writer.log.segments
        state.settings = writer.manifest.current.settings
        state.generation = writer.manifest.current.generation
        state.indexFileNumber = writer.index.number
        state.indexBytes = writer.index.end
        state.indexSingleRecords = writer.index.singleRecords
        return (state, writer)
    }

    /// A writer cuts the torn tail of the segment it will append to, after copying it
    /// into `lost/`: the index does not vouch for it, but nothing proves it held no
    /// acknowledged change.
    private func keepAndCutTornTail(of active: LogSegment, tail: DamagedRange?) throws {
        guard let tail, tail.offset == active.end else { return }
        try LostAndFound(files: files).keepCopy(
            of: active.file, name: FormatConstants.segmentName(active.number), from: tail.offset, length: tail.length,
            reason: "a torn tail (no whole record, and the index names none there), cut so appends follow whole records")
        try active.file.truncate(to: active.end)
        try active.file.syncData()
    }

}
