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
        multiply(shift(byteCount: count), crc)
    }

    /// x^(8 n) modulo the polynomial (reflected: x^0 is bit 31), for n below 2^32: one
    /// multiplication per nonzero hexadecimal digit of n.
    static func shift(byteCount n: Int) -> UInt32 {
        precondition(n >= 0 && n >> 32 == 0, "a byte count below 2^32")
        var power: UInt32 = 1 << 31
        var n = n, digit = 0
        while n != 0 {
            if n & 15 != 0 { power = multiply(shiftTable[digit * 16 + (n & 15)], power) }
            n >>= 4
            digit += 1
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

    /// Entry 16 k + j is x^(8 j 16^k) modulo the polynomial, for k in 0..<8, j in 0..<16.
    private static let shiftTable: [UInt32] = {
        var x8: UInt32 = 1 << 30  // x^1
        for _ in 0..<3 { x8 = multiply(x8, x8) }
        var table: [UInt32] = []
        var unit = x8  // x^(8 16^k)
        for _ in 0..<8 {
            var power: UInt32 = 1 << 31
            for _ in 0..<16 {
                table.append(power)
                power = multiply(unit, power)
            }
            unit = power  // x^(8 16 16^k)
        }
        return table
    }()
}
