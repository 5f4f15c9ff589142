/// DELTA_BINARY_PACKED (Encodings.md, "Delta Encoding"): a header (block size, miniblocks
/// per block, value count, first value), then blocks of 128 deltas, each block its
/// smallest delta and four miniblocks of 32 deltas less that minimum, bit-packed at the
/// width the miniblock needs.
///
/// Deltas wrap in the column's own width (32 bits for INT32, 64 for INT64), as the
/// specification asks, so no value pair can overflow and INT32 miniblocks never need
/// more than 32 bits.
enum DeltaBinaryPacked {
    private static let blockSize = ParquetFormat.deltaBlockSize
    private static let miniblocks = ParquetFormat.deltaMiniblocksPerBlock
    private static let miniSize = ParquetFormat.deltaMiniblockSize

    /// Appends the encoding of `values` to `out`.
    static func encode<T: FixedWidthInteger & SignedInteger>(_ values: UnsafeBufferPointer<T>, into out: inout [UInt8]) {
        // Header at most 4 varints; a block at most its minimum, its widths and 128
        // deltas at the full width.
        let blocks = (values.count + blockSize - 1) / blockSize
        let capacity = 40 + blocks * (10 + miniblocks + blockSize * T.bitWidth / 8)
        ByteSink.append(to: &out, capacity: capacity) { sink in encode(values, into: &sink) }
    }

    private static func encode<T: FixedWidthInteger & SignedInteger>(_ values: UnsafeBufferPointer<T>, into sink: inout ByteSink) {
        sink.varint(UInt64(blockSize))
        sink.varint(UInt64(miniblocks))
        sink.varint(UInt64(values.count))
        sink.zigzag(Int64(values.first ?? 0))
        guard values.count > 1 else { return }

        let mask: UInt64 = T.bitWidth == 64 ? .max : (1 << UInt64(T.bitWidth)) - 1
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: blockSize + miniblocks) { scratch in
            let packed = scratch.baseAddress!, widths = scratch.baseAddress! + blockSize
            var start = 1  // the deltas of a block lead to values[start..<start+blockSize]
            while start < values.count {
                let count = min(blockSize, values.count - start)
                // One pass for the deltas and their minimum, one to rebase them on it.
                var minDelta = T.max
                for i in 0..<count {
                    let d = values[start + i] &- values[start + i - 1]
                    packed[i] = UInt64(truncatingIfNeeded: d)
                    if d < minDelta { minDelta = d }
                }
                for i in 0..<count {
                    packed[i] = UInt64(truncatingIfNeeded: T(truncatingIfNeeded: packed[i]) &- minDelta) & mask
                }
                sink.zigzag(Int64(minDelta))
                // Widths first, then the miniblocks; unused miniblocks of the last block
                // get width 0 and no bytes; the last used one is padded with zeros.
                for m in 0..<miniblocks {
                    let lower = m * miniSize
                    var all: UInt64 = 0
                    if lower < count { for i in lower..<min(count, lower + miniSize) { all |= packed[i] } }
                    widths[m] = UInt64(BitPacking.width(of: all))
                    sink.byte(UInt8(widths[m]))
                }
                for m in 0..<miniblocks {
                    let lower = m * miniSize
                    guard lower < count else { break }
                    let width = Int(widths[m])
                    let upper = min(count, lower + miniSize)
                    BitPacking.pack(count: miniSize, width: width, into: &sink) { j in
                        lower + j < upper ? packed[lower + j] : 0
                    }
                }
                start += count
            }
        }
    }

    /// The encoding of `values`, as a new array.
    static func encode<T: FixedWidthInteger & SignedInteger>(_ values: [T]) -> [UInt8] {
        var out: [UInt8] = []
        values.withUnsafeBufferPointer { encode($0, into: &out) }
        return out
    }
}
