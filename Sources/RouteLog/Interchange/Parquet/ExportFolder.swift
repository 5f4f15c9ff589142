import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder of a Parquet export, its directory or a `start_month=` folder in it, held by
/// a descriptor: every name the export makes, opens, renames, lists, looks at or removes
/// there is looked up from that descriptor (openat, mkdirat, renameat, linkat, unlinkat,
/// fdopendir, fstatat, fsync), never from a path. The export's directory is held by its
/// lock's own descriptor (``ExportDirectoryLock``), so the directory written is the
/// directory locked; a month folder is opened in it by name, never through a symbolic
/// link. A directory renamed away while the export runs, and a link or another directory
/// put at its name, lead nothing there: the export goes on in the directory it holds,
/// under its new name. These are the calls of every platform (Apple systems too), with
/// no moment between a check and a call.
///
/// A month folder is locked while the export works in it (``ExportDirectoryLock``, on the
/// folder's own descriptor, with the export's wait): another export into that folder, or
/// by month into the directory above, waits for it, so no two exports write one folder
/// at once. Its descriptor, and with it its lock, is let go between the export's steps
/// (``release()``), so that an export of many months holds one at a time, not one a
/// month, and another export into the folder may run between them; the next use opens
/// it again by name in its parent, never through a link, and it must then be the same
/// directory (device and inode), or that use throws `.io` saying the folder was moved or
/// replaced, with nothing done there. A folder the export wrote into cannot have been
/// deleted and its inode given to another directory meanwhile while the tables it wrote
/// there are still in it.
///
/// Paths in messages and in the report are the caller's (``url``): the directory's path
/// as given, and the month folders in it.
final class ExportFolder {
    /// The folder's path as the caller named it (messages and the report).
    let url: URL
    /// The held directory (device and inode).
    let identity: FileIdentity
    private let fileSystem = PosixFileSystem.shared
    /// The folder this one is named in (nil for the export's directory), and its name there.
    private let parent: ExportFolder?
    private let name: String
    private var held: DirectoryRef?
    /// What owns the descriptor of the export's directory (its lock), or nil when this
    /// folder closes its own.
    private let owner: AnyObject?
    /// A month folder's lock while it is held (its descriptor is ``held``).
    private var lock: ExportDirectoryLock?
    /// How the folders in this one are locked.
    private let locking: Locking

    /// How an export's month folders are locked: the store's directory refused, and the
    /// export's wait for another export (``ParquetExportOptions/directoryWait``, and the
    /// `waiting` callback, called before each wait; none for an export started from
    /// another's progress, `nested`).
    struct Locking {
        var storeIdentity: DirectoryIdentity?
        var waiting: (() -> Void)?
        var wait: TimeInterval = ExportDirectoryLock.defaultWait
        var nested = false
    }

    private init(url: URL, identity: FileIdentity, parent: ExportFolder?, name: String, held: DirectoryRef?, owner: AnyObject?,
                 lock: ExportDirectoryLock? = nil, locking: Locking) {
        self.url = url
        self.identity = identity
        self.parent = parent
        self.name = name
        self.held = held
        self.owner = owner
        self.lock = lock
        self.locking = locking
    }

    /// The export's directory, through `lock`'s descriptor (kept open, and locked, as
    /// long as this is); its month folders are locked as `locking` says.
    convenience init(locked lock: ExportDirectoryLock, url: URL, locking: Locking = Locking()) {
        self.init(url: url, identity: lock.identity, parent: nil, name: url.path, held: lock.directory, owner: lock, locking: locking)
    }

    /// The directory at `url` (a link at its end followed), opened for this folder alone:
    /// for a look, or a file written outside an export (tests).
    /// - Throws: `.io` when it cannot be opened.
    convenience init(opening url: URL) throws {
        let fileSystem = PosixFileSystem.shared
        let opened: DirectoryRef
        do {
            opened = try fileSystem.openDirectory(url.path, in: nil, flags: 0)
        } catch let error as Errno {
            throw RouteLogError.io("opening the export directory", path: url.path, errno: error.code)
        }
        guard let identity = fileSystem.identity(opened) else {
            fileSystem.closeDirectory(opened)
            throw RouteLogError.io("fstat", path: url.path, errno: EIO)
        }
        self.init(url: url, identity: identity, parent: nil, name: url.path, held: opened, owner: nil, locking: Locking())
    }

    deinit {
        if owner == nil, lock == nil, let held { fileSystem.closeDirectory(held) }
    }

