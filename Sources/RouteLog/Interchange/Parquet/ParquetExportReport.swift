import Foundation

/// What ``ParquetExporter/export(_:to:options:progress:)`` wrote.
public struct ParquetExportReport: Sendable, Equatable {
    /// Routes written (one row each in the routes files).
    public var routeCount = 0
    /// Points written (one row each in the points files).
    public var pointCount = 0
    /// Every file written, routes file before points file, partitions in month order.
    public var files: [URL] = []
    /// Their total size in bytes.
    public var bytes: Int64 = 0
    /// The partitions written ("2024-05"), in order; empty without partitioning.
    public var partitions: [String] = []
    /// Routes listed when the export began but deleted before they were read (an app
    /// may be writing the store); they are in no file.
    public var vanishedRoutes: [RouteID] = []
    /// Routes lying wholly inside the privacy zones (``ParquetExportOptions/privacyZones``):
    /// in no file.
    public var withheldRoutes: [RouteID] = []
    /// Routes whose bytes could not be read (damage, or a segment this process may not
    /// open), each with why: in no file. Every other route was exported; check this
    /// before taking the export for the whole store (`routelog export` exits 1).
    public var unreadableRoutes: [UnreadableRoute] = []
    /// Tables an earlier export left where this one writes (or in a month folder it no
    /// longer writes), kept as `_routes.parquet.previous` and `_points.parquet.previous`
    /// (then `.previous.2`, ...) instead of replaced or removed, because this export
    /// could not read a route they may hold: they may hold its only readable copy. The
    /// names keep dataset readers from reading them as data.
    public var keptFiles: [URL] = []
    /// Files of an earlier partitioned export into the same directory, for months that
    /// no longer have routes, removed so the dataset holds only this export; and the
    /// temporary files of exports killed before they finished (their process gone).
    public var removedFiles: [URL] = []

    /// An empty report.
    public init() {}
}
