/// Writes a version 2 stream: bits from bit 0 of each byte upwards, into memory the
/// caller sized for the worst case and 8 bytes more.
///
/// Shaped for speed: after every put the whole 8-byte buffer is stored and the write
/// position moves on by the whole bytes in it, so there is no branch on how full the
/// buffer is (a branch the CPU cannot predict, taken every few values). The store may
/// reach 7 bytes past the stream's last byte: hence the 8 bytes to spare.
struct BitStreamWriter {
    private var accumulator: UInt64 = 0
    /// Bits in `accumulator` not yet counted as written; below 8 between calls.
    private var pending: UInt64 = 0
    private var next: UnsafeMutablePointer<UInt8>
    let start: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) {
        self.start = start
        next = start
    }

    /// The most bits one ``put(_:_:)`` takes: with up to 7 pending, 63 fit the buffer.
    static let maxPut = 56

    /// Appends the low `count` bits of `bits` (count ≤ ``maxPut``; higher bits must be 0).
    @inline(__always)
    mutating func put(_ bits: UInt64, _ count: Int) {
        accumulator |= bits &<< pending
        pending &+= UInt64(truncatingIfNeeded: count)
        UnsafeMutableRawPointer(next).storeBytes(of: accumulator.littleEndian, as: UInt64.self)
        let whole = pending &>> 3
        next += Int(truncatingIfNeeded: whole)
        accumulator = accumulator &>> (whole &<< 3)
        pending &= 7
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
    /// stream's length in bytes.
    mutating func finish() -> Int {
        if pending > 0 {
            next.pointee = UInt8(truncatingIfNeeded: accumulator)
            next += 1
            accumulator = 0
            pending = 0
        }
        return next - start
    }
}
