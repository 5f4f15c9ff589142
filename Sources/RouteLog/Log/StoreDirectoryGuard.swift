/// The writer's file system, held to the directory it locked. A writer names its files
/// by path (`directory/name`), but its lock is on the directory it opened: when that
/// directory is moved away and another put at its path (an app moving its data, a user
/// in a file manager), a path made after that leads into the other directory, where a
/// roll, a manifest switch, a compaction or an index rewrite would write without that
/// directory's lock, and a later open of the moved store would miss what they wrote.
///
/// So every call that names a path inside the store first checks that the directory at
/// the store's path is still the locked one (one `stat`; a save's append and sync go
/// through open descriptors and are not checked), and otherwise fails with a
/// ``RouteLogError`` `.io` that says the directory moved: the change it was part of is
/// not acknowledged, and the store is to be reopened where it now is. Appends through
/// files already open still reach the moved store, which is where they belong.
/// A move between the check and the call is not caught (a few microseconds).
struct StoreDirectoryGuard: ForwardingFileSystem {
    let base: any FileSystem
    /// The store's directory, as the writer names it.
    let directory: String
    /// The directory the writer locked.
    let identity: DirectoryIdentity

    /// Checks `path` when it is in the store's directory (or is the directory).
    private func check(_ path: String) throws {
        guard path == directory || path.hasPrefix(directory + "/") else { return }
        guard DirectoryIdentity(of: directory) == identity else { throw moved }
    }

    private var moved: RouteLogError {
        RouteLogError(.io, "the store's directory was moved or replaced while the store was open; nothing "
                          + "more is written at this path: reopen the store where it now is", path: directory)
    }

    /// The store's directory opened by its path (a use of `lost/` with no held directory:
    /// ``LogFiles/storeDirectory()``) is held to the locked one by the opened descriptor
    /// itself (fstat), with no moment between the check and the call; what is then done
    /// through the descriptor stays in it, and needs no check. (A writer's `LOCK` and
    /// `lost/` go through the directory it holds, ``StoreLock/heldDirectory``, and never
    /// come here.)
    func openDirectory(_ name: String, in parent: DirectoryRef?, flags: Int32) throws -> DirectoryRef {
        guard parent == nil else { return try base.openDirectory(name, in: parent, flags: flags) }
        try check(name)
        let opened = try base.openDirectory(name, in: nil, flags: flags)
        if name == directory {
            guard let held = base.identity(opened), DirectoryIdentity(device: held.device, inode: held.inode) == identity else {
                base.closeDirectory(opened)
                throw moved
            }
        }
        return opened
    }

    func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef {
        try check(path)
        return try base.open(path, flags: flags, mode: mode)
    }

    func rename(_ from: String, to: String) throws {
        try check(from)
        try check(to)
        try base.rename(from, to: to)
    }

    func renameExclusive(_ from: String, to: String) throws {
        try check(from)
        try check(to)
        try base.renameExclusive(from, to: to)
    }

    func exchange(_ a: String, with b: String) throws {
        try check(a)
        try check(b)
        try base.exchange(a, with: b)
    }

    func unlink(_ path: String) throws {
        try check(path)
        try base.unlink(path)
    }

    func makeDirectory(_ path: String) throws {
        try check(path)
        try base.makeDirectory(path)
    }

    func syncDirectory(_ path: String) throws {
        try check(path)
        try base.syncDirectory(path)
    }

    func listDirectory(_ path: String) throws -> [String] {
        try check(path)
        return try base.listDirectory(path)
    }

    // The other calls name an open file or directory, or only ask (a wrong answer makes the next
    // checked call fail): ForwardingFileSystem passes them to `base`.
}
