import CRouteLogSystem
/// The 16-byte frame around every record (format-spec.md, "Record frame").
enum RecordFrame {
    /// Frame flag: more records of the same all-or-nothing batch follow this one.
    static let batchContinues: UInt8 = 1 << 0
    static let knownFlags: UInt8 = batchContinues

    /// Frames `payload` as a record of `type`, escaped for the current version.
    static func encode(type: FormatConstants.RecordType, payload: [UInt8], flags: UInt8 = 0) -> [UInt8] {
        let payload = PayloadEscaping.escape(payload)
        precondition(payload.count <= FormatConstants.maxPayloadLength, "a payload must fit the format's 64 MiB once escaped")
        // Written once, in place: the header, the payload, then the checksum over both
        // (through a ByteWriter, setting the checksum copied the whole frame again).
        let size = FormatConstants.recordHeaderSize + payload.count
        return [UInt8](unsafeUninitializedCapacity: size) { frame, initialized in
            let base = frame.baseAddress!
            // The header byte by byte: sync, checksum (below), length, type, flags, reserved.
            base.initialize(repeating: 0, count: FormatConstants.recordHeaderSize)
            for i in 0..<4 {
                base[i] = FormatConstants.recordSync[i]
                base[8 + i] = UInt8(truncatingIfNeeded: UInt32(payload.count) >> (8 * i))
            }
            base[12] = type.rawValue
            base[13] = flags
            payload.withUnsafeBufferPointer { p in
                if let start = p.baseAddress { (base + FormatConstants.recordHeaderSize).initialize(from: start, count: p.count) }
            }
            let crc = Checksum.mask(routelog_crc32c_extend(0, base + 8, size - 8))
            for i in 0..<4 { base[4 + i] = UInt8(truncatingIfNeeded: crc >> (8 * i)) }
            initialized = size
        }
    }

    /// Frames the records of one all-or-nothing batch: every frame but the last says
    /// "batch continues".
    static func encodeBatch(_ records: [(type: FormatConstants.RecordType, payload: [UInt8])]) -> [[UInt8]] {
        records.enumerated().map { i, record in
            encode(type: record.type, payload: record.payload, flags: i < records.count - 1 ? batchContinues : 0)
        }
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

    /// Why a frame read at a known location is not the record expected there.
    enum Mismatch: Error, Equatable {
        /// Too short, no sync marker, an impossible length or flags, or a length that
        /// does not match the location.
        case badHeader
        /// A whole frame of another record type.
        case wrongType(UInt8)
        case checksumMismatch
        /// A version 2 payload whose escaping is broken.
        case badEscaping
    }

    /// Checks that `frame` (the bytes of one location, in a file of format `version`) is
    /// one whole record of `type` and returns its payload as written. The one check
    /// every reader of a located record uses.
    static func payload(of frame: [UInt8], type: FormatConstants.RecordType, version: UInt16) throws(Mismatch) -> ArraySlice<UInt8> {
        let headerSize = FormatConstants.recordHeaderSize
        guard let header = frame.withUnsafeBytes({ Self.header($0, at: 0) }),
              header.length + headerSize == frame.count
        else { throw .badHeader }
        guard header.type == type.rawValue else { throw .wrongType(header.type) }
        guard Checksum.masked(frame, 8..<frame.count) == header.checksum else { throw .checksumMismatch }
        guard let payload = unescaped(frame[headerSize...], version: version) else { throw .badEscaping }
        return payload
    }

    /// A stored payload as written: version 1 payloads are stored as they are.
    static func unescaped(_ stored: ArraySlice<UInt8>, version: UInt16) -> ArraySlice<UInt8>? {
        version >= 2 ? PayloadEscaping.unescape(stored) : stored
    }

    /// The size a payload takes in a frame once escaped.
    static func storedSize(of payload: [UInt8]) -> Int { PayloadEscaping.escapedCount(payload) }

    /// Whether a payload of `size` bytes fits the format's 64 MiB once escaped, as
    /// ``encode(type:payload:flags:)`` requires. Escaping adds at most a byte for every
    /// three (one after each `AB 52 4C`), so a payload of 48 MiB or less always fits,
    /// and only a larger one is made (`payload`) and counted.
    static func fitsOnceEscaped(size: Int, payload: () -> [UInt8]) -> Bool {
        guard size <= FormatConstants.maxPayloadLength else { return false }
        guard size > FormatConstants.maxPayloadLength / 4 * 3 else { return true }
        return storedSize(of: payload()) <= FormatConstants.maxPayloadLength
    }

    /// The same frame with its flags cleared (a record copied on its own, out of its
    /// batch), re-checksummed.
    static func standalone(_ frame: [UInt8]) -> [UInt8] {
        guard frame[13] != 0 else { return frame }
        var copy = frame
        copy[13] = 0
        let crc = Checksum.masked(copy, 8..<copy.count)
        for i in 0..<4 { copy[4 + i] = UInt8(truncatingIfNeeded: crc >> (8 * i)) }
        return copy
    }
}
