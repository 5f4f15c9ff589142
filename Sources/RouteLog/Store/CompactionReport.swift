import Foundation

/// What one compaction did.
public struct CompactionReport: Sendable, Equatable, Codable {
    /// Bytes of the store's segment and index files before.
    public var bytesBefore: Int64
    /// Bytes of the store's segment and index files after.
    public var bytesAfter: Int64
    /// Live routes copied into new segments.
    public var routesMoved: Int
    /// Segments replaced.
    public var segmentsCompacted: Int
    /// Wall-clock seconds the compaction took.
    public var duration: TimeInterval

    /// Bytes reclaimed.
    public var bytesReclaimed: Int64 { bytesBefore - bytesAfter }
}
