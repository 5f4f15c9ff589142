import Foundation

extension RouteStore {
    /// When a save may return.
    public enum Durability: Sendable, Equatable {
        /// A save returns once its bytes are on stable storage: one fdatasync per save
        /// (F_FULLFSYNC on Darwin). A crash or power loss never loses a saved route.
        case durable
        /// A save returns once its bytes are written to the operating system; the OS
        /// makes them durable within seconds. A power loss (not an app crash) may lose the
        /// last saves, never older ones. For bulk imports: several times faster.
        case buffered
    }

    /// When the store reclaims the space of deleted routes and replaced metadata.
    public enum CompactionPolicy: Sendable, Equatable {
        /// Only when the app calls ``RouteStore/compact()``.
        case manual
        /// After a save, delete, edit, or a recording's finish or discard, in the
        /// background, once dead bytes are at least `minDeadFraction` of the segments and
        /// at least `minDeadBytes`, or once finished recordings still stored as chunks
        /// are (compaction merges each into one record).
        case automatic(minDeadFraction: Double = 0.5, minDeadBytes: Int64 = 4 << 20)
    }

    /// Whether opening may create the store, and whether the handle may write.
    public enum OpenMode: Sendable, Equatable {
        /// Open for reading and writing; create the store when the directory is missing
        /// or empty, or finish a creation a crash interrupted. What an app wants.
        case createIfMissing
        /// Open for reading and writing a store that must exist already
        /// (``RouteLogError/Code/notFound`` otherwise): what a tool that edits stores
        /// wants, so a mistyped path leaves no empty store behind.
        case mustExist
        /// Open an existing store without ever writing to it, beside a writer in another
        /// process (a widget, an extension, the `routelog` inspector). Sees every change
        /// committed before it opened, and later ones after ``RouteStore/refresh()``.
        case readOnly
    }

    /// How a store is opened. Every option has a default that suits an app.
    public struct Options: Sendable, Equatable {
        /// Default `.createIfMissing`.
        public var mode: OpenMode = .createIfMissing
        /// Default `.durable`: every save is on disk when it returns.
        public var durability: Durability = .durable
        /// Default 64 MiB: a segment is closed and a new one started past this size.
        /// Smaller segments compact in smaller steps; larger ones mean fewer files.
        public var segmentSizeLimit: Int = FormatConstants.defaultSegmentLimit
        /// Default `.automatic()`: dead space is reclaimed once it is half the store
        /// and at least 4 MiB.
        public var compaction: CompactionPolicy = .automatic()

        /// Default 0.25: compaction rewrites a segment only when at least this fraction
        /// of its record bytes is dead (deleted routes, replaced edits, discarded or
        /// merged recordings); the others are left as they are, and the
        /// ``CompactionReport`` says so. Lower reclaims more, rewriting more live bytes.
        public var compactionRewriteThreshold: Double = 0.25

        /// The defaults.
        public init() {}

        /// Options with the given values.
        public init(mode: OpenMode = .createIfMissing, durability: Durability = .durable,
                    segmentSizeLimit: Int = 64 << 20, compaction: CompactionPolicy = .automatic()) {
            self.mode = mode
            self.durability = durability
            self.segmentSizeLimit = segmentSizeLimit
            self.compaction = compaction
        }
    }
}
