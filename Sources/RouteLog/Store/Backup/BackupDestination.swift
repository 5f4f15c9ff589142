#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a backup goes: a directory that is missing (it is made), empty, or holds
/// only a store's files (an earlier backup, kept incrementally). Never a symbolic
/// link, a file, the store itself or a place inside the store's directory (by real
/// path: no link or `..` leads there), or a directory with anything else in it.
struct BackupDestination {
    /// The destination's real path (``RealPath``): where the backup is written.
    let path: String
    let fileSystem: any FileSystem
    /// Which directory was checked (nil on a file system that is not the system's): a
    /// folder on the way renamed and replaced by a link meanwhile would lead the same
    /// path elsewhere, perhaps into another store whose files the backup would replace
    /// and remove. ``checkUnmoved()`` compares before every change.
    let identity: DirectoryIdentity?
    /// The checked directory held open while the backup writes (``anchored()``): on
    /// Linux every file goes in through it, whatever happens to the path meanwhile.
    private(set) var anchor: DirectoryAnchor? = nil

    /// Checks the destination `given` (absolute, as the caller gave it: `..` after a
    /// link is the kernel's to resolve) and makes it when missing. Everything after
    /// the checks uses its real path, so that what was checked is where it writes.
    /// - Throws: `.invalidArgument` naming what is in the way; `.io`.
    static func prepare(_ given: String, source: String, fileSystem: any FileSystem) throws -> BackupDestination {
        let path: String
        switch RealPath.resolving(given) {
        case .success(let resolved):
            path = resolved
        case .failure(let failure) where failure.errno == ENAMETOOLONG:
            throw RouteLogError(.invalidArgument, "the backup destination's path is too long for the file system (a name over 255 bytes, or the whole path over \(PATH_MAX)); give a shorter path", path: given)
        case .failure(let failure) where failure.errno == EACCES:
            throw RouteLogError(.invalidArgument, "the backup destination's real path cannot be found: a folder on the way may not be searched (permission denied); give a path you may reach", path: given)
        case .failure:
            throw RouteLogError(.invalidArgument, "the backup destination's real path cannot be found (a symbolic link that leads to itself or to nothing, or a file where a folder should be); give a plain directory path", path: given)
        }
        if let store = RealPath.resolve(source), RealPath.isWithin(path, store) || isInside(path, store: source) {
            let what = path == store ? "the store itself" : "inside the store's directory \(store)"
            throw RouteLogError(.invalidArgument, "the backup destination is \(what); give a path outside the store's directory", path: given)
        }
        if fileSystem.isSymbolicLink(lastPartNamed(by: given)) == true {
            throw RouteLogError(.invalidArgument, "the backup destination is a symbolic link; give the directory it points to, or a new path", path: path)
        }
        var isDirectory = fileSystem.isDirectory(path)
        if isDirectory == nil {
            do {
                try fileSystem.checked("mkdir", path) { try fileSystem.makeDirectory(path) }
            } catch let error as RouteLogError where error.errno == EEXIST {
                // Another backup (or anyone) made it meanwhile: look at what is there.
                isDirectory = fileSystem.isDirectory(path)
            }
        }
        if isDirectory == false {
            throw RouteLogError(.invalidArgument, "the backup destination is a file, not a directory; give a new path or a directory", path: path)
        }
        // The directory is held from here on, and what is looked at is what is held: a
        // folder on the way swapped after the checks above leads the hold elsewhere only
        // to a directory that passes the checks below itself.
        let destination = try BackupDestination(path: path, fileSystem: fileSystem, identity: DirectoryIdentity(of: path)).anchored()
        if let anchor = destination.anchor, let store = DirectoryIdentity(of: source), anchor.isInside(store) {
            throw RouteLogError(.invalidArgument, "the backup destination is the store's directory or inside it; give a path outside the store's directory", path: given)
        }
        let looked = destination.readingPath
        let names: [String]
        do {
            names = try fileSystem.checked("list", looked) { try fileSystem.listDirectory(looked) }
        } catch let error as RouteLogError {
            throw destination.displayed(error)
        }
        if let stranger = names.first(where: { !StoreFiles.isStoreFile($0) }) {
            throw RouteLogError(.invalidArgument, "the backup destination holds '\(stranger)', which is no store file; give an empty directory, a new path or an earlier backup", path: path)
        }
        return destination
    }

