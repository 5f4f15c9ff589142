/// Writes a BYTE_ARRAY column (strings, WKB geometries) or a FIXED_LEN_BYTE_ARRAY one
/// (UUIDs), required or nullable.
///
/// `.plain` writes pages as they fill (a page per MiB of values). `.dictionaryWhenSmaller`
/// holds the whole chunk, then writes a dictionary page and RLE_DICTIONARY data pages if
/// that is smaller than PLAIN (few distinct values, as in activity kinds or repeated
/// names), and PLAIN pages otherwise.
final class ByteArrayColumnWriter: ColumnChunkWriter {
    enum Encoding {
        case plain
        case dictionaryWhenSmaller
    }

    let column: ParquetColumn
    private let encoding: Encoding
    /// Write the chunk's smallest and largest value (bytewise) in its statistics:
    /// meaningful for strings, not for WKB or UUIDs.
    private let statisticsBounds: Bool
    private let pageValues: Int
    private static let pageBytes = 1 << 20
    /// A dictionary larger than this is not worth keeping.
    private static let dictionaryLimit = 1 << 20
    private var pages: ColumnChunkPages

    /// PLAIN bytes of the values not yet in a page (the whole chunk's, with a dictionary).
    private var data: [UInt8] = []
    /// Where each of those values ends in `data` (dictionary mode only: pages are cut
    /// from it at the end).
    private var valueEnds: [Int] = []
    private var levels: [UInt8] = []
    private var pageSlots = 0
    private(set) var rowCount = 0
    private var nulls: Int64 = 0
    private var minimum: [UInt8]?, maximum: [UInt8]?
    private var dictionary = ByteArrayDictionary()

    init(_ column: ParquetColumn, codec: ParquetFormat.Codec, encoding: Encoding, statisticsBounds: Bool, pageValues: Int) {
        precondition(column.type == .byteArray || column.type == .fixedLengthByteArray)
        self.column = column
        self.encoding = encoding
        self.statisticsBounds = statisticsBounds
        self.pageValues = pageValues
        pages = ColumnChunkPages(codec: codec)
    }

    var bufferedBytes: Int { pages.bytes.count + data.count + levels.count + valueEnds.count * 8 + dictionary.bytes }

    /// Appends one value.
    func append(_ value: [UInt8]) {
        if statisticsBounds {
            if minimum.map({ value.lexicographicallyPrecedes($0) }) ?? true { minimum = value }
            if maximum.map({ $0.lexicographicallyPrecedes(value) }) ?? true { maximum = value }
        }
        if encoding == .dictionaryWhenSmaller { dictionary.add(value, limit: Self.dictionaryLimit) }
        append(length: value.count) { $0.append(contentsOf: value) }
    }

    /// Appends one value of `length` bytes that `write` appends to the buffer it is given
    /// (so large values, such as geometries, are written once, in place).
    func append(length: Int, _ write: (inout [UInt8]) -> Void) {
        if column.type == .byteArray {
            precondition(length <= Int(UInt32.max), "a BYTE_ARRAY value is under 4 GiB")
            BitPacking.appendWord(UInt64(length), bytes: 4, to: &data)
        } else {
            precondition(length == Int(column.typeLength ?? 0), "\(column.path) holds \(column.typeLength ?? 0)-byte values")
        }
        let before = data.count
        write(&data)
        precondition(data.count - before == length, "wrote \(data.count - before) bytes of a \(length)-byte value")
        if column.isOptional { levels.append(1) }
        if encoding == .dictionaryWhenSmaller { valueEnds.append(data.count) }
        slotFilled()
    }

    func append(_ value: [UInt8]?) {
        if let value { append(value) } else { appendNull() }
    }

    func appendNull() {
        precondition(column.isOptional, "\(column.path) is required")
        levels.append(0)
        nulls += 1
        slotFilled()
    }

    private func slotFilled() {
        pageSlots += 1
        rowCount += 1
        if encoding == .plain && (pageSlots == pageValues || data.count >= Self.pageBytes) { flushPlainPage() }
    }

    private func flushPlainPage() {
        guard pageSlots > 0 else { return }
        var body: [UInt8] = []
        body.reserveCapacity(data.count + levels.count / 4 + 16)
        if column.isOptional { RLEHybrid.appendDefinitionLevels(levels, to: &body) }
        body.append(contentsOf: data)
        pages.appendDataPage(body, valueCount: pageSlots, encoding: .plain, optional: column.isOptional)
        data.removeAll(keepingCapacity: true)
        levels.removeAll(keepingCapacity: true)
        pageSlots = 0
    }

