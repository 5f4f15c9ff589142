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

/// CRC32C is linear, so the checksum of a range follows from those of two prefixes of
/// one stretch: crc(a..<b) = crc(..<b) ^ shifted(crc(..<a), by: b - a), the operation
/// zlib calls crc32_combine. The log scanner uses it to check frames that overlap
/// without checksumming their shared bytes once per frame.
extension Checksum {
    /// CRC32C of `count` bytes of `raw` from `start`, extending `crc`.
    static func extend(_ crc: UInt32, _ raw: UnsafeRawBufferPointer, from start: Int, count: Int) -> UInt32 {
        routelog_crc32c_extend(crc, raw.baseAddress! + start, count)
    }

    /// `crc` followed by `count` zero bytes, less what those bytes add from a zero CRC:
    /// multiplication by x^(8 count) modulo the polynomial.
    static func shifted(_ crc: UInt32, by count: Int) -> UInt32 {
        multiply(powerOfX(8 * count), crc)
    }

    /// x^n modulo the polynomial (reflected: x^0 is bit 31).
    static func powerOfX(_ n: Int) -> UInt32 {
        var power: UInt32 = 1 << 31
        var n = n, k = 0
        while n != 0 {
            if n & 1 != 0 { power = multiply(powersOfTwo[k], power) }
            n >>= 1
            k += 1
        }
        return power
    }

    /// The product of two polynomials modulo the CRC32C polynomial, reflected; `a` is
    /// not 0 (a power of x never is).
    static func multiply(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var m: UInt32 = 1 << 31, product: UInt32 = 0, b = b
        while true {
            if a & m != 0 {
                product ^= b
                if a & (m &- 1) == 0 { break }
            }
            m >>= 1
            b = b & 1 != 0 ? (b >> 1) ^ reflectedPolynomial : b >> 1
        }
        return product
    }

    static let reflectedPolynomial: UInt32 = 0x82F6_3B78

    /// x^(2^k) modulo the polynomial, for k in 0..<64.
    private static let powersOfTwo: [UInt32] = {
        var table: [UInt32] = [1 << 30]
        while table.count < 64 { table.append(multiply(table.last!, table.last!)) }
        return table
    }()
}