    /// This destination with the checked directory held open (``anchor``): files are
    /// then made, renamed and removed through it.
    /// - Throws: `.io` when the path no longer leads to the directory that was checked.
    func anchored() throws -> BackupDestination {
        guard anchor == nil, let identity else { return self }
        guard let anchor = try DirectoryAnchor(holding: path, expected: identity) else { throw movedError }
        var anchored = self
        anchored.anchor = anchor
        return anchored
    }

    /// Throws when the path no longer leads to the directory that was checked. Called
    /// before each file is made, renamed or removed there: what is left is the moment
    /// between the check and the call. The anchor's open directory keeps its inode from
    /// being reused meanwhile, so an equal identity is the same directory.
    /// - Throws: `.io` naming the destination.
    func checkUnmoved() throws {
        guard let identity else { return }
        guard DirectoryIdentity(of: path) == identity else { throw movedError }
    }

    private var movedError: RouteLogError {
        RouteLogError(.io, "the backup destination was moved or replaced while the backup ran (the path no longer leads to the directory that was checked); nothing more was written there. Check who changes it, then back up again", path: path)
    }

    /// `error` naming the destination's own path, not the anchor's.
    func displayed(_ error: RouteLogError) -> RouteLogError { anchor?.displayed(error) ?? error }

    /// `path` without the trailing slashes and `.` parts that make lstat(2) follow a
    /// link at its end: "link/." and "link/" name the link as "link" does.
    private static func lastPartNamed(by path: String) -> String {
        var path = Substring(path)
        while true {
            if path.hasSuffix("/.") {
                path = path.dropLast(2)
            } else if path.count > 1 && path.hasSuffix("/") {
                path = path.dropLast()
            } else {
                return path.isEmpty ? "/" : String(path)
            }
        }
    }

    /// Whether the deepest existing folder of `path` (a real path), or one above it, is
    /// the store's directory itself by device and inode: a second way to the same
    /// directory that paths do not show (a bind mount, a file system that ignores case).
    private static func isInside(_ path: String, store: String) -> Bool {
        guard let identity = DirectoryIdentity(of: store) else { return false }
        var folder = path
        while true {
            if DirectoryIdentity(of: folder) == identity { return true }
            guard folder != "/", let slash = folder.lastIndex(of: "/") else { return false }
            folder = slash == folder.startIndex ? "/" : String(folder[..<slash])
        }
    }

    /// The directory to open the destination's store at: through the anchor when there
    /// is one, so that what is read is what is written.
    var readingPath: String { anchor?.path ?? path }

    /// The directory to take the destination's lock in. Through the anchor, it ends in
    /// `/.`: the lock opens its directory without following a link at the end, and the
    /// anchor's own path is one (the kernel's link to the open directory).
    var lockingPath: String { anchor.map { $0.isPinned ? $0.path + "/." : $0.path } ?? path }

    /// The destination's files, reached through the anchor when there is one.
    var files: LogFiles { LogFiles(directory: anchor?.path ?? path, fileSystem: fileSystem) }

    /// The manifest an earlier backup left, if any.
    func earlierManifest() -> Manifest? {
        guard let file = try? files.open(.manifest, number: 0, writable: false, name: FormatConstants.manifestName),
              let size = try? file.size(), size < 1 << 20,
              let bytes = try? file.read(at: 0, count: Int(size)) else { return nil }
        return try? Manifest.decode(bytes, path: files.path(FormatConstants.manifestName))
    }
}
