/// What ``RouteStore/verify(progress:)`` found.
public struct VerificationReport: Sendable, Equatable, Codable {
    /// One thing that is wrong, and where.
    public struct Problem: Sendable, Equatable, Codable {
        /// What kind of problem.
        public enum Kind: String, Sendable, Equatable, Codable {
            /// Bytes in a segment that are no valid record, with valid records after them.
            case damagedBytes
            /// A live route (or an unfinished recording) whose records fail their
            /// checksum or do not decode.
            case damagedRoute
            /// The index disagrees with the segments (rebuilt at the next writable open).
            case indexMismatch
            /// The index file itself is damaged (rebuilt at the next writable open).
            case damagedIndex
        }
        /// The kind.
        public var kind: Kind
        /// The file.
        public var path: String
        /// Where in the file.
        public var offset: Int64
        /// How many bytes, where known.
        public var length: Int64?
        /// The route affected, where one is.
        public var routeID: RouteID?
        /// What is wrong, in a sentence.
        public var message: String

        /// True when the problem is a segment file that could not be opened (its
        /// permissions): nothing in it was found damaged, and the routes it holds
        /// could not be read (the message names them).
        public var isUnopenedSegment: Bool { kind == .damagedBytes && message.hasPrefix(Self.unopenedPrefix) }

        /// How the problem of a segment that could not be opened begins.
        static let unopenedPrefix = "the segment could not be opened: "
    }

    /// A file in the store's `lost/` folder: bytes a writer moved aside instead of
    /// deleting them (a torn tail it cut, a leftover segment it could not prove empty).
    public struct LostFile: Sendable, Equatable, Codable {
        /// Its name in `lost/` (`FILE@OFFSET`).
        public var name: String
        /// Its size in bytes.
        public var bytes: Int64
        /// The line of `lost/LOG` saying where it came from and why, if any.
        public var note: String?
    }

    /// What `lost/` holds: nothing is lost from the store's point of view, but these
    /// bytes were not kept in the log. Not a problem by itself.
    public var lostFiles: [LostFile] = []
    /// Why `lost/` could not be listed, when it could not (``lostFiles`` is then empty
    /// for want of a look): the store's directory was moved or replaced since the
    /// handle opened it, or `lost/` is unreadable. Not a problem with the store's data.
    public var lostFilesNotListed: String?
    /// Everything wrong; empty for a whole store.
    public var problems: [Problem] = []
    /// Partial records at the end of a segment (a writer died mid-append, or is
    /// appending right now): not damage; a writer cuts them when it opens the store.
    public var tornTails: [Problem] = []
    /// Live routes read back and decoded.
    public var routesChecked = 0
    /// Unfinished recordings whose chunks were read back and decoded.
    public var recordingsChecked = 0
    /// Records whose checksum was checked.
    public var recordsChecked = 0
    /// Bytes read.
    public var bytesChecked: Int64 = 0

    /// True when nothing is damaged.
    public var isClean: Bool { problems.isEmpty }
}
