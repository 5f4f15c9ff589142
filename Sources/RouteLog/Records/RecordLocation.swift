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
        self = try r.read { raw in (try RecordLocation(raw, at: 0), FormatConstants.locationSize) }.0
    }

    /// Reads and checks the location stored at `offset` in `raw` (little-endian, 16 bytes).
    /// - Throws: ByteReader.Malformed, its offset from the start of `raw`.
    @inline(__always)
    init(_ raw: UnsafeRawBufferPointer, at offset: Int) throws {
        let size = FormatConstants.locationSize
        try raw.need(size, at: offset)
        segment = raw.u32(at: offset)
        let rawOffset = raw.u64(at: offset + 4)
        length = Int(raw.u32(at: offset + 12))
        guard rawOffset < UInt64(Int64.max) / 2, length >= FormatConstants.recordHeaderSize,
              length <= FormatConstants.recordHeaderSize + FormatConstants.maxPayloadLength
        else { throw ByteReader.Malformed(reason: "location \(rawOffset)+\(length) is impossible", offset: offset + size) }
        self.offset = Int64(rawOffset)
    }
}
