import Foundation

/// The one error type RouteLog throws. Match on ``code``; read ``message`` for what
/// went wrong, where, and what to do.
///
/// ```swift
/// do { try store.delete(id) }
/// catch let error as RouteLogError where error.code == .notFound { ... }
/// ```
public struct RouteLogError: Error, Sendable, Equatable, Codable, CustomStringConvertible, LocalizedError {
    /// What kind of failure this is.
    public enum Code: String, Sendable, Equatable, Hashable, Codable {
        /// A system call failed (disk full, permission, I/O error). ``errno`` tells which.
        case io
        /// Bytes on disk do not match their checksum or make no sense. ``path`` and
        /// ``offset`` say where.
        case corrupted
        /// The caller passed something RouteLog refuses (a NaN coordinate, an empty
        /// route, an impossible edit). Nothing was written.
        case invalidArgument
        /// No route (or recording) with that id, or no store at that path.
        case notFound
        /// Another process holds the store for writing (``pid`` names it), or another
        /// export holds an export's directory longer than the export waits.
        case locked
        /// The store was written by a newer RouteLog format than this library reads.
        case unsupportedVersion
        /// The handle was closed (``RouteStore/close()``): every later call on it fails
        /// with this; open the store again.
        case closed
        /// A subscriber to ``RouteStore/changes`` read too slowly and its buffer filled:
        /// the changes after what it read were dropped. Read the store again and
        /// subscribe again.
        case fellBehind
    }

    /// The kind of failure.
    public let code: Code
    /// One sentence: what went wrong and what to do.
    public let message: String
    /// The file or directory involved, if any.
    public let path: String?
    /// The byte offset in ``path`` where damage was found, if any.
    public let offset: Int64?
    /// The system error number, for ``Code/io``.
    public let errno: Int32?
    /// The process holding the store, for ``Code/locked``.
    public let pid: Int32?

    /// Creates an error; RouteLog makes these, apps match on them.
    public init(_ code: Code, _ message: String, path: String? = nil, offset: Int64? = nil,
                errno: Int32? = nil, pid: Int32? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.offset = offset
        self.errno = errno
        self.pid = pid
    }

    /// The message with its path and offset, on one line.
    public var description: String {
        var text = message
        if let path {
            text += " (\(path)"
            if let offset { text += " at offset \(offset)" }
            text += ")"
        }
        return text
    }

    /// The same text as ``description``, for `LocalizedError` (what `localizedDescription` shows).
    public var errorDescription: String? { description }
}

extension RouteLogError {
    static func invalid(_ message: String) -> RouteLogError {
        RouteLogError(.invalidArgument, message)
    }

    static func corrupted(_ message: String, path: String, offset: Int64? = nil) -> RouteLogError {
        RouteLogError(.corrupted, message, path: path, offset: offset)
    }

    /// A name in the store that is no regular file (RouteLog never follows links).
    static func notRegularFile(_ path: String, _ what: String) -> RouteLogError {
        RouteLogError(.corrupted, "this is \(what), not a file RouteLog wrote; RouteLog does not follow links or open special files: remove it and try again", path: path)
    }

    static func io(_ operation: String, path: String, errno code: Int32) -> RouteLogError {
        let reason = String(cString: strerror(code))
        let advice: String
        switch code {
        case ENOSPC: advice = "free some disk space and try again"
        case EACCES, EPERM:
            advice = "check the permissions of this file and of its directory: this process's user must be able to read them, and to write them to make a change"
        case EISDIR: advice = "a directory is at this path where a file should be; move it aside and try again"
        case ENOTDIR: advice = "a part of this path that should be a directory is not one"
        case EROFS: advice = "the file system is read-only"
        default:
            // A read or a look changes nothing; anything else was part of a change.
            advice = ["read", "fstat", "readdir", "stat", "open for reading"].contains(operation) ? "nothing was changed; try again"
                : "the change was not made; try again"
        }
        return RouteLogError(.io, "\(operation) failed: \(reason); \(advice)", path: path,
                             errno: code)
    }
}