    // MARK: Folders in it

    /// How many times a month folder may be opened, each found removed, renamed away or
    /// replaced once this had its lock, before the export gives up. Once or twice is
    /// another export clearing its stale months, or someone tidying up, and opening the
    /// name again deals with it; a name that keeps changing (a directory swapped in each
    /// time the export waits) would otherwise keep the export opening it for ever. The
    /// export's own directory, removed each time the export waited for its lock, is made
    /// again as many times (ParquetExporter).
    static let openingsOfAFolderThatKeepsChanging = 8

    /// The folder `name` here, made first when nothing is at the name (mode 0777 less the
    /// umask, as a directory made by path is), and locked: the month folder an export
    /// writes into. One removed while this waited for its lock (by an export clearing its
    /// stale months) is made again; one renamed away or replaced meanwhile is let go, and
    /// the directory at the name now is opened instead, up to
    /// ``openingsOfAFolderThatKeepsChanging`` openings in all.
    /// - Throws: `.invalidArgument` when a symbolic link, a file or anything else but a
    ///   directory is at the name; `.locked` when another export writes into it and did
    ///   not end within the wait; `.io` when it cannot be made, opened or locked, or
    ///   kept being removed, moved or replaced while this waited for its lock.
    func folder(making name: String) throws -> ExportFolder {
        let within = try directory()
        let url = self.url.appendingPathComponent(name, isDirectory: true)
        var made = false
        var openings = 0
        while true {
            do {
                let folder = try ExportFolder(name, in: self, url: url)
                openings += 1
                // Removed, renamed away or replaced while this waited for its lock: the
                // name is opened (or made) again, and nothing goes into that folder.
                guard folder.lock?.isRemoved != true, fileSystem.identityOfName(name, in: within) == folder.identity else {
                    guard openings < Self.openingsOfAFolderThatKeepsChanging else { throw Self.keptChanging(url, openings: openings) }
                    made = false
                    continue
                }
                return folder
            } catch let error as Errno where error.code == ENOENT && !made {
                // Made relative to the held directory: never through a link, never elsewhere.
                guard mkdirat(within.fd, name, 0o777) == 0 || errno == EEXIST else {
                    throw RouteLogError(.io, "cannot create the export directory: \(String(cString: strerror(errno)))", path: url.path)
                }
                made = true
            } catch let error as Errno where error.code == ENOTDIR || error.code == ELOOP {
                // (Linux answers ENOTDIR for a link with O_DIRECTORY: the name is looked at.)
                if kind(of: name) == .symbolicLink {
                    throw RouteLogError(.invalidArgument, "a symbolic link is at the month folder's name; the export does not follow links inside its directory: remove it and export again",
                                        path: url.path)
                }
                throw RouteLogError(.invalidArgument, "the export target is a file, not a directory", path: url.path)
            } catch let error as Errno {
                throw RouteLogError.io("opening the month folder", path: url.path, errno: error.code)
            }
        }
    }

    /// The directory `name` here, when a directory (not a link to one) is at the name: a
    /// folder an earlier export made, to look in or clear; nil when nothing, a link, a
    /// file or anything else is there. Its descriptor is let go at once, unlocked: the
    /// first use opens it again, and locks it.
    /// - Throws: `.io` when it cannot be opened for another reason (no descriptor left,
    ///   no permission), or this folder was moved or replaced.
    func existingFolder(_ name: String) throws -> ExportFolder? {
        let within = try directory(), url = self.url.appendingPathComponent(name, isDirectory: true)
        guard let opened = try Self.openFolder(name, in: within, url: url) else { return nil }
        defer { fileSystem.closeDirectory(opened) }
        guard let identity = fileSystem.identity(opened) else { throw RouteLogError.io("fstat", path: url.path, errno: EIO) }
        return ExportFolder(url: url, identity: identity, parent: self, name: name, held: nil, owner: nil, locking: locking)
    }

    /// The directory `name` in `within`, never through a link; nil when nothing, a link,
    /// a file or anything but a directory is at the name.
    /// - Throws: `.io` naming `url` when it cannot be opened for another reason.
    private static func openFolder(_ name: String, in within: DirectoryRef, url: URL) throws -> DirectoryRef? {
        do {
            return try PosixFileSystem.shared.openDirectory(name, in: within, flags: O_NOFOLLOW)
        } catch let error as Errno where error.code == ENOENT || error.code == ENOTDIR || error.code == ELOOP {
            return nil
        } catch let error as Errno {
            throw RouteLogError.io("opening the month folder", path: url.path, errno: error.code)
        }
    }

