// Every constant of the on-disk format, in one place. The meaning of each is in
// format-spec.md at the project root; change both together.

enum FormatConstants {
    /// The format version this library writes and the newest it reads.
    static let version: UInt16 = 2

    /// "RouteLog", the first 8 bytes of every file.
    static let fileMagic: [UInt8] = Array("RouteLog".utf8)
    /// File header: magic 8, kind 1, flags 1, version 2, file number 4, checksum 4.
    static let fileHeaderSize = 20

    enum FileKind: UInt8 {
        case segment = 1
        case index = 2
        case manifest = 3
    }

    /// AB 52 4C 52: starts every record frame.
    static let recordSync: [UInt8] = [0xAB, 0x52, 0x4C, 0x52]
    /// sync 4, checksum 4, length 4, type 1, flags 1, reserved 2.
    static let recordHeaderSize = 16
    /// The largest payload a reader accepts (64 MiB).
    static let maxPayloadLength = 64 << 20
    /// The largest route id a reader accepts (2^62): ids count up from 1, so larger ones
    /// are forged, and would overflow the next id.
    static let maxRouteID: UInt64 = 1 << 62

    enum RecordType: UInt8 {
        // Segment records.
        case routePut = 1
        case routeDelete = 2
        case metadataEdit = 3
        case recordingStart = 4
        case recordingChunk = 5
        case recordingFinish = 6
        case recordingDiscard = 7
        // Index records.
        case indexPut = 16
        case indexDelete = 17
        case indexEdit = 18
        case indexRecordingStart = 19
        case indexRecordingChunk = 20
        case indexRecordingFinish = 21
        case indexRecordingDiscard = 22
        case indexPutRun = 23
        // Manifest.
        case manifestState = 32
    }

    /// The most points a writer puts in one RecordingChunk (format-spec.md,
    /// "Recordings"); a larger flush writes several chunks in one batch. Readers accept
    /// any count that keeps the recording within RouteValidation.maxPoints.
    static let maxRecordingChunkPoints = 50_000

    /// Added to the CRC32C before it is stored (LevelDB's mask).
    static let checksumMaskDelta: UInt32 = 0xA282_EAD8

    /// RouteShape's fixed size in bytes.
    static let routeShapeSize = 60
    /// Location in an index record: segment u32, offset u64, frame length u32.
    static let locationSize = 16
    /// An IndexPutRun's entry: id u64, location, shape, metadata length u32.
    static let indexPutRunEntrySize = 8 + locationSize + routeShapeSize + 4
    /// The most entries a writer puts in one IndexPutRun (readers accept any count the
    /// payload limit allows).
    static let maxIndexPutRunEntries = 1024

    enum MetadataFlag {
        static let name: UInt8 = 1 << 0
        static let calories: UInt8 = 1 << 1
        static let distance: UInt8 = 1 << 2
        /// Version 2: tagged fields follow (format-spec.md, "Segment records").
        static let extensionFields: UInt8 = 1 << 3
        static let all: UInt8 = name | calories | distance | extensionFields
    }
    static let maxNameBytes = 1024

    /// Tags of the metadata extension's fields.
    enum MetadataField: UInt64 {
        case activity = 1
        case notes = 2
        case tag = 3
        case value = 4
        case uuid = 5
        // Derived from the points at save (format-spec.md, "Derived fields").
        case stats = 16
        case cells = 17
        case preview = 18
    }
    /// Activity kinds as stored; 0 is a custom kind whose name follows.
    enum ActivityCode: UInt8 {
        case custom = 0, walk, run, hike, ride, swim, other
    }
    static let maxExtensionBytes = 64 << 10
    static let maxNotesBytes = 4096
    static let maxTags = 32
    static let maxTagBytes = 64
    static let maxValues = 32
    static let maxValueKeyBytes = 64
    static let maxValueBytes = 1024
    static let maxActivityNameBytes = 64

    /// A PointBlock's first byte: how the columns that follow are encoded.
    enum Compression: UInt8 {
        /// A version 1 column block, stored.
        case none = 0
        /// A version 1 column block, LZ4-compressed.
        case lz4 = 1
        /// A version 2 column block (entropy-coded residuals).
        case columnsV2 = 2
    }
    /// LZ4 never expands more than 255:1; anything claiming more is hostile.
    static let lz4MaxRatio = 255

    enum ColumnTag: UInt8, CaseIterable {
        case latitude = 1
        case longitude = 2
        case time = 3
        case altitude = 4
        case horizontalAccuracy = 5
        case verticalAccuracy = 6
        case speed = 7
        case course = 8
        case heartRate = 9
        case cadence = 10
    }
    static let columnOrderMask: UInt8 = 0x03
    static let columnHasBitmap: UInt8 = 0x80

    /// The version 2 column encoding (format-spec.md, "PointBlock", "Version 2").
    enum ColumnV2 {
        /// Encoding bit 2: the residual code has zero-run tokens.
        static let zeroRuns: UInt8 = 0x04
        /// Encoding bits 3-4: log2 of the number of streams.
        static let streamShift: UInt8 = 3
        static let streamMask: UInt8 = 0x18
        /// Encoding bit 6: presence as alternating runs follows.
        static let presenceRuns: UInt8 = 0x40
        /// The most points a version 2 block may hold.
        static let maxPoints = 1_000_000
        /// The longest code, in bits.
        static let maxCodeLength = 11
        /// The longest code this writer makes. A reader's decode table has 2^(longest
        /// code) entries, made for every column it reads: at 9 bits a walk's costliest
        /// column (its course, with rare jumps across north) fills 512 entries instead of
        /// 2,048, and the codes grow by 0.01 bytes a point or less on the benchmark's
        /// tracks. Readers take codes up to ``maxCodeLength``.
        static let writtenCodeLength = 9
        /// Value tokens: u below `directTokens` is its own token; larger u take a token of
        /// their exponent and `tokenMantissaBits` bits below the top bit.
        static let directTokens = 16
        static let tokenMantissaBits = 2
        static let valueTokens = 256
        /// Run tokens 0..<runTokens: runs of 2^j...2^(j+1)-1 zero residuals.
        static let runTokens = 20
    }

    // Quantization (format-spec.md, "Quantization").
    static let degreeScale = 1e7
    static let millisecondsPerSecond = 1000.0
    static let centimetreScale = 100.0
    static let courseScale = 100.0
    static let perMinuteScale = 1.0
    static let metricLimit = 1e7
    static let perMinuteLimit = 1e6
    /// 2200-01-01T00:00:00Z in ms since 1970.
    static let latestTimestampMs: Int64 = 7_258_118_400_000

    static let manifestName = "MANIFEST"
    static let lockName = "LOCK"
    static let segmentPrefix = "seg-"
    static let segmentSuffix = ".rlseg"
    static let indexPrefix = "index-"
    static let indexSuffix = ".rlidx"
    static let temporarySuffix = ".tmp"

    /// Default segment size limit (64 MiB).
    static let defaultSegmentLimit = 64 << 20

    static func segmentName(_ number: UInt32) -> String {
        segmentPrefix + padded(number) + segmentSuffix
    }

    static func indexName(_ number: UInt32) -> String {
        indexPrefix + padded(number) + indexSuffix
    }

    private static func padded(_ number: UInt32) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }
}
