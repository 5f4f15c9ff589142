import CRouteLogSystem
import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// `routelog_farthest_point` (and its portable path) attacked where a four-lane scan
/// goes wrong: every span of up to 24 points at every start, including spans ending on
/// the last double of a buffer allocated to the exact size (so that a read past it is a
/// heap overflow under AddressSanitizer) and starting at every 8-byte offset of a
/// vector; the largest key placed in every lane and in the tail, with ties between
/// lanes, between an earlier lane-3 point and a later lane-0 point, and between the
/// vector part and the tail; NaN keys everywhere but one point, NaN chord ends,
/// infinite and overflowing keys, zero-length and underflowing chords, and -0 against
/// +0. Each result must be FarthestPointKernelTests.reference's: the first of the
/// largest keys, NaN never largest, a + 1 when every key is NaN.
@Suite struct FarthestPointAttackTests {
    static let paths: [(name: String, run: @Sendable (UnsafePointer<Double>, UnsafePointer<Double>, Int, Int) -> Int)] = [
        ("vector", { routelog_farthest_point($0, $1, $2, $3) }),
        ("portable", { routelog_farthest_point_portable($0, $1, $2, $3) }),
    ]

    /// Both paths on span a...b, from exactly sized buffers at `offset`, against the
    /// reference (and against `expected` when given).
    static func check(_ x: [Double], _ y: [Double], _ a: Int, _ b: Int, offset: Int = 0, expected: Int? = nil,
                      _ label: @autoclosure () -> String) {
        let reference = FarthestPointKernelTests.reference(x, y, a, b)
        if let expected { #expect(reference == expected, "\(label()): the reference itself, span \(a)...\(b)") }
        withExactlySizedBuffers(x, y, offset: offset) { px, py in
            for path in paths {
                let got = path.run(px, py, a, b)
                #expect(got == reference, "\(label()): span \(a)...\(b), offset \(offset), \(path.name) gave \(got), not \(reference)")
            }
        }
    }

    /// Every span of every plane of up to 24 points, at four starting offsets: the
    /// spans too short for the vector loop, the ones with 0 to 3 points of tail, and the
    /// ones that end on the buffer's last point.
    @Test func everySpanOfUpToTwentyFourPointsAtEveryOffset() {
        var g = SeededGenerator(state: 0xA77A)
        for n in 3...24 {
            var planes: [(String, [Double], [Double])] = []
            planes.append(("random", (0..<n).map { _ in Double.random(in: -1000...1000, using: &g) },
                           (0..<n).map { _ in Double.random(in: -1000...1000, using: &g) }))
            // Two by two positions: most keys tie.
            planes.append(("grid", (0..<n).map { _ in Double(Int.random(in: 0...1, using: &g)) },
                           (0..<n).map { _ in Double(Int.random(in: 0...1, using: &g)) }))
            let specials: [Double] = [.nan, .infinity, -.infinity, -0.0, 0, .leastNonzeroMagnitude, 1e300, -1e300, 1, 2]
            planes.append(("specials", (0..<n).map { _ in specials.randomElement(using: &g)! },
                           (0..<n).map { _ in specials.randomElement(using: &g)! }))
            for (label, x, y) in planes {
                for offset in 0..<4 {
                    for a in 0..<(n - 2) {
                        for b in (a + 2)..<n { Self.check(x, y, a, b, offset: offset, "\(label), \(n) points") }
                    }
                }
            }
        }
    }

    /// A chord along the x axis with every interior point on it except the ones lifted
    /// to `lifts`: only the lifted points have a positive key.
    static func lifted(span: Int, _ lifts: [Int: Double]) -> (x: [Double], y: [Double]) {
        let x = (0...span).map(Double.init), y = (0...span).map { lifts[$0] ?? 0 }
        return (x, y)
    }

    /// The largest key at every pair of positions: equal keys go to the first position
    /// whichever lane each is in (a later point in lane 0 after an earlier one in lane 3,
    /// a tail point after a vector one), and a strictly larger later key wins.
    @Test func tiesBetweenLanesAndTheTailGoToTheFirst() {
        for span in 3...21 {
            for p in 1..<span {
                for q in (p + 1)..<span {
                    let tie = Self.lifted(span: span, [p: 3, q: 3])
                    Self.check(tie.x, tie.y, 0, span, expected: p, "tie \(p), \(q) of \(span)")
                    let mirrored = Self.lifted(span: span, [p: 3, q: -3])
                    Self.check(mirrored.x, mirrored.y, 0, span, expected: p, "mirrored tie \(p), \(q) of \(span)")
                    let later = Self.lifted(span: span, [p: 3, q: 3.0000001])
                    Self.check(later.x, later.y, 0, span, expected: q, "larger \(q) after \(p) of \(span)")
                    let earlier = Self.lifted(span: span, [p: 3.0000001, q: 3])
                    Self.check(earlier.x, earlier.y, 0, span, expected: p, "larger \(p) before \(q) of \(span)")
                    // Overflowing keys: both are +infinity, so they tie.
                    let infinite = Self.lifted(span: span, [p: 1e200, q: 1e250])
                    Self.check(infinite.x, infinite.y, 0, span, expected: p, "infinite keys \(p), \(q) of \(span)")
                }
            }
        }
        // Three equal keys, one in each of three lanes after a vector iteration.
        let three = Self.lifted(span: 20, [7: 5, 9: 5, 18: 5])
        Self.check(three.x, three.y, 0, 20, expected: 7, "three ties")
        // Every interior point at the same height: all keys equal, the first wins.
        for span in 2...21 {
            let flat = (x: (0...span).map(Double.init), y: (0...span).map { $0 == 0 || $0 == span ? 0.0 : 1.0 })
            Self.check(flat.x, flat.y, 0, span, expected: 1, "all equal, span \(span)")
        }
    }

    /// NaN keys never win: one real key among NaNs is found in every position, every
    /// NaN gives a + 1 (never b, never a point outside the span), and so do a NaN chord
    /// end and a chord so long that every key is NaN or infinite.
    @Test func nanKeysNeverWin() {
        for span in 2...22 {
            let allNaN = (x: (0...span).map { $0 == 0 || $0 == span ? Double($0) : .nan }, y: [Double](repeating: 0, count: span + 1))
            Self.check(allNaN.x, allNaN.y, 0, span, expected: 1, "all NaN, span \(span)")
            for p in 1..<span {
                var y = allNaN.y
                var x = allNaN.x
                x[p] = Double(p)
                y[p] = 1e-300  // a tiny key, larger than no key at all
                Self.check(x, y, 0, span, expected: p, "one real key at \(p) of \(span)")
                // Every key 0 but NaNs around: the first point whose key is a number.
                y[p] = 0
                Self.check(x, y, 0, span, expected: p, "one zero key at \(p) of \(span)")
            }
            // A NaN at either end of the chord: every key NaN.
            var x = (0...span).map(Double.init), y = (0...span).map { Double($0 % 3) }
            x[0] = .nan
            Self.check(x, y, 0, span, expected: 1, "NaN at a, span \(span)")
            x[0] = 0
            y[span] = .nan
            Self.check(x, y, 0, span, expected: 1, "NaN at b, span \(span)")
            // An infinite chord end: length2 is infinite, points at a have key 0 × ∞.
            y[span] = .infinity
            Self.check(x, y, 0, span, "infinite b, span \(span)")
            x[0] = -.infinity
            y[span] = 0
            Self.check(x, y, 0, span, "infinite a, span \(span)")
        }
    }

    /// Chords of no length (a and b equal, or so short that the squared length
    /// underflows to 0) rank by the plain squared distance from a, on both paths, and
    /// -0 ties +0.
    @Test func degenerateChordsAndSignedZeros() {
        for span in 2...22 {
            var x = (0...span).map { Double(($0 * 7) % 5) }, y = (0...span).map { Double(($0 * 3) % 4) }
            (x[0], y[0], x[span], y[span]) = (2, 2, 2, 2)
            Self.check(x, y, 0, span, "zero-length chord, span \(span)")
            (x[span], y[span]) = (2 + Double.leastNonzeroMagnitude, 2)
            Self.check(x, y, 0, span, "underflowing chord, span \(span)")
            (x[0], y[0], x[span], y[span]) = (0, 0, 3e-200, 0)
            Self.check(x, y, 0, span, "chord of 3e-200, span \(span)")
            // Points at -0 and +0 off a chord from (-1, 0) to (1, 0): equal keys.
            let zeros = (x: (0...span).map { $0 == 0 ? -1.0 : ($0 == span ? 1.0 : ($0 % 2 == 0 ? 0.0 : -0.0)) },
                         y: (0...span).map { $0 == 0 || $0 == span ? 0.0 : ($0 % 2 == 0 ? -0.0 : 0.0) })
            Self.check(zeros.x, zeros.y, 0, span, expected: 1, "signed zeros, span \(span)")
            // Subnormal and tiny heights: both keys square to 0, a tie the first wins.
            if span >= 3 {
                let tiny = Self.lifted(span: span, [1: .leastNonzeroMagnitude, span - 1: 1e-170])
                Self.check(tiny.x, tiny.y, 0, span, expected: 1, "subnormal heights, span \(span)")
            }
        }
    }

    /// Spans that end at the buffer's last point from every start near the end, and
    /// points outside the span made farther than every point inside: the scan reads
    /// only a...b.
    @Test func spansNearTheEndReadOnlyTheirOwnPoints() {
        var g = SeededGenerator(state: 0xE7D)
        for n in [9, 10, 11, 12, 13, 31, 64, 65] {
            var x = (0..<n).map { _ in Double.random(in: -50...50, using: &g) }
            var y = (0..<n).map { _ in Double.random(in: -50...50, using: &g) }
            for a in max(0, n - 20)..<(n - 2) {
                for offset in 0..<4 { Self.check(x, y, a, n - 1, offset: offset, "to the end of \(n) points") }
            }
            // Far points just outside a middle span.
            let a = n / 4, b = a + min(n - a - 1, 13)
            if a > 0 { (x[a - 1], y[a - 1]) = (1e9, 1e9) }
            if b + 1 < n { (x[b + 1], y[b + 1]) = (-1e9, 1e9) }
            let inside = FarthestPointKernelTests.reference(x, y, a, b)
            #expect(inside > a && inside < b)
            Self.check(x, y, a, b, "far points outside \(a)...\(b) of \(n)")
        }
    }

    /// The preview's own call: PreviewSimplifier.farthest on coordinates that tie, stand
    /// still, or are NaN (every key NaN: the first point) gives the reference's index.
    @Test func thePreviewSimplifierGetsTheKernelsIndex() {
        var g = SeededGenerator(state: 0x9E7)
        for round in 0..<20 {
            let n = 30 + round
            let coordinates = (0..<n).map { _ in
                Coordinate(latitude: 45 + Double(Int.random(in: 0..<3, using: &g)) * 1e-4,
                           longitude: 7 + Double(Int.random(in: 0..<3, using: &g)) * 1e-4)
            }
            let simplifier = PreviewSimplifier(coordinates)
            for a in 0..<n {
                for b in a..<min(n, a + 24) {
                    let expected = b - a > 1 ? FarthestPointKernelTests.reference(simplifier.x, simplifier.y, a, b) : nil
                    #expect(simplifier.farthest(a, b)?.index == expected, "round \(round), span \(a)...\(b)")
                }
            }
        }
        let nowhere = PreviewSimplifier((0..<20).map { _ in Coordinate(latitude: .nan, longitude: 1) })
        for a in 0..<18 {
            for b in (a + 2)..<20 { #expect(nowhere.farthest(a, b)?.index == a + 1, "NaN plane, span \(a)...\(b)") }
        }
    }
}
