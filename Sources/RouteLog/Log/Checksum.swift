import CRouteLogSystem

/// CRC32C and the mask RouteLog stores it under (format-spec.md, "Checksums").
enum Checksum {
    static func crc32c(_ bytes: [UInt8], seed: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { routelog_crc32c_extend(seed, $0.baseAddress, $0.count) }
    }

    static func mask(_ crc: UInt32) -> UInt32 {
        ((crc >> 15) | (crc << 17)) &+ FormatConstants.checksumMaskDelta
    }

    static func unmask(_ masked: UInt32) -> UInt32 {
        let rotated = masked &- FormatConstants.checksumMaskDelta
        return (rotated >> 17) | (rotated << 15)
    }

    /// The masked CRC32C of `bytes[range]`.
    static func masked(_ bytes: [UInt8], _ range: Range<Int>) -> UInt32 {
        bytes.withUnsafeBytes { raw in
            mask(routelog_crc32c_extend(0, raw.baseAddress! + range.lowerBound, range.count))
        }
    }
}