    /// The folder `name` in `parent`, opened (never through a link) and locked.
    /// - Throws: ``Errno`` when it cannot be opened; ``RouteLogError`` when it cannot be
    ///   locked.
    private convenience init(_ name: String, in parent: ExportFolder, url: URL) throws {
        let lock = try Self.lock(name, in: parent, url: url, expecting: nil)
        self.init(url: url, identity: lock.identity, parent: parent, name: name, held: lock.directory, owner: nil, lock: lock, locking: parent.locking)
    }

    /// Opens the folder `name` in `parent` (never through a link) and waits for its lock,
    /// with the export's wait; when `expecting` is given, it must be that directory
    /// (checked before any wait).
    /// - Throws: ``Errno`` when it cannot be opened; ``RouteLogError`` when it cannot be
    ///   locked, or is not the directory expected (`.io`, moved or replaced).
    private static func lock(_ name: String, in parent: ExportFolder, url: URL, expecting: FileIdentity?) throws -> ExportDirectoryLock {
        let locking = parent.locking
        return try ExportDirectoryLock(folder: name, in: parent.directory(), url: url, storeIdentity: locking.storeIdentity, checking: { found in
            if let expecting, found != expecting { throw replaced(url) }
        }, waiting: locking.waiting, wait: locking.wait, nested: locking.nested)
    }

    /// The held descriptor. A month folder let go is opened again by name in its parent
    /// (never through a link), must be the directory it was, and is locked again (waiting
    /// for another export writing into it).
    /// - Throws: `.io` when it was moved, replaced or removed, or cannot be opened;
    ///   `.locked` when another export held it past the wait.
    func directory() throws -> DirectoryRef {
        if let held { return held }
        guard let parent else { preconditionFailure("the export's directory is held for the whole export") }
        let reopened: ExportDirectoryLock
        do {
            reopened = try Self.lock(name, in: parent, url: url, expecting: identity)
        } catch let error as Errno where error.code == ENOENT || error.code == ENOTDIR || error.code == ELOOP {
            throw Self.replaced(url)
        } catch let error as Errno {
            throw RouteLogError.io("opening the month folder", path: url.path, errno: error.code)
        }
        guard !reopened.isRemoved else { throw Self.replaced(url) }
        lock = reopened
        held = reopened.directory
        return reopened.directory
    }

    /// Lets a month folder's descriptor, and its lock, go until its next use (the export's
    /// directory stays held).
    func release() {
        guard parent != nil, held != nil else { return }
        if lock == nil, let held { fileSystem.closeDirectory(held) }
        lock = nil
        held = nil
    }

    /// The month folder at `url` was removed, moved or replaced each of the `openings`
    /// times the export opened it and waited for its lock.
    private static func keptChanging(_ url: URL, openings: Int) -> RouteLogError {
        RouteLogError(.io, "this month folder of the export was removed, moved or replaced each of the \(openings) times the export opened it and waited for its lock (something keeps changing what is at its name); nothing was written there: export again once it stays put",
                      path: url.path)
    }

    private static func replaced(_ url: URL) -> RouteLogError {
        RouteLogError(.io, "this folder of the export was moved or replaced while the export ran (its name no longer leads to the folder the export wrote into); nothing more was written there: export again",
                      path: url.path)
    }

    /// Removes the folder `name` here when it is `folder` and empty (rmdir: never
    /// anything in it, nor another directory put at its name).
    func removeEmpty(_ name: String, _ folder: ExportFolder) {
        guard let within = try? directory(), kind(of: name) == .directory,
              fileSystem.identityOfName(name, in: within) == folder.identity else { return }
        _ = unlinkat(within.fd, name, AT_REMOVEDIR)
    }

    // MARK: Names in it

