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

    /// How a store is opened. Every option has a default that suits an app.
    public struct Options: Sendable, Equatable {
        /// Default `.durable`: every save is on disk when it returns.
        public var durability: Durability = .durable
        /// Default 64 MiB: a segment is closed and a new one started past this size.
        /// Smaller segments compact in smaller steps; larger ones mean fewer files.
        public var segmentSizeLimit: Int = FormatConstants.defaultSegmentLimit
        /// Default `.automatic()`: dead space is reclaimed once it is half the store
        /// and at least 4 MiB.
        public var compaction: CompactionPolicy = .automatic()

        /// The defaults.
        public init() {}

        /// Options with the given values.
        public init(durability: Durability = .durable, segmentSizeLimit: Int = 64 << 20,
                    compaction: CompactionPolicy = .automatic()) {
            self.durability = durability
            self.segmentSizeLimit = segmentSizeLimit
            self.compaction = compaction
        }
    }
}
