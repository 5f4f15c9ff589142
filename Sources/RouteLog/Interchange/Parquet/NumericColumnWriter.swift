/// A value type a numeric column holds, and how its pages encode it.
protocol ParquetNumericValue: Comparable {
    static var physicalType: ParquetFormat.PhysicalType { get }
    static var encoding: ParquetFormat.Encoding { get }
    /// Start values for a running minimum and maximum.
    static var greatest: Self { get }
    static var least: Self { get }
    /// Appends `values` in the column's encoding.
    static func encode(_ values: UnsafeBufferPointer<Self>, into out: inout [UInt8])
    /// The value as PLAIN bytes, for statistics.
    var plainBytes: [UInt8] { get }
}

extension Int32: ParquetNumericValue {
    static var physicalType: ParquetFormat.PhysicalType { .int32 }
    static var encoding: ParquetFormat.Encoding { .deltaBinaryPacked }
    static var greatest: Int32 { .max }
    static var least: Int32 { .min }
    static func encode(_ values: UnsafeBufferPointer<Int32>, into out: inout [UInt8]) {
        DeltaBinaryPacked.encode(values, into: &out)
    }
    var plainBytes: [UInt8] { withUnsafeBytes(of: littleEndian) { Array($0) } }
}

extension Int64: ParquetNumericValue {
    static var physicalType: ParquetFormat.PhysicalType { .int64 }
    static var encoding: ParquetFormat.Encoding { .deltaBinaryPacked }
    static var greatest: Int64 { .max }
    static var least: Int64 { .min }
    static func encode(_ values: UnsafeBufferPointer<Int64>, into out: inout [UInt8]) {
        DeltaBinaryPacked.encode(values, into: &out)
    }
    var plainBytes: [UInt8] { withUnsafeBytes(of: littleEndian) { Array($0) } }
}

extension Double: ParquetNumericValue {
    static var physicalType: ParquetFormat.PhysicalType { .double }
    /// PLAIN: measured figures (distances, coordinates) have no runs or small deltas
    /// for another encoding to use.
    static var encoding: ParquetFormat.Encoding { .plain }
    static var least: Double { -.infinity }
    static var greatest: Double { .infinity }
    static func encode(_ values: UnsafeBufferPointer<Double>, into out: inout [UInt8]) {
        #if _endian(little)
        out.append(contentsOf: UnsafeRawBufferPointer(values))
        #else
        for value in values { BitPacking.appendWord(value.bitPattern, bytes: 8, to: &out) }
        #endif
    }
    var plainBytes: [UInt8] { withUnsafeBytes(of: bitPattern.littleEndian) { Array($0) } }
}

/// Writes an INT32 or INT64 column (DELTA_BINARY_PACKED) or a DOUBLE column (PLAIN),
/// required or nullable, a page at a time, with the chunk's minimum, maximum and null
/// count as statistics.
final class NumericColumnWriter<Value: ParquetNumericValue>: ColumnChunkWriter {
    let column: ParquetColumn
    private let pageValues: Int
    private var pages: ColumnChunkPages
    /// The non-null values of the page being filled.
    private var values: [Value] = []
    /// Its definition levels (1 present, 0 null); optional columns only.
    private var levels: [UInt8] = []
    private var pageSlots = 0
    private(set) var rowCount = 0
    private var nulls: Int64 = 0
    private var nans: Int64 = 0
    private var minimum = Value.greatest, maximum = Value.least

    init(_ column: ParquetColumn, codec: ParquetFormat.Codec, pageValues: Int) {
        precondition(column.type == Value.physicalType, "\(column.path) is declared \(column.type), written as \(Value.self)")
        self.column = column
        self.pageValues = pageValues
        pages = ColumnChunkPages(codec: codec)
        values.reserveCapacity(pageValues)
        if column.isOptional { levels.reserveCapacity(pageValues) }
    }

    var bufferedBytes: Int { pages.bytes.count + values.count * MemoryLayout<Value>.size + levels.count }

    /// Appends one value.
    func append(_ value: Value) {
        withUnsafePointer(to: value) { append(contentsOf: UnsafeBufferPointer(start: $0, count: 1)) }
    }

