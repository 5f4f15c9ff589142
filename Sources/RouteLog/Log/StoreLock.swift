import Foundation
import CRouteLogSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The writer's hold on a store (docs/recovery-and-compaction.md, "One writer"), alive as
/// long as this object: an exclusive flock on the store directory, which deleting or
/// replacing `LOCK` cannot escape, and an exclusive lock on `LOCK`, whose file holds the
/// writer's pid and its mark for others to read (``WriterMark``). When `LOCK` no longer
/// names the file the writer holds (deleted, renamed, replaced, or given another name),
/// the writer puts a new one in place as it renews its mark or closes
/// (``renewMark(files:)``, ``release(files:)``).
final class StoreLock: Sendable {
    /// The file `LOCK` named when the writer last wrote it: the one opened at acquire,
    /// or the one the writer put in its place since; nil once released (and closed).
    private let heldFile: StateLock<DurableFile?>
    /// The Data Protection class a `LOCK` this writer puts in place gets.
    private let protection: RouteStore.FileProtection
    /// The open directory the flock is held on, until released.
    private let directory: StateLock<FileRef?>
    /// The locked directory by a descriptor of its own, until released (``heldDirectory``).
    private let held: StateLock<HeldDirectory?>
    private let fileSystem: any FileSystem
    /// The directory the flock is held on (fstat of its descriptor): what
    /// ``StoreDirectoryGuard`` holds the writer's paths to. Nil when fstat fails (a
    /// simulated file system's descriptor).
    let lockedDirectory: DirectoryIdentity?
    /// The process that took the lock. A child made with fork() shares its open
    /// descriptions, and with them the locks: letting them go there would let the
    /// parent's go. (The child's own hold is dropped as it starts: fork_release.c.)
    let owner: pid_t = getpid()
    /// The mark `LOCK` holds (``WriterMark``), and whether every cut was announced by a
    /// new one (if not, the close leaves `LOCK` empty, so that the next writer draws anew).
    private let mark: StateLock<String>
    private let cutUnannounced = StateLock(false)
    /// True when the two descriptors are real ones, registered with fork_release.c.
    private let registeredForFork: Bool

    private init(file: DurableFile, directory: FileRef, heldDirectory: HeldDirectory?, fileSystem: any FileSystem,
                 registeredForFork: Bool, mark: String, protection: RouteStore.FileProtection) {
        heldFile = StateLock(file)
        held = StateLock(heldDirectory)
        self.protection = protection
        self.mark = StateLock(mark)
        self.directory = StateLock(directory)
        self.fileSystem = fileSystem
        self.registeredForFork = registeredForFork
        lockedDirectory = Self.directoryIdentity(directory.fd)
    }

    /// The directory the flock is held on, by a descriptor of its own (opened through
    /// the lock's, so the same directory wherever it was moved since): what the writer's
    /// uses of `lost/` go through (``LogFiles/held``). Nil once released, and for a
    /// simulated file system's descriptor.
    var heldDirectory: HeldDirectory? { held.withLock { $0 } }

