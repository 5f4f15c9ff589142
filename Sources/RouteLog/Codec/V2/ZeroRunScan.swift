/// Finds where runs of zero residuals start and end in a column's token bytes (a
/// residual is 0 exactly when its token is 0), eight bytes at a time. Shaped for speed:
/// a walk's time column is one run of thousands of zeros, and its accuracies are long
/// runs with a change now and then; a byte-by-byte scan spends a branch on each.
enum ZeroRunScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The first index in `from..<end` whose token is not 0, or `end`.
    @inline(__always)
    static func nextNonzero(_ tokens: UnsafePointer<UInt8>, from: Int, end: Int) -> Int {
        var i = from
        while i + 8 <= end {
            let word = UInt64(littleEndian: UnsafeRawPointer(tokens + i).loadUnaligned(as: UInt64.self))
            if word != 0 { return i + word.trailingZeroBitCount >> 3 }
            i += 8
        }
        while i < end && tokens[i] == 0 { i += 1 }
        return i
    }

    /// The first index in `from..<end` whose token is 0, or `end`.
    @inline(__always)
    static func nextZero(_ tokens: UnsafePointer<UInt8>, from: Int, end: Int) -> Int {
        var i = from
        while i + 8 <= end {
            let word = UInt64(littleEndian: UnsafeRawPointer(tokens + i).loadUnaligned(as: UInt64.self))
            // The high bit of each zero byte (bytes above the first zero may be marked
            // wrongly, the lowest marked one never is).
            let zeros = (word &- ones) & ~word & highs
            if zeros != 0 { return i + zeros.trailingZeroBitCount >> 3 }
            i += 8
        }
        while i < end && tokens[i] != 0 { i += 1 }
        return i
    }
}
