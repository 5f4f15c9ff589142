/// Appends little-endian integers and varints to a byte buffer.
struct ByteWriter {
    private(set) var bytes: [UInt8]

    init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    var count: Int { bytes.count }

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func u32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    mutating func u64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    mutating func i32(_ value: Int32) { u32(UInt32(bitPattern: value)) }
    mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }
    mutating func f64(_ value: Double) { u64(value.bitPattern) }

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func varint(_ value: Int) {
        precondition(value >= 0, "varints hold counts and indices, never negatives")
        varint(UInt64(value))
    }

    /// Appends exactly `count` bytes written by `body` into raw memory (hot paths).
    mutating func append(count: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: count))
        let written = bytes.withUnsafeMutableBufferPointer { body($0.baseAddress! + start) }
        precondition(written == count, "wrote \(written) of \(count) promised bytes")
    }

    mutating func append<C: Collection>(contentsOf other: C) where C.Element == UInt8 {
        bytes.append(contentsOf: other)
    }

    /// Overwrites 4 bytes at `offset` (used to fill a length or checksum after the fact).
    mutating func patchU32(_ value: UInt32, at offset: Int) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
    }

    static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    /// Bytes the varint of `value` takes.
    static func varintSize(_ value: UInt64) -> Int {
        value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
    }
}
