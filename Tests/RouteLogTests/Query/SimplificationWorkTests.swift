import Foundation
import Testing
@testable import RouteLog

/// `route(_:tolerance:)` on a line built against Douglas-Peucker: its work stays about
/// linear in the points, where the plain algorithm's is quadratic.
@Suite struct SimplificationWorkTests {
    /// A zigzag along the equator whose swing shrinks point by point: the farthest point
    /// of every span is the one just after its start, so each split peels off one point.
    static func peelingZigzag(_ n: Int) -> [Coordinate] {
        (0..<n).map { i in
            Coordinate(latitude: (i % 2 == 0 ? 1 : -1) * Double(n - i) * 1e-6, longitude: Double(i) * 1e-5)
        }
    }

    @Test func aLineBuiltAgainstDouglasPeuckerCostsLinearWork() {
        let n = 8_000
        let line = Self.peelingZigzag(n)
        // The input is what it claims: one plain run over it looks at n²/4 points or more.
        var plainWork = 0
        let plain = PreviewSimplifier(line).keep(tolerance: 0.05, work: &plainWork)
        #expect(plainWork >= n * n / 4, "plain work \(plainWork)")
        // In pieces of 512, about 256 points a point at most.
        let pieces = RouteStore.keptIndices(line, tolerance: 0.05)
        #expect(pieces.work <= 300 * n, "work \(pieces.work) for \(n) points")
        // Every swing is wider than the tolerance: both keep every point.
        #expect(plain.indices == Array(0..<n))
        #expect(pieces.indices == Array(0..<n))
    }

    @Test func piecesShareTheirEndsAndKeepBothEnds() {
        for n in [1, 2, 3, 511, 512, 513, 1_023, 1_024, 1_025, 5_000] {
            // A straight line: only the ends, and one point where pieces meet, are kept.
            let line = (0..<n).map { Coordinate(latitude: 0, longitude: Double($0) * 1e-5) }
            let kept = RouteStore.keptIndices(line, tolerance: 1).indices
            let joints = stride(from: 511, to: n - 1, by: 511).map { $0 }
            #expect(kept == Array(Set([0, n - 1] + joints)).sorted(), "n = \(n)")
        }
    }
}
