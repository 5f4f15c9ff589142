import Foundation

extension RouteStore {
    /// When a save (or delete, edit, recording flush) may return. Whatever the level,
    /// the switches that change which files are live (a new segment, a compaction, a
    /// rebuilt index) are always made fully durable, so the store always opens.
    public enum Durability: Sendable, Equatable {
        /// A save returns once its bytes are on permanent storage: `F_FULLFSYNC` on Apple
        /// platforms (the drive writes its cache to flash before answering), fdatasync on
        /// Linux (which also flushes the drive's cache). Survives an app crash, a kernel
        /// panic and a power loss: a save that returned is never lost. Costs one full
        /// flush per group of saves, several milliseconds on Apple flash. The default.
        case full
        /// A save returns once its bytes are handed to the drive behind a write barrier:
        /// `F_BARRIERFSYNC` on Apple platforms (the drive may not reorder writes across
        /// it); elsewhere fdatasync, as strong as ``full``. Survives an app crash and a
        /// kernel panic. After a power loss the last saves may be missing, but in order:
        /// a later save is never there without an earlier one, and the store opens. A
        /// fraction of ``full``'s cost on Apple flash.
        case ordered
        /// A save returns once its bytes are written to the operating system, which
        /// writes them out within seconds. Survives an app crash or the app being killed.
        /// A kernel panic or power loss may lose any save since the last sync, never one
        /// from before it; ``RouteStore/close()`` makes them durable, and so does the
        /// store itself once it has been quiet for ``Options/bufferedQuietSyncDelay``.
        /// For bulk imports: several times faster.
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
        /// Default `.full`: every save is on disk when it returns.
        public var durability: Durability = .full
        /// Default 64 MiB: a segment is closed and a new one started past this size.
        /// Smaller segments compact in smaller steps; larger ones mean fewer files.
        public var segmentSizeLimit: Int = FormatConstants.defaultSegmentLimit
        /// Default `.automatic()`: dead space is reclaimed once it is half the store
        /// and at least 4 MiB.
        public var compaction: CompactionPolicy = .automatic()

        /// Default ``FileProtection/completeUntilFirstUserAuthentication``: the Data
        /// Protection class of every file the store creates (see ``FileProtection``), so
        /// a recording keeps saving while the phone is locked in a pocket. No effect on
        /// Linux.
        public var fileProtection: FileProtection = .completeUntilFirstUserAuthentication

        /// Default 0.25: compaction rewrites a segment only when at least this fraction
        /// of its record bytes is dead (deleted routes, replaced edits, discarded or
        /// merged recordings); the others are left as they are, and the
        /// ``CompactionReport`` says so. Lower reclaims more, rewriting more live bytes.
        public var compactionRewriteThreshold: Double = 0.25

        /// Default 32: how many segment files a store keeps open when it is not reading
        /// them. Reads of other segments open them again (the least recently used is
        /// closed first), so a store of any number of segments works under a small
        /// limit of open files (`ulimit -n`). At least 1.
        public var openSegmentFileLimit: Int = 32

        /// Default 1 second: with ``Durability/buffered``, once no change has come for
        /// this long, the saves since the last sync are synced in the background (and
        /// their index records written), so a burst of saves is on disk about this long
        /// after it ends. A change meanwhile moves the deadline: saves without a pause are
        /// never held up by it. nil: buffered saves are synced only every 1,024 saves,
        /// when a segment fills, by a compaction, and at ``RouteStore/close()``. At least
        /// 0 (NaN is refused); infinity never syncs, as nil.
        public var bufferedQuietSyncDelay: Double? = 1

        /// The defaults.
        public init() {}

        /// Options with the given values.
        public init(mode: OpenMode = .createIfMissing, durability: Durability = .full,
                    segmentSizeLimit: Int = 64 << 20, compaction: CompactionPolicy = .automatic()) {
            self.mode = mode
            self.durability = durability
            self.segmentSizeLimit = segmentSizeLimit
            self.compaction = compaction
        }
    }
}
