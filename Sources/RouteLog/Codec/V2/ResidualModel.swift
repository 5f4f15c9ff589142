import CRouteLogSystem
import Foundation

/// How a version 2 column turns values into residuals: the delta order, the bias and
/// the divisor (format-spec.md, "PointBlock", "Residuals"). Chosen from samples of the
/// column, so that choosing costs a few hundred values, not the whole column.
struct ResidualModel: Equatable {
    var order: Int
    var bias: Int64
    var divisor: Int64

    /// Windows of consecutive values the choice looks at: four spread over the column
    /// (or the whole column when it is short).
    static let windowLength = 64, windowCount = 4

    static func choose(_ values: UnsafeBufferPointer<Int64>) -> ResidualModel {
        let m = values.count
        // One or two values are cheapest as start values alone, with no code at all.
        guard m > 2 else { return ResidualModel(order: m, bias: 0, divisor: 1) }
        let windows: [Range<Int>] = m <= windowLength * windowCount
            ? [0..<m]
            : (0..<windowCount).map { w in let s = w * (m / windowCount); return s..<(s + windowLength) }
        // Sums of each order's residuals for the means, then each order's cost with its
        // mean as the bias: bits of zigzag(r - bias), a fair stand-in for its code.
        let sums = residualSums(values, windows)
        let count = Double(max(1, windows.reduce(0) { $0 + max(0, $1.count - 2) }))
        let biases = [rounded(sums.0 / count), rounded(sums.1 / count), rounded(sums.2 / count)]
        var costs: (Int64, Int64, Int64) = (0, 0, 0)
        biases.withUnsafeBufferPointer { b in
            withUnsafeMutableBytes(of: &costs) { c in
                let into = c.baseAddress!.assumingMemoryBound(to: Int64.self)
                for window in windows where window.count > 2 {
                    routelog_order_costs(values.baseAddress!, window.lowerBound + 2, window.upperBound, b.baseAddress!, into)
                }
            }
        }
        // Ties go to the lower order: fewer start values, and noise is not doubled.
        let order = costs.0 <= costs.1 && costs.0 <= costs.2 ? 0 : (costs.1 <= costs.2 ? 1 : 2)
        var best = ResidualModel(order: order, bias: biases[order], divisor: 1)
        // The divisor divides every residual's distance from the first, so the residuals
        // may share any offset (elevations of whole metres from an odd datum); the bias
        // keeps the first's remainder, so every residual minus the bias is a multiple.
        var divisor: Int64 = 0, first: Int64?
        var multiples: ExactDivision?  // a check for multiples of the divisor so far
        // Stops at the first residual that leaves the divisor at 1 (most columns, within
        // their first few values): a walk over every sampled residual after that cost a
        // save about 40,000 instructions for nothing.
        _ = forEachResidual(values, windows, best.order) { r in
            guard let r0 = first else {
                first = r
                return true
            }
            // Most distances are multiples of the divisor found so far: a multiply tells,
            // and the greatest common divisor (divisions) is taken only for the others,
            // and for Int64.min, whose magnitude does not fit (gcd makes the divisor 1).
            let distance = r &- r0
            if distance != .min, let multiples, multiples.quotient(distance) != nil { return true }
            divisor = gcd(divisor, distance)
            multiples = divisor > 1 ? ExactDivision(divisor) : nil
            return divisor != 1
        }
        if divisor > 1, let r0 = first {
            best.divisor = divisor
            best.bias = r0 &+ rounded(Double(best.bias &- r0) / Double(divisor)) &* divisor
        }
        return best
    }

