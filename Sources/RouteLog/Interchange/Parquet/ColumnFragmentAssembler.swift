/// A column chunk made of fragments encoded elsewhere (on the export's worker threads):
/// each fragment is whole pages, so a chunk is their bytes back to back, and its
/// statistics the fragments' merged.
///
/// Fragments carry no dictionary page: a chunk has at most one, first, and fragments
/// encoded apart cannot share it.
final class ColumnFragmentAssembler: ColumnChunkWriter {
    let column: ParquetColumn
    private var chunk: EncodedColumnChunk

    init(_ column: ParquetColumn, codec: ParquetFormat.Codec) {
        self.column = column
        chunk = EncodedColumnChunk(codec: codec)
    }

    var rowCount: Int { Int(chunk.valueCount) }
    var bufferedBytes: Int { chunk.bytes.count }

    func append(_ fragment: EncodedColumnChunk) {
        precondition(fragment.dictionaryPageSize == 0 && fragment.codec == chunk.codec)
        chunk.bytes.append(contentsOf: fragment.bytes)
        chunk.encodings = Array(Set(chunk.encodings).union(fragment.encodings)).sorted { $0.rawValue < $1.rawValue }
        chunk.valueCount += fragment.valueCount
        chunk.uncompressedSize += fragment.uncompressedSize
        chunk.statistics = ParquetStatistics.merge(chunk.statistics, fragment.statistics, type: column.type)
    }

    func finishChunk() -> EncodedColumnChunk {
        defer { chunk = EncodedColumnChunk(codec: chunk.codec) }
        return chunk
    }
}

extension ParquetStatistics {
    /// The statistics of two runs of a column's values together; nil when either is
    /// unknown (an unknown null count must stay unknown).
    static func merge(_ a: ParquetStatistics?, _ b: ParquetStatistics?, type: ParquetFormat.PhysicalType) -> ParquetStatistics? {
        guard let a else { return b }
        guard let b else { return nil }
        var merged = a
        merged.nullCount += b.nullCount
        merged.nanCount = a.nanCount.flatMap { x in b.nanCount.map { x + $0 } }
        merged.min = pick(a.min, b.min, type: type) { $0 }
        merged.max = pick(a.max, b.max, type: type) { !$0 }
        return merged
    }

    /// The smaller of two bounds (`wantSmaller(true)`) or the larger; a missing bound
    /// (a run of only nulls) gives way to the other.
    private static func pick(_ x: [UInt8]?, _ y: [UInt8]?, type: ParquetFormat.PhysicalType,
                             _ wantSmaller: (Bool) -> Bool) -> [UInt8]? {
        guard let x else { return y }
        guard let y else { return x }
        return wantSmaller(precedes(y, x, type: type)) ? y : x
    }

    /// `a < b` in the column's order (signed for numbers, unsigned bytewise otherwise).
    static func precedes(_ a: [UInt8], _ b: [UInt8], type: ParquetFormat.PhysicalType) -> Bool {
        func load(_ bytes: [UInt8]) -> UInt64 {
            bytes.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        }
        switch type {
        case .int32: return Int32(truncatingIfNeeded: load(a)) < Int32(truncatingIfNeeded: load(b))
        case .int64: return Int64(bitPattern: load(a)) < Int64(bitPattern: load(b))
        case .double:
            let p = Double(bitPattern: load(a)), q = Double(bitPattern: load(b))
            // -0.0 before +0.0, so a merged minimum of zero stays -0.0 and a maximum +0.0.
            return p < q || (p == q && p.sign == .minus && q.sign == .plus)
        case .byteArray, .fixedLengthByteArray: return a.lexicographicallyPrecedes(b)
        }
    }
}
