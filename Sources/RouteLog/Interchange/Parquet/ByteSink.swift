/// Appends bytes through a raw pointer into room reserved in advance: the encoders'
/// hot paths write a value in a store or two instead of an array append per byte.
struct ByteSink {
    private(set) var pointer: UnsafeMutablePointer<UInt8>
    let start: UnsafeMutablePointer<UInt8>

    init(_ base: UnsafeMutablePointer<UInt8>) {
        pointer = base
        start = base
    }

    var written: Int { pointer - start }

    @inline(__always)
    mutating func byte(_ value: UInt8) {
        pointer.pointee = value
        pointer += 1
    }

    /// The low `count` bytes of `value`, little endian. Stores all 8: the room reserved
    /// always has 8 bytes of slack.
    @inline(__always)
    mutating func word(_ value: UInt64, bytes count: Int) {
        UnsafeMutableRawPointer(pointer).storeBytes(of: value.littleEndian, as: UInt64.self)
        pointer += count
    }

    @inline(__always)
    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            byte(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        byte(UInt8(v))
    }

    @inline(__always)
    mutating func zigzag(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Runs `body` with a sink over `capacity` bytes appended to `out` (plus 8 of slack),
    /// then trims `out` to what was written.
    @inline(__always)
    static func append(to out: inout [UInt8], capacity: Int, _ body: (inout ByteSink) -> Void) {
        let before = out.count
        let room = capacity + 8
        out.reserveCapacity(before + room)
        out.append(contentsOf: repeatElement(0, count: room))
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int in
            var sink = ByteSink(buffer.baseAddress! + before)
            body(&sink)
            return sink.written
        }
        precondition(written <= capacity, "an encoder wrote \(written) bytes into room for \(capacity)")
        out.removeLast(room - written)
    }
}
