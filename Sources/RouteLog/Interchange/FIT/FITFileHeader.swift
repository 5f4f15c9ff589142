/// The header at the start of every FIT file (and of every file in a chain).
///
/// ```
/// offset size field
///      0    1 header size: 12 (legacy) or 14; larger sizes are skipped over
///      1    1 protocol version (major << 4 | minor)
///      2    2 profile version, little-endian (2194 = 21.94)
///      4    4 data size: bytes of records after the header, little-endian
///      8    4 ".FIT"
///     12    2 CRC of bytes 0..<12, little-endian; 0 = not computed (14-byte headers)
/// ```
/// The data records follow, then the file's CRC (2 bytes, little-endian) over the
/// header and the records.
struct FITFileHeader: Equatable {
    var size: Int
    var protocolVersion: UInt8
    var profileVersion: UInt16
    var dataSize: UInt32
    /// The CRC the header holds, when it has one that is not 0.
    var storedCRC: UInt16?
    /// The CRC of its first 12 bytes.
    var computedCRC: UInt16

    static let minimumSize = 12
    static let signature: [UInt8] = Array(".FIT".utf8)

    /// Whether the header's own CRC, when it has one, matches.
    var crcMatches: Bool { storedCRC.map { $0 == computedCRC } ?? true }

    /// "2.0"
    var protocolText: String { "\(protocolVersion >> 4).\(protocolVersion & 0x0F)" }

    /// Why `bytes` (the whole header, `bytes[0]` long) is not a FIT header, or nil.
    static func problem(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= minimumSize else { return "a FIT header is at least 12 bytes" }
        guard Array(bytes[8..<12]) == signature else {
            return "bytes 8..<12 of the header are not \".FIT\""
        }
        guard bytes[1] >> 4 <= 2 else {
            return "protocol version \(bytes[1] >> 4).\(bytes[1] & 0x0F) is newer than 2.x, which RouteLog reads"
        }
        return nil
    }

    /// Reads a header whose bytes ``problem(_:)`` found nothing wrong with.
    init(_ bytes: [UInt8]) {
        size = bytes.count
        protocolVersion = bytes[1]
        profileVersion = UInt16(bytes[2]) | UInt16(bytes[3]) << 8
        dataSize = UInt32(bytes[4]) | UInt32(bytes[5]) << 8 | UInt32(bytes[6]) << 16 | UInt32(bytes[7]) << 24
        computedCRC = FITCRC.of(bytes[0..<12])
        if bytes.count >= 14 {
            let stored = UInt16(bytes[12]) | UInt16(bytes[13]) << 8
            storedCRC = stored == 0 ? nil : stored
        }
    }
}
