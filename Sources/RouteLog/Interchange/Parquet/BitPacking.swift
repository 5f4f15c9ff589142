/// Parquet's bit packing (Encodings.md, "RLE/Bit-Packing Hybrid", note 1): values of
/// `width` bits packed back to back from the least significant bit of each byte, the
/// order both the hybrid encoding and DELTA_BINARY_PACKED's miniblocks use.
enum BitPacking {
    /// Writes `count` values of `width` bits (0...64) read by `value(i)`, as
    /// `ceil(count × width / 8)` bytes. Bits above `width` in a value must be zero.
    @inline(__always)
    static func pack(count: Int, width: Int, into sink: inout ByteSink, _ value: (Int) -> UInt64) {
        guard width > 0, count > 0 else { return }
        var accumulator: UInt64 = 0
        var used = 0  // bits of `accumulator` holding data, always < 64
        for i in 0..<count {
            let v = value(i)
            accumulator |= v << UInt64(used)
            let free = 64 - used
            if width >= free {
                sink.word(accumulator, bytes: 8)
                // The bits of v that did not fit; a shift by 64 gives 0.
                accumulator = free < 64 ? v >> UInt64(free) : 0
                used = width - free
            } else {
                used += width
            }
        }
        if used > 0 { sink.word(accumulator, bytes: (used + 7) / 8) }
    }

    /// Appends the low `bytes` bytes of `word`, little endian.
    @inline(__always)
    static func appendWord(_ word: UInt64, bytes: Int, to out: inout [UInt8]) {
        withUnsafeBytes(of: word.littleEndian) { out.append(contentsOf: $0.prefix(bytes)) }
    }

    /// Bits needed for `value` (0 for 0).
    @inline(__always)
    static func width(of value: UInt64) -> Int { 64 - value.leadingZeroBitCount }
}
