/// What ``RouteStore/backup(to:)`` did.
public struct BackupReport: Sendable, Equatable, Codable {
    /// Segment files written to the destination.
    public var segmentsCopied: Int
    /// Segment files an earlier backup left in the destination, found byte for byte
    /// equal to the store's and kept.
    public var segmentsReused: Int
    /// Bytes written to the destination (segments and index).
    public var bytesCopied: Int64
    /// Routes the backup holds: every route acknowledged before the backup began.
    public var routeCount: Int
    /// The verification of the backup, opened read-only once written (always clean
    /// when the backup returns).
    public var verification: VerificationReport
}
