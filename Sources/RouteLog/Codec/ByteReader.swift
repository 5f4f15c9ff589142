/// Reads what ``ByteWriter`` wrote, checking every length against the bytes there are.
/// A read past the end throws ``ByteReader/Malformed``; nothing is trusted.
struct ByteReader: VarintReading {
    /// The bytes ran out or a value is out of its allowed range. `offset` is
    /// relative to the start of the reader's buffer.
    struct Malformed: Error {
        let reason: String
        let offset: Int
    }

    private let bytes: ArraySlice<UInt8>
    /// Index in `bytes` of the next byte (indices are the underlying array's).
    private(set) var position: Int
    let end: Int
    private let origin: Int

    init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) {
        self.bytes = bytes[...]
        self.position = start
        self.end = end ?? bytes.count
        self.origin = 0
    }

    /// Reads a slice in place, without copying it.
    init(_ slice: ArraySlice<UInt8>) {
        self.bytes = slice
        self.position = slice.startIndex
        self.end = slice.endIndex
        self.origin = slice.startIndex
    }

    var remaining: Int { end - position }
    var isAtEnd: Bool { position >= end }

    func fail(_ reason: String) -> Malformed { Malformed(reason: reason, offset: position - origin) }

    private mutating func take(_ n: Int) throws -> Int {
        guard n >= 0, n <= remaining else { throw fail("needs \(n) bytes, \(remaining) left") }
        let start = position
        position += n
        return start
    }

    mutating func u8() throws -> UInt8 { bytes[try take(1)] }

    mutating func u16() throws -> UInt16 {
        let p = try take(2)
        return UInt16(bytes[p]) | UInt16(bytes[p + 1]) << 8
    }

    mutating func u32() throws -> UInt32 {
        let p = try take(4)
        var v: UInt32 = 0
        for i in 0..<4 { v |= UInt32(bytes[p + i]) << (8 * i) }
        return v
    }

    mutating func u64() throws -> UInt64 {
        let p = try take(8)
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(bytes[p + i]) << (8 * i) }
        return v
    }

    mutating func i32() throws -> Int32 { Int32(bitPattern: try u32()) }
    mutating func i64() throws -> Int64 { Int64(bitPattern: try u64()) }
    mutating func f64() throws -> Double { Double(bitPattern: try u64()) }


    /// A varint that must be a count or index no larger than `limit`.
    mutating func count(max limit: Int) throws -> Int {
        let value = try varint()
        guard value <= UInt64(limit) else { throw fail("count \(value) exceeds \(limit)") }
        return Int(value)
    }

    mutating func bytes(_ n: Int) throws -> ArraySlice<UInt8> {
        let p = try take(n)
        return bytes[p..<(p + n)]
    }

    /// Reads in place what `body` reads from the bytes left: `body` returns its result
    /// and how many bytes it took, and the reader moves past them. Returns the result and
    /// the bytes taken; the offset of an error `body` throws (from the start of the bytes
    /// left) becomes the reader's.
    mutating func read<T>(_ body: (UnsafeRawBufferPointer) throws -> (T, Int)) throws -> (T, ArraySlice<UInt8>) {
        let start = position
        do {
            let (value, count) = try bytes[start..<end].withUnsafeBytes(body)
            let p = try take(count)
            return (value, bytes[p..<(p + count)])
        } catch let error as Malformed {
            throw Malformed(reason: error.reason, offset: start - origin + error.offset)
        }
    }

    static func unzigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1)))
    }
}