    /// The path of `name` here, as the caller knows it (messages).
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The URL of `name` here, as the caller knows it (the report).
    func url(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// The names here but `.` and `..`; none when the folder cannot be listed or reached
    /// (for what may be skipped: leftovers, kept pairs that may go).
    func names() -> [String] {
        (try? listing()) ?? []
    }

    /// The names here but `.` and `..`.
    /// - Throws: `.io` when the folder cannot be listed, or was moved or replaced.
    func listing() throws -> [String] {
        do {
            return try fileSystem.listDirectory(directory())
        } catch let error as Errno {
            throw RouteLogError.io("listing the export's folder", path: url.path, errno: error.code)
        }
    }

    /// What is at `name`, a link not followed (nil when nothing is, or the folder cannot
    /// be reached).
    func kind(of name: String) -> FileType? {
        guard let within = try? directory() else { return nil }
        return fileSystem.typeOfName(name, in: within)
    }

    /// Something (a file, link, FIFO, directory) has this name.
    func exists(_ name: String) -> Bool { kind(of: name) != nil }

    /// openat of `name` here.
    /// - Throws: ``Errno``; ``RouteLogError`` when the folder was moved or replaced.
    func open(_ name: String, flags: Int32, mode: UInt32) throws -> FileRef {
        try fileSystem.open(name, in: directory(), flags: flags, mode: mode)
    }

    /// renameat of `name` to `target`, both here (what is at `target` is replaced).
    /// - Throws: ``Errno``; ``RouteLogError`` when the folder was moved or replaced.
    func rename(_ name: String, to target: String) throws {
        let within = try directory()
        try fileSystem.rename(name, in: within, to: target, in: within)
    }

    /// unlinkat of `name` here.
    /// - Throws: ``Errno``; ``RouteLogError`` when the folder was moved or replaced.
    func unlink(_ name: String) throws {
        try fileSystem.unlink(name, in: directory())
    }

    /// fsync of the folder, so that the names made, renamed and removed in it are durable.
    /// - Throws: ``Errno``; ``RouteLogError`` when the folder was moved or replaced.
    func sync() throws {
        try fileSystem.syncDirectory(directory())
    }

    /// Gives the file `name` the name `target` (both here), which must be free: a hard
    /// link then the old name's removal, so that nothing put at `target` meanwhile is
    /// replaced; where the file system has no hard links, a rename that never replaces.
    /// - Throws: ``RouteLogError`` `.io` when it cannot (`EEXIST` when `target` is taken).
    func moveWithoutReplacing(_ name: String, to target: String) throws {
        let within = try directory()
        if linkat(within.fd, name, within.fd, target, 0) == 0 {
            guard unlinkat(within.fd, name, 0) == 0 else { throw RouteLogError.io("removing the old name", path: path(name), errno: errno) }
            return
        }
        let failure = errno
        guard failure == EPERM || failure == ENOTSUP || failure == EOPNOTSUPP || failure == EXDEV || failure == EMLINK else {
            throw RouteLogError.io("keeping the earlier table under a new name", path: path(target), errno: failure)
        }
        do {
            try fileSystem.renameExclusive(name, in: within, to: target, in: within)
        } catch let error as Errno {
            throw RouteLogError.io("keeping the earlier table under a new name", path: path(target), errno: error.code)
        }
    }

    /// The bytes of the regular file `name` here when it holds at most `limit` of them;
    /// nil for anything else (a link is not followed, a FIFO not waited on).
    func contents(of name: String, atMost limit: Int) -> [UInt8]? {
        guard let within = try? directory(),
              let file = try? DurableFile.open(name, in: within, flags: O_RDONLY, fileSystem: fileSystem),
              let size = try? file.size(), size <= Int64(limit),
              let bytes = try? file.read(at: 0, count: Int(size) + 1),  // one more: a file grown meanwhile is seen
              bytes.count <= limit else { return nil }
        return bytes
    }

    /// Writes `bytes` as the file `name` here: under a temporary name of its own, created
    /// new (`.NAME.PID.N.tmp`, ``ParquetFileWriter``'s pattern), then renamed over `name`.
    /// - Throws: ``Errno``; ``RouteLogError`` when the folder was moved or replaced.
    func replace(_ name: String, with bytes: [UInt8]) throws {
        var temporary = "", file: FileRef?
        for attempt in 0..<100 {
            temporary = ".\(name).\(getpid()).\(ParquetFileWriter.nextNumber()).tmp"
            do {
                file = try open(temporary, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o666)
                break
            } catch let error as Errno where error.code == EEXIST && attempt < 99 {
                continue
            }
        }
        guard let file else { throw Errno(code: EEXIST) }
        do {
            // Closed as this, its only reference, goes.
            try DurableFile(ref: file, fileSystem: fileSystem).write(bytes, at: 0)
        } catch {
            try? unlink(temporary)
            throw error
        }
        do {
            try rename(temporary, to: name)
        } catch {
            try? unlink(temporary)
            throw error
        }
    }
}
