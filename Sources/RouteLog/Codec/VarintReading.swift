/// A reader of bytes one at a time that reads LEB128 varints (format-spec.md, "Notation")
/// the same way wherever the bytes live: ``ByteReader`` over an array slice and
/// ``BlockCursor`` over a decoder's raw pointer.
protocol VarintReading {
    mutating func u8() throws -> UInt8
    func fail(_ reason: String) -> ByteReader.Malformed
}

extension VarintReading {
    /// An unsigned LEB128 varint of at most 10 bytes that fits in 64 bits.
    /// - Throws: ``ByteReader/Malformed`` for one that overflows or never ends.
    mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0, shift: UInt64 = 0
        while true {
            let byte = try u8()
            if shift == 63 && byte > 1 { throw fail("varint overflows 64 bits") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { throw fail("varint longer than 10 bytes") }
        }
    }
}
