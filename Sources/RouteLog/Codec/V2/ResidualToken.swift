/// The tokens of a version 2 residual code (format-spec.md, "PointBlock", "Tokens"):
/// small values are their own token; a larger value is its exponent and two bits below
/// its top bit, the rest sent as extra bits. Run tokens stand for runs of zeros.
enum ResidualToken {
    typealias V2 = FormatConstants.ColumnV2

    /// The token of value `u` (0...255): u itself below 16, else 4e + the two bits
    /// under the top bit (which is 16 + 4(e - 4) + those bits, as the spec puts it).
    ///
    /// One table entry per exponent serves both cases (for e < 4: shift 0, mask 15,
    /// base 0), so there is no branch on the value: whether a value is small is data,
    /// and a mispredicted branch costs more than the arithmetic.
    @inline(__always)
    static func token(_ u: UInt64) -> Int { token(u, exponentTable) }

    /// ``token(_:)`` with the table passed in, for loops: fetched once, outside them.
    @inline(__always)
    static func token(_ u: UInt64, _ table: UnsafePointer<UInt32>) -> Int {
        let e = 63 &- (u | 1).leadingZeroBitCount
        let entry = UInt64(table[e])
        return Int(truncatingIfNeeded: (entry & 0xFF) &+ ((u &>> (entry &>> 8 & 63)) & (entry &>> 16)))
    }

    /// Per exponent e: base in bits 0-7, shift in 8-13, mask in 16-19. Made once and
    /// kept for the life of the process; never written after, so safe to share.
    nonisolated(unsafe) static let exponentTable: UnsafePointer<UInt32> = {
        let table = UnsafeMutablePointer<UInt32>.allocate(capacity: 64)
        for e in 0..<64 { table[e] = e < 4 ? 15 << 16 : UInt32(4 * e) | UInt32(e - 2) << 8 | 3 << 16 }
        return UnsafePointer(table)
    }()

    /// The number of extra bits after value token `t`.
    @inline(__always)
    static func extraBits(_ t: Int) -> Int {
        t < V2.directTokens ? 0 : ((t - V2.directTokens) >> 2) + 2
    }

    /// The smallest value of token `t` (its extra bits are added to it).
    @inline(__always)
    static func base(_ t: Int) -> UInt64 {
        guard t >= V2.directTokens else { return UInt64(t) }
        return UInt64(4 | (t & 3)) << UInt64(extraBits(t))
    }

    /// Run token of a run of `length` zeros (≥ 1) and its extra bits.
    @inline(__always)
    static func runToken(_ length: Int) -> Int { 63 - UInt64(length).leadingZeroBitCount }

    @inline(__always)
    static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

    @inline(__always)
    static func unzigzag(_ value: UInt64) -> Int64 { Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1))) }
}
