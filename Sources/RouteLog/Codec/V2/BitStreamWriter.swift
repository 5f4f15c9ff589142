/// Writes a version 2 stream: bits from bit 0 of each byte upwards, into memory the
/// caller sized for the worst case. Whole 32-bit words are stored as they fill.
struct BitStreamWriter {
    private var accumulator: UInt64 = 0
    /// Bits in `accumulator` not yet stored; below 32 between calls.
    private var pending = 0
    private var next: UnsafeMutablePointer<UInt8>
    let start: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) {
        self.start = start
        next = start
    }

    /// A writer that carries on from a loop that kept the buffer in locals.
    init(resuming next: UnsafeMutablePointer<UInt8>, _ accumulator: UInt64, _ pending: Int) {
        start = next
        self.next = next
        self.accumulator = accumulator
        self.pending = pending
    }

    /// Where the writer is: next byte, buffer, bits pending (below 32).
    var state: (UnsafeMutablePointer<UInt8>, UInt64, UInt64) { (next, accumulator, UInt64(pending)) }

    /// Appends the low `count` bits of `bits` (count ≤ 32; higher bits must be 0).
    @inline(__always)
    mutating func put(_ bits: UInt64, _ count: Int) {
        accumulator |= bits << UInt64(pending)
        pending += count
        if pending >= 32 {
            UnsafeMutableRawPointer(next).storeBytes(of: UInt32(truncatingIfNeeded: accumulator).littleEndian, as: UInt32.self)
            next += 4
            accumulator >>= 32
            pending -= 32
        }
    }

    /// Appends `count` bits (any count up to 64) of `bits`.
    mutating func putLong(_ bits: UInt64, _ count: Int) {
        var bits = bits, count = count
        while count > 32 {
            put(bits & 0xFFFF_FFFF, 32)
            bits >>= 32
            count -= 32
        }
        put(bits, count)
    }

    /// Stores what is pending (the last byte's unused high bits are 0) and returns the
    /// stream's length in bytes, counted from `origin`.
    mutating func finish(from origin: UnsafeMutablePointer<UInt8>) -> Int {
        _ = finish()
        return next - origin
    }

    /// Stores what is pending (the last byte's unused high bits are 0) and returns the
    /// stream's length in bytes.
    mutating func finish() -> Int {
        while pending > 0 {
            next.pointee = UInt8(truncatingIfNeeded: accumulator)
            next += 1
            accumulator >>= 8
            pending -= min(8, pending)
        }
        return next - start
    }
}
