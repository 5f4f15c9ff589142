#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Creates, opens and removes the numbered files of a store (segments and indexes):
/// the one owner of their life cycle (format-spec.md, "Files of a store").
struct LogFiles: Sendable {
    let directory: String
    let fileSystem: any FileSystem
    /// The Data Protection class every file made here gets (no effect on Linux).
    var protection = RouteStore.FileProtection.completeUntilFirstUserAuthentication
    /// The store's open segment descriptors; nil keeps every segment's file open.
    var segmentFiles: SegmentFileCache? = nil
    /// The store's directory as the writer holds it (the directory it locked), which
    /// every use of `lost/` goes through; nil where none is held (a read-only handle,
    /// a closed writer, a file system that cannot tell identities).
    var held: HeldDirectory? = nil
    /// The directory a handle that holds none opened (a read-only handle's, taken before
    /// it read anything), which a use of `lost/` must find at the store's path.
    var opened: DirectoryIdentity? = nil

    func path(_ name: String) -> String { directory + "/" + name }

    /// The store's directory for one use of `lost/` (which every step of it goes
    /// through) or one segment opened again: the one the writer holds; else opened once by its path, and refused as
    /// moved when it is not the directory the handle opened (``opened``). Only a
    /// read-only handle follows a link at the path, as its open did.
    func storeDirectory() throws -> HeldDirectory {
        if let held { return held }
        return try HeldDirectory.open(directory, expecting: opened, following: opened != nil, fileSystem: fileSystem)
    }

    static func name(_ kind: FormatConstants.FileKind, _ number: UInt32) -> String {
        kind == .segment ? FormatConstants.segmentName(number) : FormatConstants.indexName(number)
    }

    /// lstat's device and inode of what is at `name` in the store's directory, never
    /// following a link: looked up in the held directory when there is one (``held``),
    /// else by its path.
    func identityOfName(_ name: String) -> FileIdentity? {
        if let held { return fileSystem.identityOfName(name, in: held.ref) }
        return fileSystem.identityOfName(path(name))
    }

    /// Whether anything (a file, a link, never followed) is at `name` in the store's
    /// directory: looked up as ``identityOfName(_:)`` is.
    func hasName(_ name: String) -> Bool {
        if let held { return fileSystem.identityOfName(name, in: held.ref) != nil }
        return fileSystem.isSymbolicLink(path(name)) != nil
    }

    /// Opens the regular file `name` of the store (never through a link, never waiting on
    /// a FIFO): in the held directory when there is one, else by its path.
    func openFile(_ name: String, flags: Int32) throws -> DurableFile {
        if let held { return try DurableFile.open(name, in: held.ref, flags: flags, fileSystem: fileSystem) }
        return try DurableFile.open(path(name), flags: flags, fileSystem: fileSystem)
    }

    /// Opens the regular file `name` of the store once more, for a handle that opened it
    /// before and closed it since (an evicted segment: ``SegmentFileCache``): in the held
    /// directory when there is one, so that a store moved while open is read where it
    /// went; else, for a handle that took the directory it opened (``opened``, a
    /// read-only handle's), only in that directory, found at the store's path and
    /// refused as moved when another is there; else by its path.
    func reopenFile(_ name: String, flags: Int32) throws -> DurableFile {
        guard held == nil, opened != nil else { return try openFile(name, flags: flags) }
        // Found in the directory by a descriptor that may only search it: opening the
        // file by its path needed no more (a store in a directory its reader may not list).
        let directory = try HeldDirectory.open(self.directory, expecting: opened, following: true, searchOnly: true, fileSystem: fileSystem)
        // Its descriptor closes with the last reference: kept until the file is open.
        return try withExtendedLifetime(directory) {
            try DurableFile.open(name, in: directory.ref, flags: flags, fileSystem: fileSystem)
        }
    }

    /// Creates the new regular file `name` of the store (O_EXCL: nothing at the name is
    /// followed or reused): in the held directory when there is one, else by its path.
    func createFile(_ name: String) throws -> DurableFile {
        if let held { return try DurableFile.create(name, in: held.ref, fileSystem: fileSystem) }
        return try DurableFile.create(path(name), fileSystem: fileSystem)
    }

    /// Creates a segment or index file holding only its header, synced, with the
    /// directory synced so the file survives a crash. The name is new (numbers are never
    /// reused): anything already there (a leftover, a planted link) is moved into `lost/`
    /// first, never followed or overwritten. A failure after the file was made removes
    /// it (it is this call's, and holds no more than a header), so that no caller is
    /// left with an unlisted file it never got.
    func create(_ kind: FormatConstants.FileKind, number: UInt32) throws -> DurableFile {
        let name = Self.name(kind, number)
        let file: DurableFile
        do {
            file = try DurableFile.create(path(name), fileSystem: fileSystem)
        } catch let error as RouteLogError where error.errno == EEXIST {
            try LostAndFound(files: self).moveAside(name, reason: "was in the way of a new \(kind == .segment ? "segment" : "index")")
            file = try DurableFile.create(path(name), fileSystem: fileSystem)
        }
        do {
            try protect(file)
            try file.write(FileHeader(kind: kind, fileNumber: number).encoded(), at: 0)
            try file.syncAll()
            try syncDirectory()
        } catch {
            try? fileSystem.unlink(file.path)
            throw error
        }
        return file
    }

    /// Opens an existing numbered file (or the file `name`, when given).
    func open(_ kind: FormatConstants.FileKind, number: UInt32, writable: Bool, name: String? = nil) throws -> DurableFile {
        try DurableFile.open(path(name ?? Self.name(kind, number)), flags: writable ? O_RDWR : O_RDONLY, fileSystem: fileSystem)
    }

    /// Gives a file this store made its protection class.
    func protect(_ file: DurableFile) throws {
        try protection.apply(toDescriptor: file.ref.fd, path: file.path)
    }

    func syncDirectory() throws {
        try fileSystem.checked("fsync directory", directory) { try fileSystem.syncDirectory(directory) }
    }

    /// Removes numbered files that `manifest` does not list (best effort: a file left
    /// behind is removed by the next writable open). Only names of store files are
    /// touched.
    func remove(_ names: [String], keeping manifest: Manifest) {
        let live = Set(manifest.segments.map(FormatConstants.segmentName) + [FormatConstants.indexName(manifest.indexFile)])
        var removed = false
        for name in names where !live.contains(name) && StoreFiles.isStoreFile(name)
            && name != FormatConstants.manifestName && name != FormatConstants.lockName && name != LostAndFound.directoryName {
            if (try? fileSystem.unlink(path(name))) != nil { removed = true }
        }
        if removed { try? syncDirectory() }
    }
}

/// Names of the files a store may hold (format-spec.md, "Files of a store").
enum StoreFiles {
    static func isStoreFile(_ name: String) -> Bool {
        var base = name
        if base.hasSuffix(FormatConstants.temporarySuffix) { base.removeLast(FormatConstants.temporarySuffix.count) }
        if base == FormatConstants.manifestName || base == FormatConstants.lockName
            || name == LostAndFound.directoryName { return true }
        func numbered(_ prefix: String, _ suffix: String) -> Bool {
            guard base.hasPrefix(prefix), base.hasSuffix(suffix), base.count > prefix.count + suffix.count else { return false }
            let digits = base.dropFirst(prefix.count).dropLast(suffix.count)
            return digits.allSatisfy { $0.isASCII && $0.isNumber }
        }
        return numbered(FormatConstants.segmentPrefix, FormatConstants.segmentSuffix)
            || numbered(FormatConstants.indexPrefix, FormatConstants.indexSuffix)
    }
}
