import CRouteLogSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The store's directory held by one open descriptor: what ``LostDirectory`` opens
/// `lost/` in and moves the store's files from. A writer holds one for as long as it
/// holds the store (``StoreLock/heldDirectory``), opened through the descriptor its lock
/// is on, so that every use of `lost/` reaches the directory it locked however that was
/// renamed since, and never one put at its path meanwhile (a link, another directory).
/// A use with no held directory (a read-only handle, a file system that cannot tell
/// identities) opens one for itself, once, by ``open(_:expecting:following:fileSystem:)``.
/// Closed when the last reference goes, so a call that took it keeps it usable while
/// the store closes.
final class HeldDirectory: Sendable {
    let fileSystem: any FileSystem
    /// The descriptor, and the store's path as the caller names it (for messages: never opened).
    let ref: DirectoryRef

    private init(_ ref: DirectoryRef, fileSystem: any FileSystem) {
        self.ref = ref
        self.fileSystem = fileSystem
    }

    deinit { fileSystem.closeDirectory(ref) }

    /// The directory's path as the caller names it (for messages).
    var path: String { ref.path }

    /// A descriptor of its own of the directory `descriptor` is open on (openat of `.`
    /// through it): the same directory, wherever it is now, but a new open description,
    /// which shares nothing the other holds (a writer's flock stays with the lock's
    /// descriptor alone, which a forked child gives up: fork_release.c). `path` names
    /// it in messages. Nil when the file system cannot tell it is that directory (a
    /// simulated one).
    /// - Throws: `.io` with the errno when it could not be opened (no descriptor left).
    static func reopening(_ descriptor: Int32, path: String, fileSystem: any FileSystem) throws -> HeldDirectory? {
        let parent = DirectoryRef(fd: descriptor, path: path)
        let opened = try fileSystem.checked("open directory", path) { try fileSystem.openDirectory(".", in: parent, flags: 0) }
        let held = HeldDirectory(DirectoryRef(fd: opened.fd, path: path), fileSystem: fileSystem)
        var info = stat()
        guard fstat(descriptor, &info) == 0, let identity = fileSystem.identity(held.ref),
              identity == FileIdentity(info) else { return nil }
        return held
    }

    /// Opens the directory at `path`, once: with `O_NOFOLLOW` unless `following` (a
    /// read-only handle follows a link at the store's path as its open did), and, when
    /// `expected` is given, only when it is that directory (fstat of the descriptor
    /// itself, with no moment between the look and the open).
    /// - Throws: `.io` saying the store's directory was moved or replaced when it is
    ///   another directory, or a link and not `following`; `.io` with the errno when it
    ///   could not be opened.
    ///
    /// With `searchOnly`, the descriptor only finds names in the directory (O_PATH on
    /// Linux): enough to open a file in it and to tell which directory it is, and it
    /// needs no permission to list the directory, only to search it, as opening a file
    /// by its path does (a store in a directory its reader may search but not list).
    static func open(_ path: String, expecting expected: DirectoryIdentity?, following: Bool = false,
                     searchOnly: Bool = false, fileSystem: any FileSystem) throws -> HeldDirectory {
        let ref: DirectoryRef
        do {
            ref = try fileSystem.checked("open directory", path) {
                try fileSystem.openDirectory(path, in: nil, flags: (following ? 0 : O_NOFOLLOW) | (searchOnly ? Self.searchFlag : 0))
            }
        } catch let error as RouteLogError where expected != nil && (error.errno == ELOOP || error.errno == ENOTDIR) {
            throw moved(path)  // a link, or no directory, where the store's directory was
        }
        let held = HeldDirectory(DirectoryRef(fd: ref.fd, path: path), fileSystem: fileSystem)
        if let expected {
            guard let identity = fileSystem.identity(held.ref),
                  DirectoryIdentity(device: identity.device, inode: identity.inode) == expected else { throw moved(path) }
        }
        return held
    }

    /// The flag of a descriptor that only looks names up in a directory.
    static let searchFlag = routelog_search_only_flag()

    /// The error of a use that found another directory, or none, at the store's path.
    static func moved(_ path: String) -> RouteLogError {
        RouteLogError(.io, "the store's directory was moved or replaced while the store was open; nothing was "
                          + "done at this path: reopen the store where it now is", path: path)
    }
}
