/// The 16-byte frame around every record (format-spec.md, "Record frame").
enum RecordFrame {
    /// Frame flag: more records of the same all-or-nothing batch follow this one.
    static let batchContinues: UInt8 = 1 << 0
    static let knownFlags: UInt8 = batchContinues

    /// Frames `payload` as a record of `type`.
    static func encode(type: FormatConstants.RecordType, payload: [UInt8], flags: UInt8 = 0) -> [UInt8] {
        precondition(payload.count <= FormatConstants.maxPayloadLength, "a payload must fit the format's 64 MiB")
        var w = ByteWriter(capacity: FormatConstants.recordHeaderSize + payload.count)
        w.append(contentsOf: FormatConstants.recordSync)
        w.u32(0)  // checksum, filled below
        w.u32(UInt32(payload.count))
        w.u8(type.rawValue)
        w.u8(flags)
        w.u16(0)
        w.append(contentsOf: payload)
        var bytes = w.bytes
        let crc = Checksum.masked(bytes, 8..<bytes.count)
        for i in 0..<4 { bytes[4 + i] = UInt8(truncatingIfNeeded: crc >> (8 * i)) }
        return bytes
    }

    /// The header fields of a frame whose bytes start at `start` in `bytes`, or nil when
    /// the 16 header bytes are not a plausible frame header (the checksum is not checked).
    static func header(_ bytes: UnsafeRawBufferPointer, at start: Int) -> (checksum: UInt32, length: Int, type: UInt8, flags: UInt8)? {
        guard start + FormatConstants.recordHeaderSize <= bytes.count else { return nil }
        let sync = FormatConstants.recordSync
        guard bytes[start] == sync[0], bytes[start + 1] == sync[1], bytes[start + 2] == sync[2],
              bytes[start + 3] == sync[3] else { return nil }
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        let length = Int(u32(start + 8))
        let flags = bytes[start + 13]
        guard length <= FormatConstants.maxPayloadLength, flags & ~knownFlags == 0,
              bytes[start + 14] == 0, bytes[start + 15] == 0 else { return nil }
        return (u32(start + 4), length, bytes[start + 12], flags)
    }
}