    func finishChunk() -> EncodedColumnChunk {
        var dictionaryPage: ColumnChunkPages?
        if encoding == .dictionaryWhenSmaller {
            if let entries = dictionary.entriesIfSmaller(thanPlain: data.count, values: valueEnds.count) {
                dictionaryPage = ColumnChunkPages.dictionaryPage(entries.body, entryCount: entries.count, codec: pages.codec)
                writeDictionaryPages()
            } else {
                writePlainPagesFromChunk()
            }
        } else {
            flushPlainPage()
        }
        var statistics = ParquetStatistics(nullCount: nulls)
        statistics.min = minimum
        statistics.max = maximum
        let chunk = EncodedColumnChunk(pages: pages, dictionary: dictionaryPage, valueCount: Int64(rowCount),
                                       statistics: statistics)
        pages = ColumnChunkPages(codec: pages.codec)
        data.removeAll(keepingCapacity: true)
        valueEnds.removeAll(keepingCapacity: true)
        levels.removeAll(keepingCapacity: true)
        dictionary = ByteArrayDictionary()
        pageSlots = 0
        rowCount = 0
        nulls = 0
        minimum = nil
        maximum = nil
        return chunk
    }

    /// The chunk's slots cut into pages of `pageValues`: each page's slot range and the
    /// range of its non-null values.
    private func pageRanges() -> [(slots: Range<Int>, values: Range<Int>)] {
        var ranges: [(Range<Int>, Range<Int>)] = []
        var slot = 0, value = 0
        while slot < rowCount {
            let end = min(rowCount, slot + pageValues)
            let present = column.isOptional ? levels[slot..<end].reduce(0) { $0 + Int($1) } : end - slot
            ranges.append((slot..<end, value..<value + present))
            slot = end
            value += present
        }
        return ranges
    }

    private func writeDictionaryPages() {
        let width = max(1, BitPacking.width(of: UInt64(max(0, dictionary.count - 1))))
        for (slots, values) in pageRanges() {
            var body: [UInt8] = []
            if column.isOptional { RLEHybrid.appendDefinitionLevels(Array(levels[slots]), to: &body) }
            body.append(UInt8(width))
            dictionary.indices[values].withUnsafeBufferPointer { RLEHybrid.encode($0, width: width, into: &body) }
            pages.appendDataPage(body, valueCount: slots.count, encoding: .rleDictionary, optional: column.isOptional)
        }
    }

    private func writePlainPagesFromChunk() {
        for (slots, values) in pageRanges() {
            var body: [UInt8] = []
            if column.isOptional { RLEHybrid.appendDefinitionLevels(Array(levels[slots]), to: &body) }
            if !values.isEmpty {
                let start = values.lowerBound == 0 ? 0 : valueEnds[values.lowerBound - 1]
                body.append(contentsOf: data[start..<valueEnds[values.upperBound - 1]])
            }
            pages.appendDataPage(body, valueCount: slots.count, encoding: .plain, optional: column.isOptional)
        }
    }
}

/// The distinct values of a dictionary-encoded chunk, and each value's entry number.
struct ByteArrayDictionary {
    private var numbers: [[UInt8]: UInt32] = [:]
    private var entries: [[UInt8]] = []
    private(set) var indices: [UInt32] = []
    /// PLAIN bytes of the entries.
    private(set) var bytes = 0
    private var overflowed = false

    var count: Int { entries.count }

    mutating func add(_ value: [UInt8], limit: Int) {
        guard !overflowed else { return }
        if let number = numbers[value] {
            indices.append(number)
            return
        }
        guard bytes + 4 + value.count <= limit else {
            overflowed = true
            return
        }
        let number = UInt32(entries.count)
        numbers[value] = number
        entries.append(value)
        bytes += 4 + value.count
        indices.append(number)
    }

    /// The dictionary page's PLAIN body and entry count, when the dictionary and the
    /// packed indices take fewer bytes than the values written PLAIN.
    func entriesIfSmaller(thanPlain plainBytes: Int, values: Int) -> (body: [UInt8], count: Int)? {
        guard !overflowed, !entries.isEmpty else { return nil }
        let width = max(1, BitPacking.width(of: UInt64(entries.count - 1)))
        guard bytes + (values * width + 7) / 8 < plainBytes else { return nil }
        var body: [UInt8] = []
        body.reserveCapacity(bytes)
        for entry in entries {
            BitPacking.appendWord(UInt64(entry.count), bytes: 4, to: &body)
            body.append(contentsOf: entry)
        }
        return (body, entries.count)
    }
}
