import Foundation
@testable import RouteLog

extension InterceptingFileSystem {
    /// The calls of ``FileSystem``, named as the system calls they make (for messages).
    enum Kind: String, CaseIterable, Sendable {
        case open, close, read = "pread", write = "pwrite", size = "fstat", truncate = "ftruncate"
        case syncData = "fdatasync", syncBarrier = "barrier fsync", syncAll = "fsync"
        case rename, exchange = "rename exchange", unlink, makeDirectory = "mkdir", syncDirectory = "fsync directory"
        case listDirectory = "readdir", isDirectory = "stat", openDirectory = "open directory"
        case lockExclusive = "lock", unlock, isLockHeld = "lock query"

        /// Whether the call can report an error (close, unlock and isDirectory cannot).
        var canFail: Bool { self != .close && self != .unlock && self != .isDirectory }
    }

    /// One completed call and its arguments. Files are named by the ``FileRef`` the
    /// open returned (descriptor and path). A call in an open directory is the call on
    /// the path it names there (``DirectoryRef/path(_:)``): an openat is an `open`, a
    /// renameat a `rename`, an fsync of the directory's descriptor a `syncDirectory`.
    enum Operation: Equatable, Sendable {
        case open(FileRef, flags: Int32)
        case close(FileRef)
        /// `count` bytes were read.
        case read(FileRef, offset: Int64, count: Int)
        /// `bytes` were written (all of them: a short write lists what was written).
        case write(FileRef, offset: Int64, bytes: [UInt8])
        case size(FileRef)
        case truncate(FileRef, length: Int64)
        case syncData(FileRef)
        case syncBarrier(FileRef)
        case syncAll(FileRef)
        case rename(from: String, to: String)
        /// The two names swapped their files.
        case exchange(String, String)
        case unlink(String)
        case makeDirectory(String)
        case syncDirectory(String)
        case listDirectory(String)
        case isDirectory(String)
        case lockExclusive(FileRef)
        case unlock(FileRef)
        case isLockHeld(FileRef)
        case openDirectory(DirectoryRef)
        case closeDirectory(DirectoryRef)

        var kind: Kind {
            switch self {
            case .open: .open
            case .close: .close
            case .read: .read
            case .write: .write
            case .size: .size
            case .truncate: .truncate
            case .syncData: .syncData
            case .syncBarrier: .syncBarrier
            case .syncAll: .syncAll
            case .rename: .rename
            case .exchange: .exchange
            case .unlink: .unlink
            case .makeDirectory: .makeDirectory
            case .syncDirectory: .syncDirectory
            case .listDirectory: .listDirectory
            case .isDirectory: .isDirectory
            case .lockExclusive: .lockExclusive
            case .unlock: .unlock
            case .isLockHeld: .isLockHeld
            case .openDirectory: .openDirectory
            case .closeDirectory: .close
            }
        }
    }

    /// Which calls fail, with what, and for how long.
    struct Fault: Sendable, CustomStringConvertible {
        enum Trigger: Sendable, Equatable {
            /// The Nth call that can fail (1-based), whatever it is.
            case call(Int)
            /// The Nth changing call.
            case change(Int)
            /// The Nth call of one kind.
            case kind(Kind, Int)
        }

        enum Persistence: String, Sendable {
            /// Only the Nth call fails.
            case once
            /// The Nth call and every later one that the trigger counts fail.
            case persistent
        }

        var trigger: Trigger
        var errno: Int32
        var persistence: Persistence

        init(_ trigger: Trigger, errno: Int32, _ persistence: Persistence = .once) {
            self.trigger = trigger
            self.errno = errno
            self.persistence = persistence
        }

        var description: String {
            let name = String(cString: strerror(errno))
            return "\(name) \(persistence.rawValue) at \(trigger)"
        }

        /// Where a call stands in the count the trigger keeps (1-based), or nil when
        /// the trigger does not count it.
        func index(kind: Kind, changing: Bool, calls: Int, changes: Int, ofKind: Int) -> Int? {
            guard kind.canFail else { return nil }
            switch trigger {
            case .call: return calls
            case .change: return changing ? changes : nil
            case .kind(let k, _): return k == kind ? ofKind : nil
            }
        }

        func fails(_ index: Int) -> Bool {
            let n: Int
            switch trigger {
            case .call(let k), .change(let k), .kind(_, let k): n = k
            }
            return persistence == .once ? index == n : index >= n
        }
    }

    /// A call the fault failed.
    struct Failure: Equatable, Sendable {
        let kind: Kind
        let errno: Int32
    }
}
