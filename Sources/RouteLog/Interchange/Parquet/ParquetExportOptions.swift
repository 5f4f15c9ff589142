import Foundation

/// How ``ParquetExporter`` writes a store.
public struct ParquetExportOptions: Sendable, Equatable {
    /// How the files are laid out in the export directory.
    public enum Partitioning: Sendable, Equatable {
        /// `routes.parquet` and `points.parquet` in the directory itself.
        case none
        /// One Hive-style folder per month a route starts in (UTC):
        /// `start_month=YYYY-MM/routes.parquet` and `.../points.parquet`, which DuckDB,
        /// Spark and pyarrow read as one dataset with a `start_month` column.
        case month
    }

    /// How each page is compressed.
    public enum Compression: Sendable, Equatable {
        /// Parquet's LZ4_RAW codec: a raw LZ4 block per page, the store's own LZ4.
        case lz4Raw
        /// No compression, for readers without LZ4_RAW (Parquet readers before format 2.9).
        case none
    }

    /// Which points a route's `geometry` (in routes.parquet) is drawn from. The points
    /// table holds every point either way.
    public enum Geometry: Sendable, Equatable {
        /// The route's stored preview (``RouteSummary/preview``: at most 64 points, both
        /// ends kept, within its `tolerance` metres of every point) as one line, when the
        /// route has one; every point otherwise (a recording not yet compacted). A map
        /// overview or a spatial join needs no more, and the file stays small.
        case preview
        /// Every point, one line per recording segment.
        case full
    }

    /// The default: no partitions.
    public var partitioning: Partitioning = .none
    /// The default: LZ4_RAW.
    public var compression: Compression = .lz4Raw
    /// The default: the preview (`routelog export --full-geometry` draws every point).
    public var geometry: Geometry = .preview
    /// Points per row group (the default, 1,048,576, is about 8 MB of LZ4_RAW pages for
    /// phone walks: large enough for fast scans, small enough that readers can split a
    /// file among threads). Groups end between routes: at the first batch of routes
    /// (up to 65,536 points) that reaches this count, so one route's points share a group.
    public var pointsPerRowGroup = 1 << 20
    /// Routes per row group (default 65,536, ended the same way). A routes group also
    /// ends once it holds 64 MiB of geometries, whichever comes first.
    public var routesPerRowGroup = 1 << 16
    /// Privacy zones applied to every route as ``RouteExporter`` applies them
    /// (``PrivacyTrim``): a trimmed route's row and points are its trimmed self, with
    /// figures of its own and no calories; a route wholly inside is left out and named in
    /// ``ParquetExportReport/withheldRoutes``. None by default; the zones kept in the
    /// store's settings are applied besides these unless ``storedPrivacyZones`` is false.
    public var privacyZones: [PrivacyZone] = []
    /// Whether the zones kept in the store's settings (``StoreSettings/privacyZones``)
    /// are applied too (the default), as every store-based export applies them.
    public var storedPrivacyZones = true
    /// How long, in seconds, an export waits for another export into the same directory
    /// (from any process) to end before it throws ``RouteLogError/Code/locked`` naming
    /// the directory. Ten minutes by default, longer than an export of a large store takes.
    public var directoryWait: TimeInterval = 600

    /// Creates options; the defaults write two LZ4_RAW files without partitions.
    public init(partitioning: Partitioning = .none, compression: Compression = .lz4Raw) {
        self.partitioning = partitioning
        self.compression = compression
    }

    var codec: ParquetFormat.Codec { compression == .none ? .uncompressed : .lz4Raw }
}
