/// The numbers of the Parquet format that this writer uses: every one is a value of an
/// enum or a constant of the Parquet specification (apache/parquet-format,
/// `src/main/thrift/parquet.thrift` and `Encodings.md`), named as there. The export's
/// own schema is described in format-spec.md, "Export: GeoParquet".
enum ParquetFormat {
    /// "PAR1": the first and last four bytes of every Parquet file.
    static let magic: [UInt8] = Array("PAR1".utf8)
    /// FileMetaData.version: 1, which the specification asks writers to use.
    static let fileVersion: Int32 = 1
    /// FileMetaData.created_by, in the `<application> version <version>` form readers parse.
    static let createdBy = "RouteLog version \(RouteLog.version)"

    /// `Type`: the physical type of a column's values.
    enum PhysicalType: Int32, Sendable {
        case int32 = 1, int64 = 2, double = 5, byteArray = 6, fixedLengthByteArray = 7

        /// Bytes of one PLAIN value; nil for BYTE_ARRAY (length-prefixed) and FIXED_LEN_BYTE_ARRAY.
        var plainWidth: Int? {
            switch self {
            case .int32: return 4
            case .int64, .double: return 8
            case .byteArray, .fixedLengthByteArray: return nil
            }
        }
    }

    /// `FieldRepetitionType`.
    enum Repetition: Int32, Sendable {
        case required = 0, optional = 1
    }

    /// `ConvertedType`: the annotation older readers know, written beside the logical type.
    enum ConvertedType: Int32, Sendable {
        case utf8 = 0, timestampMillis = 9
    }

    /// `Encoding`.
    enum Encoding: Int32, Sendable {
        case plain = 0, rle = 3, deltaBinaryPacked = 5, rleDictionary = 8
    }

    /// `CompressionCodec`.
    enum Codec: Int32, Sendable {
        case uncompressed = 0, lz4Raw = 7
    }

    /// `PageType`.
    enum PageType: Int32, Sendable {
        case dataPage = 0, dictionaryPage = 2
    }

    /// DELTA_BINARY_PACKED: 128 values a block in 4 miniblocks of 32, the shape the
    /// reference writers use (the block size must be a multiple of 128 and a miniblock a
    /// multiple of 32 values).
    static let deltaBlockSize = 128
    static let deltaMiniblocksPerBlock = 4
    static let deltaMiniblockSize = deltaBlockSize / deltaMiniblocksPerBlock
}
