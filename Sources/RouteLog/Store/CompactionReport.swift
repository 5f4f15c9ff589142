import Foundation

/// What one compaction did.
public struct CompactionReport: Sendable, Equatable, Codable {
    /// A segment compaction left as it was, and why.
    public struct SkippedSegment: Sendable, Equatable, Codable {
        /// The segment's file name.
        public var name: String
        /// Bytes of records compaction could reclaim in it.
        public var deadBytes: Int64
        /// Why it was not rewritten: too little to reclaim, or a damaged record in it
        /// (which compaction keeps, as found, rather than drop).
        public var reason: String
    }

    /// Bytes of the store's segment and index files before.
    public var bytesBefore: Int64
    /// Bytes of the store's segment and index files after.
    public var bytesAfter: Int64
    /// Live records copied into new segments.
    public var recordsMoved: Int
    /// Segments rewritten.
    public var segmentsCompacted: Int
    /// Segments left as they were, with the reason.
    public var segmentsSkipped: [SkippedSegment] = []
    /// Wall-clock seconds the compaction took.
    public var duration: TimeInterval

    /// Bytes reclaimed.
    public var bytesReclaimed: Int64 { bytesBefore - bytesAfter }
}
