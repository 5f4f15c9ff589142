import CRouteLogSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension RouteStore {
    /// The iOS Data Protection class of every file the store creates: when the system
    /// keeps the files' keys, and so when the store can read and write them.
    ///
    /// The choice is between what a thief with the locked phone could read and what the
    /// app can do while the phone is locked:
    ///
    /// - ``completeUntilFirstUserAuthentication`` (the default): readable and writable
    ///   from the first unlock after a restart until the next restart. A walk recorded
    ///   with the phone locked in a pocket keeps saving. Apple's default for app data.
    /// - ``complete``: unreadable while the phone is locked. Saves, recording flushes and
    ///   compaction fail with an I/O error about ten seconds after locking; a recording
    ///   in the background stops saving.
    /// - ``completeUnlessOpen``: files open when the phone locks stay usable and new ones
    ///   can be created, but a closed file cannot be opened again until an unlock: reading
    ///   a route from a file the store had closed, or compacting, fails while locked.
    /// - ``none``: readable whenever the phone is on, even before the first unlock (for
    ///   work at boot, such as a background task after a restart).
    ///
    /// On Apple platforms the store gives each file this class as it creates it (the
    /// kernel's `F_SETPROTECTIONCLASS`). Elsewhere (Linux) there are no protection
    /// classes and this option has no effect; so too on a Mac volume without Data
    /// Protection. Files already in a store keep the class they were created with.
    public enum FileProtection: Sendable, Equatable, Hashable, CaseIterable {
        /// Readable only while the device is unlocked (`NSFileProtectionComplete`, class A).
        case complete
        /// Open and new files stay usable while locked; closed ones cannot be reopened
        /// (`NSFileProtectionCompleteUnlessOpen`, class B).
        case completeUnlessOpen
        /// Usable from the first unlock after a restart on
        /// (`NSFileProtectionCompleteUntilFirstUserAuthentication`, class C). The default.
        case completeUntilFirstUserAuthentication
        /// Always usable (`NSFileProtectionNone`, class D).
        case none
    }
}

extension RouteStore.FileProtection {
    /// The kernel's class number: PROTECTION_CLASS_A to _D of Darwin's
    /// `<sys/content_protection.h>`, which `F_SETPROTECTIONCLASS` takes.
    var protectionClass: Int32 {
        switch self {
        case .complete: 1
        case .completeUnlessOpen: 2
        case .completeUntilFirstUserAuthentication: 3
        case .none: 4
        }
    }

    /// Gives the open file or directory `fd` (at `path`, for the error) this class.
    /// Returns false, changing nothing, where the system or the volume has no protection
    /// classes (ENOTSUP: Linux, a Mac volume without Data Protection) or refuses this
    /// class for this kind of file (EINVAL: a directory cannot take class B). A class
    /// given to the store's directory becomes the default of files created in it later.
    ///
    /// - Throws: ``RouteLogError/Code/io`` with the errno when the system refuses otherwise.
    @discardableResult
    func apply(toDescriptor fd: Int32, path: String) throws(RouteLogError) -> Bool {
        let status = routelog_set_protection_class(fd, protectionClass)
        switch status {
        case 0: return true
        case ENOTSUP, EINVAL: return false
        default:
            throw RouteLogError.io("setting the file protection class \(self)", path: path, errno: status)
        }
    }
}
