/// The CRC-16 of the FIT protocol (polynomial 0xA001, reflected, initial value 0),
/// computed four bits at a time as the protocol description gives it.
///
/// It covers the first 12 bytes of a 14-byte file header (the header CRC) and every
/// byte of a file from its header to the end of its data records (the file CRC). Run
/// over bytes followed by their own CRC, little-endian, it ends at 0.
struct FITCRC: Equatable {
    private(set) var value: UInt16 = 0

    private static let table: [UInt16] = [
        0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
        0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
    ]

    init() {}

    mutating func update(_ byte: UInt8) {
        var crc = value
        var entry = Self.table[Int(crc & 0xF)]
        crc = (crc >> 4) & 0x0FFF
        crc = crc ^ entry ^ Self.table[Int(byte & 0xF)]
        entry = Self.table[Int(crc & 0xF)]
        crc = (crc >> 4) & 0x0FFF
        value = crc ^ entry ^ Self.table[Int(byte >> 4)]
    }

    mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes { update(byte) }
    }

    /// The CRC of `bytes` from a fresh start.
    static func of<Bytes: Sequence>(_ bytes: Bytes) -> UInt16 where Bytes.Element == UInt8 {
        var crc = FITCRC()
        crc.update(bytes)
        return crc.value
    }
}
