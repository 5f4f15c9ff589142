/// The parts of parquet.thrift this writer fills in, each with its Thrift field ids.
/// Optional fields left nil are not written.

/// `LogicalType` (a union): the annotations the export uses.
enum ParquetLogicalType: Equatable, Sendable {
    case string
    /// `TimestampType`: always UTC-adjusted milliseconds here.
    case timestampMillisUTC
    case uuid

    func write(_ w: inout ThriftCompactWriter) {
        switch self {
        case .string: w.structure(1) { _ in }  // StringType {}
        case .timestampMillisUTC:
            w.structure(8) { t in  // TimestampType
                t.bool(1, true)  // isAdjustedToUTC
                t.structure(2) { unit in unit.structure(1) { _ in } }  // TimeUnit.MILLIS
            }
        case .uuid: w.structure(14) { _ in }  // UUIDType {}
        }
    }
}

/// `SchemaElement`: a group (with `numChildren`) or a leaf column (with `type`).
struct ParquetSchemaElement {
    var name: String
    var type: ParquetFormat.PhysicalType?
    var typeLength: Int32?
    var repetition: ParquetFormat.Repetition?
    var numChildren: Int32?
    var convertedType: ParquetFormat.ConvertedType?
    var logicalType: ParquetLogicalType?

    func write(_ w: inout ThriftCompactWriter) {
        if let type { w.i32(1, type.rawValue) }
        if let typeLength { w.i32(2, typeLength) }
        if let repetition { w.i32(3, repetition.rawValue) }
        w.string(4, name)
        if let numChildren { w.i32(5, numChildren) }
        if let convertedType { w.i32(6, convertedType.rawValue) }
        if let logicalType { w.structure(10) { logicalType.write(&$0) } }
    }
}

/// `Statistics` of a column chunk: bounds in PLAIN encoding (strings without their
/// length), the number of nulls, and for doubles the number of NaNs.
struct ParquetStatistics: Equatable, Sendable {
    var min: [UInt8]?
    var max: [UInt8]?
    var nullCount: Int64
    var nanCount: Int64?
    /// Also fill the deprecated `min`/`max` fields, which older readers read and which
    /// are defined by signed comparison: right for the integer and double columns only.
    var signedOrder = false

    func write(_ w: inout ThriftCompactWriter) {
        if signedOrder, let max { w.binary(1, max) }
        if signedOrder, let min { w.binary(2, min) }
        w.i64(3, nullCount)
        if let max { w.binary(5, max) }
        if let min { w.binary(6, min) }
        if min != nil {
            w.bool(7, true)  // is_max_value_exact
            w.bool(8, true)  // is_min_value_exact
        }
        if let nanCount { w.i64(9, nanCount) }
    }
}

/// `ColumnMetaData` (inside a `ColumnChunk`).
struct ParquetColumnChunk {
    var type: ParquetFormat.PhysicalType
    var encodings: [ParquetFormat.Encoding]
    var path: [String]
    var codec: ParquetFormat.Codec
    var valueCount: Int64
    var uncompressedSize: Int64
    var compressedSize: Int64
    var dataPageOffset: Int64
    var dictionaryPageOffset: Int64?
    var statistics: ParquetStatistics?

    /// The first byte of the chunk: its dictionary page if it has one.
    var startOffset: Int64 { dictionaryPageOffset ?? dataPageOffset }

    func write(_ w: inout ThriftCompactWriter) {
        w.i64(2, 0)  // file_offset: 0, no ColumnMetaData outside the footer
        w.structure(3) { m in
            m.i32(1, type.rawValue)
            m.list(2, i32: encodings.map(\.rawValue))
            m.list(3, strings: path)
            m.i32(4, codec.rawValue)
            m.i64(5, valueCount)
            m.i64(6, uncompressedSize)
            m.i64(7, compressedSize)
            m.i64(9, dataPageOffset)
            if let dictionaryPageOffset { m.i64(11, dictionaryPageOffset) }
            if let statistics { m.structure(12) { statistics.write(&$0) } }
        }
    }
}

/// `RowGroup`.
struct ParquetRowGroup {
    var columns: [ParquetColumnChunk]
    var rowCount: Int64
    var ordinal: Int16?
    /// `SortingColumn`s: leaf column indices the rows are sorted by, ascending.
    var sortedBy: [Int32]

    func write(_ w: inout ThriftCompactWriter) {
        w.list(1, structs: columns.count) { c, i in columns[i].write(&c) }
        w.i64(2, columns.reduce(0) { $0 + $1.uncompressedSize })
        w.i64(3, rowCount)
        if !sortedBy.isEmpty {
            w.list(4, structs: sortedBy.count) { s, i in
                s.i32(1, sortedBy[i])
                s.bool(2, false)  // ascending
                s.bool(3, false)  // nulls last (the sort columns have none)
            }
        }
        if let first = columns.first { w.i64(5, first.startOffset) }
        w.i64(6, columns.reduce(0) { $0 + $1.compressedSize })
        if let ordinal { w.i16(7, ordinal) }
    }
}

/// `FileMetaData`: the footer.
struct ParquetFileMetadata {
    var schema: [ParquetSchemaElement]
    var rowCount: Int64
    var rowGroups: [ParquetRowGroup]
    var keyValues: [(key: String, value: String)]
    var leafCount: Int

    func encoded() -> [UInt8] {
        var w = ThriftCompactWriter()
        w.i32(1, ParquetFormat.fileVersion)
        w.list(2, structs: schema.count) { s, i in schema[i].write(&s) }
        w.i64(3, rowCount)
        w.list(4, structs: rowGroups.count) { g, i in rowGroups[i].write(&g) }
        if !keyValues.isEmpty {
            w.list(5, structs: keyValues.count) { kv, i in
                kv.string(1, keyValues[i].key)
                kv.string(2, keyValues[i].value)
            }
        }
        w.string(6, ParquetFormat.createdBy)
        // column_orders: the type-defined order for every leaf, which gives the
        // statistics' min_value and max_value their meaning.
        w.list(7, structs: leafCount) { order, _ in order.structure(1) { _ in } }
        w.stop()
        return w.bytes
    }
}

/// `PageHeader` of a data page (v1) or a dictionary page.
struct ParquetPageHeader {
    enum Kind {
        /// `DataPageHeader`: values (nulls included) and their encoding; levels are RLE.
        case data(valueCount: Int32, encoding: ParquetFormat.Encoding)
        /// `DictionaryPageHeader`: entries, PLAIN.
        case dictionary(entryCount: Int32)
    }

    var kind: Kind
    var uncompressedSize: Int32
    var compressedSize: Int32

    func encoded() -> [UInt8] {
        var w = ThriftCompactWriter()
        switch kind {
        case let .data(valueCount, encoding):
            w.i32(1, ParquetFormat.PageType.dataPage.rawValue)
            w.i32(2, uncompressedSize)
            w.i32(3, compressedSize)
            w.structure(5) { d in
                d.i32(1, valueCount)
                d.i32(2, encoding.rawValue)
                d.i32(3, ParquetFormat.Encoding.rle.rawValue)  // definition levels
                d.i32(4, ParquetFormat.Encoding.rle.rawValue)  // repetition levels (none here)
            }
        case let .dictionary(entryCount):
            w.i32(1, ParquetFormat.PageType.dictionaryPage.rawValue)
            w.i32(2, uncompressedSize)
            w.i32(3, compressedSize)
            w.structure(7) { d in
                d.i32(1, entryCount)
                d.i32(2, ParquetFormat.Encoding.plain.rawValue)
            }
        }
        w.stop()
        return w.bytes
    }
}
