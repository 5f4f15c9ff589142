/// DELTA_BINARY_PACKED (Encodings.md, "Delta Encoding"): a header (block size, miniblocks
/// per block, value count, first value), then blocks of 128 deltas, each block its
/// smallest delta and four miniblocks of 32 deltas less that minimum, bit-packed at the
/// width the miniblock needs.
///
/// Deltas wrap in the column's own width (32 bits for INT32, 64 for INT64), as the
/// specification asks, so no value pair can overflow and INT32 miniblocks never need
/// more than 32 bits.
enum DeltaBinaryPacked {
    /// Appends the encoding of `values` to `out`.
    static func encode<T: FixedWidthInteger & SignedInteger>(_ values: UnsafeBufferPointer<T>, into out: inout [UInt8]) {
        let blockSize = ParquetFormat.deltaBlockSize
        let miniblocks = ParquetFormat.deltaMiniblocksPerBlock
        let miniSize = ParquetFormat.deltaMiniblockSize
        BitPacking.appendVarint(UInt64(blockSize), to: &out)
        BitPacking.appendVarint(UInt64(miniblocks), to: &out)
        BitPacking.appendVarint(UInt64(values.count), to: &out)
        BitPacking.appendZigzag(Int64(values.first ?? 0), to: &out)
        guard values.count > 1 else { return }

        let mask: UInt64 = T.bitWidth == 64 ? .max : (1 << UInt64(T.bitWidth)) - 1
        var deltas = [T](repeating: 0, count: blockSize)
        var start = 1  // the deltas of a block lead to values[start..<start+blockSize]
        while start < values.count {
            let count = min(blockSize, values.count - start)
            var minDelta = T.max
            for i in 0..<count {
                let d = values[start + i] &- values[start + i - 1]
                deltas[i] = d
                if d < minDelta { minDelta = d }
            }
            BitPacking.appendZigzag(Int64(minDelta), to: &out)
            // Widths first, then the miniblocks; unused miniblocks of the last block get
            // width 0 and no bytes.
            var widths = [Int](repeating: 0, count: miniblocks)
            for m in 0..<miniblocks {
                let lower = m * miniSize
                guard lower < count else { break }
                var all: UInt64 = 0
                for i in lower..<min(count, lower + miniSize) {
                    all |= UInt64(truncatingIfNeeded: deltas[i] &- minDelta) & mask
                }
                widths[m] = BitPacking.width(of: all)
            }
            for width in widths { out.append(UInt8(width)) }
            for m in 0..<miniblocks {
                let lower = m * miniSize
                guard lower < count else { break }
                let upper = min(count, lower + miniSize)
                BitPacking.pack(count: miniSize, width: widths[m], into: &out) { j in
                    let i = lower + j
                    // The last miniblock is padded with zeros to its full 32 values.
                    return i < upper ? UInt64(truncatingIfNeeded: deltas[i] &- minDelta) & mask : 0
                }
            }
            start += count
        }
    }

    /// The encoding of `values`, as a new array.
    static func encode<T: FixedWidthInteger & SignedInteger>(_ values: [T]) -> [UInt8] {
        var out: [UInt8] = []
        values.withUnsafeBufferPointer { encode($0, into: &out) }
        return out
    }
}