    /// Appends one value or a null.
    func append(_ value: Value?) {
        if let value { append(value) } else { appendNull() }
    }

    /// Appends a null.
    func appendNull() {
        precondition(column.isOptional, "\(column.path) is required")
        let none = UnsafeBufferPointer<Value>(start: nil, count: 0)
        withUnsafePointer(to: UInt8(0)) { append(contentsOf: none, levels: UnsafeBufferPointer(start: $0, count: 1)) }
    }

    /// Appends values, none of them null. The hot path: whole routes' columns at once,
    /// so a value costs a copy and a comparison, not a call.
    func append(contentsOf values: UnsafeBufferPointer<Value>) {
        var done = 0
        while done < values.count {
            let take = min(pageValues - pageSlots, values.count - done)
            let slice = UnsafeBufferPointer(rebasing: values[done..<done + take])
            note(slice)
            self.values.append(contentsOf: slice)
            if column.isOptional { levels.append(contentsOf: repeatElement(1, count: take)) }
            filled(take)
            done += take
        }
    }

    /// Appends `levels.count` slots: a value from `values` (in order) where the level is
    /// 1, a null where it is 0.
    func append(contentsOf values: UnsafeBufferPointer<Value>, levels: UnsafeBufferPointer<UInt8>) {
        precondition(column.isOptional, "\(column.path) is required")
        var slot = 0, next = 0
        while slot < levels.count {
            let take = min(pageValues - pageSlots, levels.count - slot)
            let pageLevels = UnsafeBufferPointer(rebasing: levels[slot..<slot + take])
            var present = 0
            for level in pageLevels { present += Int(level) }
            let slice = UnsafeBufferPointer(rebasing: values[next..<next + present])
            note(slice)
            self.values.append(contentsOf: slice)
            self.levels.append(contentsOf: pageLevels)
            nulls += Int64(take - present)
            filled(take)
            slot += take
            next += present
        }
        precondition(next == values.count, "\(values.count) values for \(next) present levels")
    }

    /// Folds `slice` into the chunk's statistics.
    private func note(_ slice: UnsafeBufferPointer<Value>) {
        var low = minimum, high = maximum, nan: Int64 = 0
        for value in slice {
            if value < low { low = value }
            if value > high { high = value }
            if value != value { nan += 1 }  // NaN: counted, never a bound
        }
        minimum = low
        maximum = high
        nans += nan
    }

    private func filled(_ slots: Int) {
        pageSlots += slots
        rowCount += slots
        if pageSlots == pageValues { flushPage() }
    }

    private func flushPage() {
        guard pageSlots > 0 else { return }
        var body: [UInt8] = []
        body.reserveCapacity(values.count * MemoryLayout<Value>.size / 2 + 64)
        if column.isOptional { RLEHybrid.appendDefinitionLevels(levels, to: &body) }
        values.withUnsafeBufferPointer { Value.encode($0, into: &body) }
        pages.appendDataPage(body, valueCount: pageSlots, encoding: Value.encoding, optional: column.isOptional)
        values.removeAll(keepingCapacity: true)
        levels.removeAll(keepingCapacity: true)
        pageSlots = 0
    }

    func finishChunk() -> EncodedColumnChunk {
        flushPage()
        var statistics = ParquetStatistics(nullCount: nulls, signedOrder: true)
        if minimum <= maximum {
            statistics.min = Self.bound(minimum, zero: -0.0)
            statistics.max = Self.bound(maximum, zero: 0.0)
        }
        if Value.self == Double.self { statistics.nanCount = nans }
        let chunk = EncodedColumnChunk(pages: pages, valueCount: Int64(rowCount), statistics: statistics)
        pages = ColumnChunkPages(codec: pages.codec)
        rowCount = 0
        nulls = 0
        nans = 0
        minimum = Value.greatest
        maximum = Value.least
        return chunk
    }

    /// A double bound of zero is written as -0.0 (a minimum) or +0.0 (a maximum), as the
    /// specification asks, since the chunk may hold either.
    private static func bound(_ value: Value, zero: Double) -> [UInt8] {
        if let double = value as? Double, double == 0 { return zero.plainBytes }
        return value.plainBytes
    }
}