    /// The sums of each order's residuals inside the windows (from each window's third
    /// value on). Added as integers, whose additions do not wait on each other as those
    /// of doubles do (a chain of three such sums of doubles was half of the choice's
    /// time): exact while every value is below 2^50 in magnitude (the residuals are then
    /// below 2^52, and at most 2^10 of them add up to less than 2^62), as every
    /// coordinate, time and channel a writer stores is; otherwise the doubles' sums.
    ///
    /// The first and second differences' sums telescope: over a window lo..<hi they are
    /// v[hi-1] - v[lo+1] and (v[hi-1] - v[hi-2]) - (v[lo+1] - v[lo]), the same integers
    /// as adding every difference (wrapping either way), so only the values are added
    /// one by one (a loop the compiler widens; the three sums cost a save about 36,000
    /// instructions).
    static func residualSums(_ values: UnsafeBufferPointer<Int64>, _ windows: [Range<Int>]) -> (Double, Double, Double) {
        var s0: Int64 = 0, s1: Int64 = 0, s2: Int64 = 0, magnitudes: UInt64 = 0, count = 0
        for window in windows where window.count > 2 {
            let lo = window.lowerBound, hi = window.upperBound
            count += window.count
            for j in window { magnitudes |= UInt64(bitPattern: values[j] ^ (values[j] >> 63)) }
            for j in (lo + 2)..<hi { s0 &+= values[j] }
            s1 &+= values[hi - 1] &- values[lo + 1]
            s2 &+= (values[hi - 1] &- values[hi - 2]) &- (values[lo + 1] &- values[lo])
        }
        if magnitudes < 1 << 50 && count <= 1 << 10 { return (Double(s0), Double(s1), Double(s2)) }
        var sums = (0.0, 0.0, 0.0)
        for window in windows where window.count > 2 {
            for j in (window.lowerBound + 2)..<window.upperBound {
                let d1 = values[j] &- values[j - 1]
                sums.0 += Double(values[j])
                sums.1 += Double(d1)
                sums.2 += Double(d1 &- (values[j - 1] &- values[j - 2]))
            }
        }
        return sums
    }

    /// Calls `body` with each residual of `order` inside the windows (each window's
    /// first `order` values only start the differences) until it returns false; returns
    /// false when it stopped early.
    @inline(__always)
    private static func forEachResidual(_ v: UnsafeBufferPointer<Int64>, _ windows: [Range<Int>], _ order: Int,
                                        _ body: (Int64) -> Bool) -> Bool {
        for window in windows where window.count > order {
            for j in (window.lowerBound + order)..<window.upperBound {
                let r: Int64
                switch order {
                case 0: r = v[j]
                case 1: r = v[j] &- v[j - 1]
                default: r = (v[j] &- v[j - 1]) &- (v[j - 1] &- v[j - 2])
                }
                guard body(r) else { return false }
            }
        }
        return true
    }

    /// The nearest integer, or 0 for a mean too large to be a useful bias.
    private static func rounded(_ value: Double) -> Int64 {
        value.magnitude < 4e18 ? Int64(value.rounded()) : 0
    }

    /// Greatest common divisor of magnitudes (gcd(0, x) = |x|); 1 once a magnitude does
    /// not fit (Int64.min).
    static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        guard a != .min, b != .min else { return 1 }
        var x = abs(a), y = abs(b)
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }
}

/// Exact division by a divisor fixed for a column: a multiply instead of a division per
/// value (Granlund and Montgomery's divisibility test with the odd part's inverse
/// modulo 2^64), and a check that the value is a multiple.
struct ExactDivision {
    let shift: Int64
    let oddInverse: Int64
    let smallest: Int64, largest: Int64

    init(_ divisor: Int64) {
        precondition(divisor > 0)
        shift = Int64(divisor.trailingZeroBitCount)
        let odd = divisor >> shift
        // Newton's iteration doubles the correct low bits each step: 3, 6, 12, 24, 48, 96.
        var inverse = odd
        for _ in 0..<5 { inverse = inverse &* (2 &- odd &* inverse) }
        oddInverse = inverse
        smallest = Int64.min / odd
        largest = Int64.max / odd
    }

    /// The same division for the C tokenizer.
    var spec: routelog_exact_division {
        routelog_exact_division(shift: shift, odd_inverse: oddInverse, smallest: smallest, largest: largest)
    }

    /// `x / divisor` when `x` is a multiple of it, else nil.
    @inline(__always)
    func quotient(_ x: Int64) -> Int64? {
        // Masking shifts: the shift is 0...62, and the checked ones branch on it.
        guard x & ((1 &<< shift) &- 1) == 0 else { return nil }
        let q = (x &>> shift) &* oddInverse
        return q >= smallest && q <= largest ? q : nil
    }
}
