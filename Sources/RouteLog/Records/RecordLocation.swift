/// Where a record's frame is: segment file number, offset, frame length.
struct RecordLocation: Equatable, Hashable, Sendable {
    var segment: UInt32
    var offset: Int64
    var length: Int

    var end: Int64 { offset + Int64(length) }

    func write(to w: inout ByteWriter) {
        w.u32(segment)
        w.u64(UInt64(offset))
        w.u32(UInt32(length))
    }

    init(segment: UInt32, offset: Int64, length: Int) {
        self.segment = segment
        self.offset = offset
        self.length = length
    }

    init(from r: inout ByteReader) throws {
        segment = try r.u32()
        let rawOffset = try r.u64()
        length = Int(try r.u32())
        guard rawOffset < UInt64(Int64.max) / 2, length >= FormatConstants.recordHeaderSize,
              length <= FormatConstants.recordHeaderSize + FormatConstants.maxPayloadLength
        else { throw r.fail("location \(rawOffset)+\(length) is impossible") }
        offset = Int64(rawOffset)
    }
}
