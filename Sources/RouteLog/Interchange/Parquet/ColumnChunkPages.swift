/// A column chunk being written: its pages, each a header and a (compressed) body,
/// back to back as they will lie in the file.
struct ColumnChunkPages {
    let codec: ParquetFormat.Codec
    private(set) var bytes: [UInt8] = []
    private(set) var uncompressedSize: Int64 = 0
    private(set) var encodings: Set<ParquetFormat.Encoding> = []

    init(codec: ParquetFormat.Codec) { self.codec = codec }

    /// Appends a data page (v1) holding `valueCount` values, nulls included; `body` is
    /// its definition levels (when the column is optional) and then its values.
    mutating func appendDataPage(_ body: [UInt8], valueCount: Int, encoding: ParquetFormat.Encoding, optional: Bool) {
        append(body, .data(valueCount: Int32(valueCount), encoding: encoding))
        encodings.insert(encoding)
        // RLE is how definition levels are written; list it only when there are some.
        if optional { encodings.insert(.rle) }
    }

    /// A dictionary page; the caller puts it first in the chunk.
    static func dictionaryPage(_ body: [UInt8], entryCount: Int, codec: ParquetFormat.Codec) -> ColumnChunkPages {
        var page = ColumnChunkPages(codec: codec)
        page.append(body, .dictionary(entryCount: Int32(entryCount)))
        page.encodings.insert(.plain)
        return page
    }

    private mutating func append(_ body: [UInt8], _ kind: ParquetPageHeader.Kind) {
        let stored = PageCompression.compress(body, codec: codec)
        precondition(body.count <= Int(Int32.max) && stored.count <= Int(Int32.max), "a Parquet page is under 2 GiB")
        let header = ParquetPageHeader(kind: kind, uncompressedSize: Int32(body.count),
                                       compressedSize: Int32(stored.count)).encoded()
        bytes.append(contentsOf: header)
        bytes.append(contentsOf: stored)
        uncompressedSize += Int64(header.count + body.count)
    }
}

/// A finished column chunk, ready to be written at some offset of the file.
struct EncodedColumnChunk: Sendable {
    /// The dictionary page, if any, then the data pages.
    var bytes: [UInt8]
    /// Bytes of the dictionary page (header included) at the start of `bytes`; 0 without one.
    var dictionaryPageSize: Int
    var encodings: [ParquetFormat.Encoding]
    var codec: ParquetFormat.Codec
    var valueCount: Int64
    var uncompressedSize: Int64
    var statistics: ParquetStatistics?

    /// A chunk without pages, to which fragments are appended.
    init(codec: ParquetFormat.Codec) {
        bytes = []
        dictionaryPageSize = 0
        encodings = []
        self.codec = codec
        valueCount = 0
        uncompressedSize = 0
        statistics = nil
    }

    init(pages: ColumnChunkPages, dictionary: ColumnChunkPages? = nil, valueCount: Int64, statistics: ParquetStatistics?) {
        bytes = (dictionary?.bytes ?? []) + pages.bytes
        dictionaryPageSize = dictionary?.bytes.count ?? 0
        let all = pages.encodings.union(dictionary?.encodings ?? [])
        encodings = all.sorted { $0.rawValue < $1.rawValue }
        codec = pages.codec
        self.valueCount = valueCount
        uncompressedSize = pages.uncompressedSize + (dictionary?.uncompressedSize ?? 0)
        self.statistics = statistics
    }
}

/// What a table writer asks of each of its columns.
protocol ColumnChunkWriter: AnyObject {
    var column: ParquetColumn { get }
    /// Values (nulls included) added since the last chunk was finished.
    var rowCount: Int { get }
    /// Bytes held for the chunk being written, to bound a row group's memory.
    var bufferedBytes: Int { get }
    /// Ends the chunk: encodes what is pending and starts a new chunk.
    func finishChunk() -> EncodedColumnChunk
}
