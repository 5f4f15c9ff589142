#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The store's `lost/` held open for one call of ``LostAndFound``: `lost/` by one
/// descriptor, opened in the store's directory as the store holds it (``HeldDirectory``)
/// and never through a link (O_DIRECTORY | O_NOFOLLOW). Every file made, opened,
/// renamed, listed or removed in `lost/`, and every sync of it, goes through that
/// descriptor (openat, renameat2, fdopendir, unlinkat, fsync), and a move's source
/// through the store directory's: neither a `lost/` swapped for a link to another
/// folder, or for another directory, once it is open, nor a link or a directory put at
/// the store's path leads anything there. ``checkStillNamed()`` then says whether
/// `lost/` still names the directory held, before a caller relies on what went into it.
final class LostDirectory {
    let fileSystem: any FileSystem
    /// The store's directory (held by the store, or for this call).
    let store: HeldDirectory
    /// `lost/`, in it.
    let lost: DirectoryRef
    /// `lost/`'s name in the store.
    let name: String

    private init(fileSystem: any FileSystem, store: HeldDirectory, lost: DirectoryRef, name: String) {
        self.fileSystem = fileSystem
        self.store = store
        self.lost = lost
        self.name = name
    }

    deinit {
        fileSystem.closeDirectory(lost)
    }

    /// `lost/`'s path (for messages).
    var path: String { lost.path }

    /// Opens the directory `name` in the store's directory `store`, first making it (and
    /// syncing the store's directory) when it is missing and `making` says so. Nothing
    /// is looked up by the store's path: `name` is opened, made and looked at through
    /// `store`'s descriptor.
    /// - Throws: `.corrupted` when a link or anything but a directory is at `name`; `.io`
    ///   with ENOENT when nothing is there and `making` is false, or with the errno of a
    ///   call that failed (ENOENT, naming the store's directory, when it was deleted).
    static func open(_ name: String, in store: HeldDirectory, fileSystem: any FileSystem, making: Bool) throws -> LostDirectory {
        let path = store.ref.path(name)
        do {
            var made = false
            while true {
                do {
                    let lost = try fileSystem.checked("open directory", path) {
                        try fileSystem.openDirectory(name, in: store.ref, flags: O_NOFOLLOW)
                    }
                    return LostDirectory(fileSystem: fileSystem, store: store, lost: lost, name: name)
                } catch let error as RouteLogError where error.errno == ENOENT && making && !made {
                    do {
                        try fileSystem.checked("mkdir", path) { try fileSystem.makeDirectory(name, in: store.ref) }
                    } catch let error as RouteLogError where error.errno == EEXIST {
                    } catch let error as RouteLogError where error.errno == ENOENT {
                        // Nothing can be made in a directory that was deleted.
                        throw RouteLogError(.io, "the store's directory was deleted while the store was open: nothing was "
                                                + "kept in \(name)/, and nothing was cut or moved", path: store.path, errno: ENOENT)
                    }
                    try fileSystem.checked("fsync directory", store.path) { try fileSystem.syncDirectory(store.ref) }
                    made = true
                }
            }
        } catch let error as RouteLogError where error.errno == ENOTDIR || error.errno == ELOOP {
            // (Linux answers ENOTDIR for a link too: the message asks which it is, in
            // the store's directory, never by its path.)
            switch fileSystem.typeOfName(name, in: store.ref) {
            case .symbolicLink?:
                throw RouteLogError.corrupted("\(name) in the store is a link; RouteLog does not follow links", path: path)
            case .regular?, .other?:
                throw RouteLogError.corrupted("\(name) in the store is not a directory; RouteLog keeps what it cannot use there", path: path)
            default:
                throw RouteLogError.corrupted("\(name) in the store was a link or not a directory as RouteLog opened it, and "
                                              + "changed since; RouteLog keeps what it cannot use in a directory of that name: "
                                              + "try again", path: path)
            }
        }
    }

    /// The names in `lost/`.
    func names() throws -> [String] {
        try fileSystem.checked("list", path) { try fileSystem.listDirectory(lost) }
    }

    /// Opens the regular file `name` in `lost/` (never through a link, never waiting on a FIFO).
    func open(_ name: String, flags: Int32) throws -> DurableFile {
        try DurableFile.open(name, in: lost, flags: flags, fileSystem: fileSystem)
    }

    /// Creates the new file `name` in `lost/` (O_EXCL: nothing at the name is followed or reused).
    func create(_ name: String) throws -> DurableFile {
        try DurableFile.create(name, in: lost, fileSystem: fileSystem)
    }

    /// Removes the name `name` from `lost/`.
    func remove(_ name: String) throws {
        try fileSystem.checked("unlink", lost.path(name)) { try fileSystem.unlink(name, in: lost) }
    }

    /// Moves the store's directory entry `name` (a file, a link, never what it points to)
    /// into `lost/` as `target`, never replacing anything there (EEXIST then).
    func moveIn(_ name: String, as target: String) throws {
        try fileSystem.checked("rename into \(self.name)/", store.ref.path(name)) {
            try fileSystem.renameExclusive(name, in: store.ref, to: target, in: lost)
        }
    }

    /// Renames `name` in `lost/` to `target`, replacing what is there only when `replacing`.
    func rename(_ name: String, to target: String, replacing: Bool) throws {
        try fileSystem.checked("rename", lost.path(name)) {
            if replacing {
                try fileSystem.rename(name, in: lost, to: target, in: lost)
            } else {
                try fileSystem.renameExclusive(name, in: lost, to: target, in: lost)
            }
        }
    }

    /// Device and inode of what is at `name` in `lost/`, never following a link.
    func identityOfName(_ name: String) -> FileIdentity? { fileSystem.identityOfName(name, in: lost) }

    /// The size of the regular file `name` in `lost/`, looked up without opening it (no
    /// read permission needed, no FIFO waited on); nil when no regular file is there or
    /// the file system cannot tell.
    func sizeOfName(_ name: String) -> Int64? { fileSystem.sizeOfName(name, in: lost) }

    /// Makes creations, renames and removals in `lost/` durable.
    func sync() throws {
        try fileSystem.checked("fsync directory", path) { try fileSystem.syncDirectory(lost) }
    }

    /// Makes a move out of the store's directory durable there.
    func syncStore() throws {
        try fileSystem.checked("fsync directory", store.path) { try fileSystem.syncDirectory(store.ref) }
    }

    /// Throws when `lost/` in the store no longer names the directory held (moved away,
    /// or replaced by a link or another directory, since it was opened): what went into
    /// it is in that directory, wherever it is now, and the store would report it at a
    /// place that is not its `lost/`. A file system that cannot tell identities passes.
    func checkStillNamed() throws {
        guard let held = fileSystem.identity(lost) else { return }
        guard fileSystem.identityOfName(name, in: store.ref) == held else {
            throw RouteLogError(.io, "\(name) in the store was moved or replaced while RouteLog kept bytes in it: they are in the "
                                    + "directory that was \(name) when RouteLog opened it, and nothing was cut or deleted; put that "
                                    + "directory back as \(name) (a directory, not a link) and try again", path: path)
        }
    }
}
