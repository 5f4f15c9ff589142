import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// `routelog_farthest_point`'s vector loop, which takes eight points an iteration,
/// tests once for the eight whether any is nearest an end of the chord, and works from
/// the differences a - p (the negated dot and cross product), attacked where that can go
/// wrong; each result must be FarthestPointKernelTests.reference's (the first of the
/// largest keys), on the vector path and the portable one.
@Suite struct FarthestPointEightWideTests {
    /// Chords in every direction, also along an axis (a zero dx or dy, so that a point
    /// straight above an end has a dot of -0 or +0), with points exactly at, above and
    /// below either end at a few heights, so that keys made the near-end way and the
    /// cross-product way tie or differ in their last bit; spans of 9 to 48 points, so
    /// that such points fall in both halves of an eight-point block, the four-point
    /// step after the blocks and the tail.
    @Test func pointsAboveTheEndsOfChordsInEveryDirection() {
        var g = SeededGenerator(state: 0x8E16)
        let heights = [0.1, 0.7, 1.3, 0.30000000000000004, 0.9, 1.1, 0, -0.0]
        for round in 0..<3_000 {
            let n = Int.random(in: 10...49, using: &g)
            let length = Double.random(in: 0.5...3, using: &g) * (round % 2 == 0 ? 1 : -1)
            let turned = round % 4 >= 2
            var along = [Double](), across = [Double]()
            for _ in 0..<n {
                let h = heights.randomElement(using: &g)! * (Bool.random(using: &g) ? 1 : -1)
                let onEnd = Int.random(in: 0..<8, using: &g)
                along.append(onEnd == 0 ? Double.random(in: -3...3, using: &g) : (onEnd % 2 == 0 ? 0 : length))
                across.append(h)
            }
            (along[0], across[0], along[n - 1], across[n - 1]) = (0, 0, length, 0)
            let (x, y) = turned ? (across, along) : (along, across)
            FarthestPointAttackTests.check(x, y, 0, n - 1, "round \(round)")
            // The same points about a diagonal chord (both dx and dy non-zero).
            let diagonalX = zip(x, y).map { $0 + $1 }, diagonalY = zip(x, y).map { $0 - $1 }
            FarthestPointAttackTests.check(diagonalX, diagonalY, 0, n - 1, "round \(round), diagonal")
        }
    }

    /// One point nearest an end, farther than every other, at each position of spans of
    /// 9 to 40 points (in the first or the second four of an eight-point block, in the
    /// four-point step or the tail), before or past the chord; and the same largest key
    /// twice, at each pair of positions, so that the first must win across the two
    /// halves of a block and across blocks.
    @Test func aFarthestPointNearAnEndOrTiedAtEveryPosition() {
        for n in 10...41 {
            let b = n - 1
            for at in 1..<b {
                for side in [-1.0, 1.0] {
                    var x = (0..<n).map { Double($0) }, y = (0..<n).map { Double($0 % 3) * 0.25 }
                    y[0] = 0
                    y[b] = 0
                    // Before a or past b, and off the line: nearest an end, and farthest.
                    x[at] = side < 0 ? -5 : Double(b) + 5
                    y[at] = 3
                    FarthestPointAttackTests.check(x, y, 0, b, "\(n) points, end point at \(at), side \(side)")
                }
                for twin in (at + 1)..<b {
                    var x = (0..<n).map { Double($0) }, y = [Double](repeating: 0, count: n)
                    y[at] = 2
                    y[twin] = -2
                    FarthestPointAttackTests.check(x, y, 0, b, expected: at, "\(n) points, ties at \(at) and \(twin)")
                    x[at] = -1
                    x[twin] = Double(b) + 1
                    y[at] = 0
                    y[twin] = 0
                    // Both nearest an end, one before a and one past b, equally far.
                    FarthestPointAttackTests.check(x, y, 0, b, expected: at, "\(n) points, end ties at \(at) and \(twin)")
                }
            }
        }
    }
}