    /// fstat's identity of `fd` when it is an open directory; nil otherwise (a simulated
    /// file system's descriptor).
    private static func directoryIdentity(_ fd: Int32) -> DirectoryIdentity? {
        var info = stat()
        return fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
            ? DirectoryIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) : nil
    }

    deinit {
        if getpid() == owner {
            // Let go explicitly, then stop watching the descriptors, then close them: a
            // child forked at any point in between holds nothing.
            heldFile.withLock { file in if let file { fileSystem.unlock(file.ref) } }
            directory.withLock { ref in if let open = ref { fileSystem.unlockDirectory(open) } }
        }
        releaseDirectory()
        closeFile()
    }

    /// Stops watching `LOCK`'s descriptor and closes it, with fork() held off.
    private func closeFile() {
        let registered = registeredForFork
        heldFile.withLock { file in StoreLock.closeWatched(&file, registered: registered) }
    }

    /// Closing the directory's descriptor lets its flock go.
    private func releaseDirectory() {
        let fileSystem = self.fileSystem
        let registered = registeredForFork
        directory.withLock { ref in
            if let open = ref { StoreLock.closeWatched(open.fd, registered: registered) { fileSystem.close(open) } }
            ref = nil
        }
    }

    static func path(in directory: String) -> String { directory + "/" + FormatConstants.lockName }

    /// Takes the lock or throws ``RouteLogError/Code/locked`` naming the holder's pid.
    static func acquire(in directory: String, fileSystem: any FileSystem,
                        protection: RouteStore.FileProtection = .completeUntilFirstUserAuthentication) throws -> StoreLock {
        // Each descriptor is watched for fork() before it takes a lock (fork_release.c),
        // and only a real one: a simulated file system's numbers may be anyone's. The
        // open and the registration run with fork() held off (openWatched).
        var real = false
        var watched: [Int32] = []
        func watch(_ fd: Int32) throws {
            guard real else { return }
            guard routelog_release_in_forked_child(fd) == 0 else { throw tooManyWriters(directory) }
            watched.append(fd)
        }
        var directoryRef: FileRef?
        var heldDirectory: HeldDirectory?
        var file: DurableFile?
        do {
            try openWatched({
                directoryRef = try DurableFile.retrying("open", path: directory) {
                    try fileSystem.open(directory, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW, mode: 0)
                }
            }, then: {
                real = directoryIdentity(directoryRef!.fd) != nil
                try watch(directoryRef!.fd)
            })
            try takeDirectoryLock(directoryRef!, in: directory, fileSystem: fileSystem)
            // From here on LOCK and lost/ are reached through the locked directory, held
            // by a descriptor of its own, never by its path: a directory or a link put at
            // the path since the lock was taken gets nothing.
            if real {
                heldDirectory = try HeldDirectory.reopening(directoryRef!.fd, path: directory, fileSystem: fileSystem)
            }
            let files = LogFiles(directory: directory, fileSystem: fileSystem, protection: protection, held: heldDirectory)
            let path = path(in: directory)
            try openWatched({
                do {
                    file = try files.openFile(FormatConstants.lockName, flags: O_RDWR)
                } catch let error as RouteLogError where error.errno == ENOENT {
                    file = try files.createFile(FormatConstants.lockName)
                }
            }, then: { try watch(file!.ref.fd) })
            if try DurableFile.retrying("fstat", path: path, { try fileSystem.linkCount(file!.ref) }) > 1 {
                // A LOCK that another name shares (a store copied with `cp -al`) is the
                // other store's lock and pid: this store gets a LOCK of its own, put in
                // place as a writer puts back a LOCK it lost (putBack), under the
                // directory lock. This store's name of the shared file goes into lost/ by
                // a rename, not an unlink: an unlink removes whatever is at the name when
                // it runs, which may be a file another process renamed over LOCK since
                // the look, and POSIX has no unlink "if the name still leads to this
                // file"; a rename into lost/ keeps whatever it moves. (Moving it anywhere
                // else first and unlinking it there only moves the window.) The shared
                // file is neither written nor locked, and its other names lead to it as
                // before. The cost: the other store's LOCK keeps a name in this store's
                // lost/, so it still reads as shared there (its writer's pid unknown, as
                // since the copy) until that store's writer puts a LOCK of its own in
                // place the same way, at its next cut, close or open; the old file then
                // has a name in each lost/. Two names of a few bytes, which the user may
                // delete, against a file deleted that someone needed.
                var shared = file
                file = try putBack([], replacing: shared!, files: files, locking: true, cause: .sharedAtOpen, writer: getpid(),
                                   protection: protection, watchForFork: real)
                if real { watched.append(file!.ref.fd) }
                // The shared file was never locked here: it stops being watched and closes.
                if let i = watched.firstIndex(of: shared!.ref.fd) { watched.remove(at: i) }
                closeWatched(&shared, registered: real)
            } else {
                try protection.apply(toDescriptor: file!.ref.fd, path: path)
                try takeFileLock(file!, in: directory, fileSystem: fileSystem)
            }
            // A clean close left its mark alone in LOCK: every cut of that writer was
            // announced, so what readers hold stands, and the mark is kept (they read on
            // instead of reading the store again). Anything else (a crashed writer's pid,
            // an empty LOCK, a new file) draws a new one.
            let previous = (try? file!.read(at: 0, count: 64)).flatMap(WriterMark.parse)
            let mark = (previous?.pid == nil ? previous?.mark : nil) ?? WriterMark.make()
            // Written over what is there, then cut to length: never empty in between.
            let contents = WriterMark.lockContents(pid: getpid(), mark: mark)
            try file!.write(contents, at: 0)
            try file!.truncate(to: Int64(contents.count))
            return StoreLock(file: file!, directory: directoryRef!, heldDirectory: heldDirectory, fileSystem: fileSystem,
                             registeredForFork: real, mark: mark, protection: protection)
        } catch {
            // Let go explicitly before the descriptors stop being watched and close.
            if let file { fileSystem.unlock(file.ref) }
            if let directoryRef { fileSystem.unlockDirectory(directoryRef) }
            // Unwatched and closed with fork() held off (closeWatched).
            routelog_fork_guard_enter()
            for fd in watched { routelog_forget_for_forked_child(fd) }
            file = nil
            if let directoryRef { fileSystem.close(directoryRef) }
            routelog_fork_guard_leave()
            throw error
        }
    }

    /// Opens a descriptor that is to take a lock (`open`), then registers it with
    /// fork_release.c (`watch`), with fork() held off in every thread from before the
    /// open until after the registration (fork_release.c, "the fork guard"). A child
    /// forked in between would get the open description unregistered, and with it the
    /// lock this process takes on it next: after this process died, the child would
    /// still hold the store. Neither closure may fork, and both are kept short (a fork
    /// waits for them).
    static func openWatched<Opened>(_ open: () throws -> Opened, then watch: (Opened) throws -> Void) throws -> Opened {
        routelog_fork_guard_enter()
        defer { routelog_fork_guard_leave() }
        let opened = try open()
        #if DEBUG
        if testPauseBeforeForkRegistration > 0 { usleep(testPauseBeforeForkRegistration) }
        #endif
        try watch(opened)
        return opened
    }

    /// Stops watching a descriptor (`registered`: it was) and closes it (`close`), with
    /// fork() held off as when it was opened: a child forked before gets the descriptor
    /// watched, and so pointed at /dev/null there; one forked after, nothing. Without the
    /// guard a fork landing between the two would hand the child the descriptor itself
    /// (its lock let go by then, but the directory or file still open in the child).
    static func closeWatched(_ fd: Int32, registered: Bool, close: () -> Void) {
        routelog_fork_guard_enter()
        defer { routelog_fork_guard_leave() }
        if registered { routelog_forget_for_forked_child(fd) }
        close()
    }

    /// ``closeWatched(_:registered:close:)`` of a file held by `file` alone: `file`
    /// becomes nil, and the file closes as this, its last reference, goes. (A second
    /// reference, even a local binding the caller still has, would close it later,
    /// after the guarded stretch: a child forked in between would get it.)
    static func closeWatched(_ file: inout DurableFile?, registered: Bool) {
        guard let fd = file?.ref.fd else { return }
        closeWatched(fd, registered: registered) { file = nil }
    }

    #if DEBUG
    /// Test-only, in debug builds: microseconds to pause between such an open and its
    /// registration (ROUTELOG_TEST_PAUSE_BEFORE_FORK_REGISTRATION_US; none when unset),
    /// so that a test's process forking in a loop meets that stretch every time
    /// (`routelog-test-holder --open-while-forking`, ForkedHandleTests).
    private static let testPauseBeforeForkRegistration: UInt32 =
        getenv("ROUTELOG_TEST_PAUSE_BEFORE_FORK_REGISTRATION_US").flatMap { UInt32(String(cString: $0)) } ?? 0
    #endif

    private static func tooManyWriters(_ path: String) -> RouteLogError {
        RouteLogError(.io, "too many stores are open for writing in this process; close one first", path: path, errno: EMFILE)
    }

    private static func takeDirectoryLock(_ ref: FileRef, in directory: String, fileSystem: any FileSystem) throws {
        var probes = 0
        while true {
            do {
                try fileSystem.lockDirectory(ref)
                return
            } catch let error as Errno where error.code == EINTR {
                continue
            } catch let error as Errno where error.code == EWOULDBLOCK || error.code == EAGAIN {
                let lockFile = try? DurableFile.open(path(in: directory), flags: O_RDONLY, fileSystem: fileSystem)
                // (A LOCK another name shares is another store's: it says nothing of this one.)
                let writerHoldsLOCK = lockFile.map {
                    (try? fileSystem.linkCount($0.ref)) == 1 && (try? fileSystem.isLockHeld($0.ref)) == true
                } ?? false
                // A reader asking who writes takes the directory lock for an instant: when
                // no writer holds LOCK, try again a few times before calling it held.
                if !writerHoldsLOCK && probes < 20 {
                    probes += 1
                    usleep(2_000)
                    continue
                }
                // The pid in LOCK only when a writer holds LOCK: else it is a dead
                // writer's, or whatever was written there, and naming it could send the
                // user to stop an unrelated process that took the number since.
                throw locked(directory, pid: writerHoldsLOCK ? lockFile.flatMap(readPID) : nil)
            } catch let error as Errno {
                throw RouteLogError.io("lock", path: directory, errno: error.code)
            }
        }
    }

    private static func takeFileLock(_ file: DurableFile, in directory: String, fileSystem: any FileSystem) throws {
        while true {
            do {
                try fileSystem.lockExclusive(file.ref)
                return
            } catch let error as Errno where error.code == EINTR {
                continue
            } catch let error as Errno where error.code == EAGAIN || error.code == EWOULDBLOCK || error.code == EACCES {
                throw locked(directory, pid: readPID(file))
            } catch let error as Errno {
                throw RouteLogError.io("lock", path: file.path, errno: error.code)
            }
        }
    }

    private static func locked(_ directory: String, pid: Int32?) -> RouteLogError {
        RouteLogError(.locked,
                      "the store is open for writing by process \(pid.map(String.init) ?? "unknown"); close it there first, or open this one read-only",
                      path: directory, pid: pid)
    }

    /// Gives `LOCK` a new mark, after the writer cut records off its last segment and
    /// goes on writing: a read-only handle that may have read them reads the store again
    /// (``WriterMark``). The pid keeps its place, so the file keeps its length.
    ///
    /// A mark written into a file that `LOCK` no longer names (deleted, renamed, replaced
    /// by another file, a link or a FIFO, or given a second name) reaches no reader: then
    /// the writer puts a new `LOCK` in place holding its pid and the new mark, takes its
    /// lock on it, and holds that one from then on (``putBack(_:replacing:files:locking:)``).
    /// `files` names the store's paths through the writer's checked file system.
    func renewMark(files: LogFiles) throws {
        let renewed = WriterMark.make()
        let contents = WriterMark.lockContents(pid: owner, mark: renewed)
        try heldFile.withLock { held in
            // Released: the store is closed, and its writer with it.
            guard let file = held else { return }
            try file.write(contents, at: 0)
            try file.truncate(to: Int64(contents.count))
            // Looked at after the write: when LOCK named the file then, the new mark
            // showed there, and anything done to LOCK since reads as a mark gone.
            guard !Self.isNamed(file, in: files) else { return }
            let replacement = try putBack(contents, replacing: file, files: files, locking: true)
            // Let the old file go explicitly, then it stops being watched and closes
            // (this binding let go first: `old` is its last reference).
            file.fileSystem.unlock(file.ref)
            var old: DurableFile? = consume file
            held = replacement
            StoreLock.closeWatched(&old, registered: registeredForFork)
        }
        mark.withLock { $0 = renewed }
    }

    /// Notes a cut whose new mark could not be written: the writer stops, and its close
    /// leaves no mark for the next writer to keep.
    func noteUnannouncedCut() {
        cutUnannounced.withLock { $0 = true }
    }

    /// Lets the lock go, leaving `LOCK` with the mark alone (no pid: no writer holds the
    /// store), or empty after a cut it could not announce. When `LOCK` no longer names
    /// the writer's file (and `files` is given), the mark is put back in a new `LOCK`
    /// (best effort), so that the next writer keeps it as after any clean close; after a
    /// cut it could not announce there is nothing to put back (no `LOCK` says what an
    /// empty one does). Does nothing in a process other than the owner: the owner still
    /// holds it.
    func release(files: LogFiles? = nil) {
        guard getpid() == owner else { return }
        let unannounced = cutUnannounced.withLock { $0 }
        let closed = WriterMark.closedContents(mark: mark.withLock { $0 })
        heldFile.withLock { held in
            guard let file = held else { return }
            if unannounced || (try? file.write(closed, at: 0)) == nil || (try? file.truncate(to: Int64(closed.count))) == nil {
                try? file.truncate(to: 0)
            } else if let files, !Self.isNamed(file, in: files) {
                _ = try? putBack(closed, replacing: file, files: files, locking: false)
            }
            file.fileSystem.unlock(file.ref)
        }
        // Let go explicitly, not only by closing: another process may share the
        // description (a child forked before its hold could be dropped).
        directory.withLock { ref in if let open = ref { fileSystem.unlockDirectory(open) } }
        releaseDirectory()
        // LOCK's descriptor too: a closed store holds nothing open in its directory.
        closeFile()
        // Closed once the last use of lost/ that took it is done.
        held.withLock { $0 = nil }
    }

    /// Whether `LOCK` names `file`, and only it: what is at the name (lstat, never
    /// following a link) has the descriptor's device and inode (fstat), and the file has
    /// one name. A file system that cannot tell identities keeps the file.
    private static func isNamed(_ file: DurableFile, in files: LogFiles) -> Bool {
        let fileSystem = files.fileSystem
        guard let own = fileSystem.identity(file.ref) else { return true }
        guard files.identityOfName(FormatConstants.lockName) == own else { return false }
        return ((try? fileSystem.linkCount(file.ref)) ?? 1) == 1
    }

    /// Why a new `LOCK` is put in place: the writer's own file is no longer `LOCK`'s
    /// alone (found as it renews its mark or closes), or the `LOCK` an opening writer
    /// found is shared with another name (a store copied with `cp -al`).
    private enum PutBackCause {
        case lost, sharedAtOpen
    }

    /// ``putBack(_:replacing:files:locking:cause:writer:protection:watchForFork:)`` for
    /// this writer.
    private func putBack(_ contents: [UInt8], replacing old: DurableFile, files: LogFiles, locking: Bool) throws -> DurableFile {
        try Self.putBack(contents, replacing: old, files: files, locking: locking, cause: .lost, writer: owner,
                         protection: protection, watchForFork: registeredForFork)
    }

    /// Puts a new `LOCK` holding `contents` in place of whatever is at the name (`old`
    /// being the file the writer holds or found there), under the directory lock (no
    /// other writer of this store can race it), and returns it, locked when `locking`
    /// says so (and then watched for fork() when `watchForFork` says so). Whatever is at
    /// the name (the writer's own file under a second name, a file another store shares,
    /// another file, a symbolic link, a FIFO, a directory) is moved into `lost/` as it
    /// is, by a rename that never replaces anything there, never followed or opened.
    /// The new file is made exclusively (O_EXCL, never through a link) and then
    /// written: a reader looking meanwhile, or a crash, finds no `LOCK` or an empty one
    /// (no mark: the next writer draws anew), never a mark that is not the writer's. A
    /// failure moves the new file into `lost/` (best effort).
    private static func putBack(_ contents: [UInt8], replacing old: DurableFile, files: LogFiles, locking: Bool,
                                cause: PutBackCause, writer: pid_t, protection: RouteStore.FileProtection,
                                watchForFork: Bool) throws -> DurableFile {
        let fileSystem = files.fileSystem
        let name = FormatConstants.lockName
        let path = files.path(name)
        let own = fileSystem.identity(old.ref)
        var attempt = 0
        while true {
            // Whatever is at the name goes into lost/ by a rename, which moves what is
            // there at that instant: an unlink of the writer's own file under a second
            // name would delete anything renamed over it since it was looked at.
            if let there = files.identityOfName(name) {
                let reason = switch (cause, there == own) {
                case (.lost, true): "a second name of the LOCK of the writer that held the store (pid \(writer)), which it replaced"
                case (.lost, false): "was in the place of the LOCK of the writer that held the store (pid \(writer))"
                case (.sharedAtOpen, true):
                    "this store's name of a LOCK another name shares (a store copied with cp -al): the other store's lock and pid, "
                        + "left as they are; the writer that opened the store (pid \(writer)) took a LOCK of its own"
                case (.sharedAtOpen, false): "was in the place of the LOCK of the writer that opened the store (pid \(writer))"
                }
                try LostAndFound(files: files).moveAside(name, reason: reason)
            }
            let created: DurableFile
            var watched = false
            do {
                created = try openWatched({ try files.createFile(name) }, then: {
                    watched = locking && watchForFork && routelog_release_in_forked_child($0.ref.fd) == 0
                })
            } catch let error as RouteLogError where error.errno == EEXIST && attempt < 3 {
                attempt += 1  // planted again since it was moved aside
                continue
            }
            do {
                if locking && watchForFork && !watched { throw tooManyWriters(path) }
                try protection.apply(toDescriptor: created.ref.fd, path: path)
                if locking { try takeFileLock(created, in: files.directory, fileSystem: fileSystem) }
                try created.write(contents, at: 0)
            } catch {
                if locking { fileSystem.unlock(created.ref) }
                // The new file goes into lost/ by a rename, as anything at the name does
                // (an unlink could delete a file renamed over it since the look); left
                // where it is when even that fails: no mark, or a whole one of the writer's.
                if let made = fileSystem.identity(created.ref), files.identityOfName(name) == made {
                    try? LostAndFound(files: files).moveAside(name, reason: "a LOCK the writer could not finish putting back")
                }
                // It stops being watched and closes with fork() held off.
                var failed: DurableFile? = consume created
                closeWatched(&failed, registered: watched)
                throw error
            }
            return created
        }
    }

    /// The pid of the process holding the store for writing, or nil when none does.
    /// A writer whose `LOCK` was deleted is still found (pid -1): its directory lock stands.
    static func holder(in directory: String, fileSystem: any FileSystem) -> Int32? {
        // A LOCK that another name shares is another store's (a store copied with
        // `cp -al`) until this store's writer replaces it: only the directory lock counts.
        if let file = try? DurableFile.open(path(in: directory), flags: O_RDONLY, fileSystem: fileSystem),
           (try? fileSystem.linkCount(file.ref)) == 1, (try? fileSystem.isLockHeld(file.ref)) == true {
            return readPID(file) ?? -1
        }
        // Probe the directory lock: taking it and letting it go at once. Another prober
        // holds it for an instant too, so a refusal is tried again a few times before it
        // counts as a writer (as a writer's own open does).
        // The probe's descriptor is opened with fork() held off and registered, as a
        // writer's are: a child forked meanwhile would share the flock the probe takes,
        // and keep the store locked were this process to die before it lets go. (Should
        // registration fail, the probe goes on: it lets go explicitly, which lets go for
        // a child sharing the description too.)
        var registered = false
        guard let ref = try? openWatched({
            try fileSystem.open(directory, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW, mode: 0)
        }, then: { opened in
            registered = directoryIdentity(opened.fd) != nil && routelog_release_in_forked_child(opened.fd) == 0
        }) else { return nil }
        defer { closeWatched(ref.fd, registered: registered) { fileSystem.close(ref) } }
        for _ in 0..<20 {
            do {
                try fileSystem.lockDirectory(ref)
                fileSystem.unlockDirectory(ref)
                return nil
            } catch {
                usleep(2_000)
            }
        }
        return -1
    }

    private static func readPID(_ file: DurableFile) -> Int32? {
        guard let bytes = try? file.read(at: 0, count: 64) else { return nil }
        return WriterMark.parse(bytes)?.pid ?? nil
    }
}
