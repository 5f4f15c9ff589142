/// Reads the fixed fields of a version 2 block (counts, tags, varints) from the
/// decoder's padded copy of it, checking every read against the real bytes. Offsets in
/// its errors count from the block's first byte (the method byte).
struct BlockCursor: VarintReading {
    /// The block's bytes after the method byte, followed by ``padding`` zero bytes.
    let base: UnsafePointer<UInt8>
    /// Bytes of the block after the method byte.
    let end: Int
    var position = 0

    /// Zero bytes after the block, so that a stream's 8-byte window never leaves the copy.
    /// 96 rather than the 8 a window needs: the four-stream loop reads a batch unchecked
    /// only from positions up to `padding - 80` bytes past the block's last byte (its
    /// reach: 8 groups of values of at most 72 bits, and a last 8-byte window), so with
    /// less than 80 the loop stopped short of the last column's end, and its last few
    /// hundred values went through the checked loop, a few times slower, every load.
    static let padding = 96

    func fail(_ reason: String, at offset: Int) -> ByteReader.Malformed {
        ByteReader.Malformed(reason: reason, offset: 1 + offset)
    }

    func fail(_ reason: String) -> ByteReader.Malformed { fail(reason, at: position) }

    var remaining: Int { end - position }

    mutating func u8() throws -> UInt8 {
        guard position < end else { throw fail("the block ends inside a column header") }
        defer { position += 1 }
        return base[position]
    }


    /// A varint that must be a count no larger than `limit`.
    mutating func count(max limit: Int, _ what: String) throws -> Int {
        let start = position
        let value = try varint()
        guard value <= UInt64(limit) else { throw fail("\(what) \(value) exceeds \(limit)", at: start) }
        return Int(value)
    }

    mutating func skip(_ n: Int) throws {
        guard n >= 0, n <= remaining else { throw fail("needs \(n) bytes, \(remaining) left") }
        position += n
    }
}
