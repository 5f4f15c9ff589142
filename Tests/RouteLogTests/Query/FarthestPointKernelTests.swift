import CRouteLogSystem
import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// `routelog_farthest_point`, the scan under the preview's Douglas-Peucker, gives the
/// index one scan in order gives (``reference(_:_:_:_:)``, the first of the largest)
/// on the vector path and on the portable one: every span
/// length around the four-lane loop and its tail, equal points, zero-length chords,
/// collinear lines, NaN and infinite coordinates, and planes far from the origin.
@Suite struct FarthestPointKernelTests {
    /// The first index strictly between a and b with the largest key, NaN keys never
    /// largest (a + 1 when every key is NaN): the definition, written plainly.
    static func reference(_ x: [Double], _ y: [Double], _ a: Int, _ b: Int) -> Int {
        let dx = x[b] - x[a], dy = y[b] - y[a], length2 = dx * dx + dy * dy
        var best = a + 1, bestKey = -1.0
        for i in (a + 1)..<b {
            let ix = x[i] - x[a], iy = y[i] - y[a], dot = ix * dx + iy * dy
            let key: Double
            if length2 == 0 {
                key = ix * ix + iy * iy
            } else if dot <= 0 {
                key = (ix * ix + iy * iy) * length2
            } else if dot >= length2 {
                key = ((x[i] - x[b]) * (x[i] - x[b]) + (y[i] - y[b]) * (y[i] - y[b])) * length2
            } else {
                key = (ix * dy - iy * dx) * (ix * dy - iy * dx)
            }
            if key > bestKey { (best, bestKey) = (i, key) }
        }
        return best
    }

    static func check(_ x: [Double], _ y: [Double], _ a: Int, _ b: Int, _ label: String) {
        let expected = reference(x, y, a, b)
        let wide = routelog_farthest_point(x, y, a, b), portable = routelog_farthest_point_portable(x, y, a, b)
        #expect(wide == expected, "\(label): span \(a)...\(b), vector path")
        #expect(portable == expected, "\(label): span \(a)...\(b), portable path")
    }

    /// Planes of a few kinds, each checked over every span of up to 40 points from a few
    /// starts and over random longer spans.
    @Test func everySpanGivesTheFirstFarthest() {
        var g = SeededGenerator(state: 0xFA57)
        var planes: [(String, [Double], [Double])] = []
        let n = 300
        planes.append(("random", (0..<n).map { _ in Double.random(in: -5000...5000, using: &g) },
                       (0..<n).map { _ in Double.random(in: -5000...5000, using: &g) }))
        // Few distinct positions: many equal keys, so the first of them must win.
        planes.append(("repeated", (0..<n).map { _ in Double(Int.random(in: 0...3, using: &g)) },
                       (0..<n).map { _ in Double(Int.random(in: 0...3, using: &g)) }))
        planes.append(("collinear", (0..<n).map { Double($0) * 1.5 }, (0..<n).map { Double($0) * -0.5 }))
        planes.append(("one spot", [Double](repeating: 7, count: n), [Double](repeating: -3, count: n)))
        // Far from the origin, where the keys' roundings decide.
        planes.append(("far", (0..<n).map { _ in 2.0e7 + Double.random(in: -3...3, using: &g) },
                       (0..<n).map { _ in -1.0e7 + Double.random(in: -3...3, using: &g) }))
        var hostileX = (0..<n).map { _ in Double.random(in: -100...100, using: &g) }, hostileY = hostileX
        for i in stride(from: 3, to: n, by: 7) { hostileX[i] = .nan }
        for i in stride(from: 5, to: n, by: 11) { hostileY[i] = .infinity }
        for i in stride(from: 9, to: n, by: 13) { hostileX[i] = -.infinity }
        planes.append(("NaN and infinities", hostileX, hostileY))
        planes.append(("all NaN", [Double](repeating: .nan, count: n), [Double](repeating: 1, count: n)))
        for (label, x, y) in planes {
            for a in [0, 1, 2, 3, 5, 100] {
                for b in (a + 2)...min(n - 1, a + 40) { Self.check(x, y, a, b, label) }
            }
            for _ in 0..<200 {
                let a = Int.random(in: 0..<(n - 2), using: &g)
                Self.check(x, y, a, Int.random(in: (a + 2)..<n, using: &g), label)
            }
        }
    }

    /// Points straight above or below the chord's ends (dot exactly 0 or length2, where
    /// the vector path tells the points nearest an end by their bits), a few heights so
    /// that points at both ends tie, along chords of 3, 5 and 7 times powers of 2; and
    /// chords whose squared length is subnormal, the smallest normal, huge or infinite.
    @Test func pointsAtTheEndsOfTheChordAndChordsOfEverySize() {
        var g = SeededGenerator(state: 0xE4D5)
        let heights = [0.1, -0.1, 0.7, -0.7, 1.3, 0.30000000000000004, 0, -0.0]
        for round in 0..<600 {
            let n = Int.random(in: 3...60, using: &g)
            let unit = [1, 0x1p-20, 0x1p-500, 0x1p500][round % 4]
            let length = Double([3, 5, 7][round % 3]) * unit
            var x = (0..<n).map { _ in Bool.random(using: &g) ? length : 0 }
            var y = (0..<n).map { _ in heights.randomElement(using: &g)! * unit }
            (x[0], y[0], x[n - 1], y[n - 1]) = (0, 0, length, 0)
            Self.check(x, y, 0, n - 1, "round \(round), above the ends")
            // The same points about a chord of another size, and turned.
            let scale = [1e-160, 0x1p-511, 0x1p-512, 1e-300, 1e150, 1e200, 3][round % 7]
            x = x.map { $0 * scale / unit }
            y = y.map { $0 * scale / unit }
            Self.check(x, y, 0, n - 1, "round \(round), scale \(scale)")
            Self.check(y, x, 0, n - 1, "round \(round), scale \(scale), turned")
        }
    }

    /// The planes the preview scans in a save: whole walks, every split a preview makes.
    @Test func walksGiveThePreviewTheyGaveBefore() throws {
        for seed in 1...4 {
            let walk = Fixtures.sampleWalk(seed: UInt64(seed), points: 3600)
            let simplifier = PreviewSimplifier(walk.points.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude) })
            let (kept, _) = simplifier.keep(maxPoints: RoutePreview.maxPoints, tolerance: RoutePreview.minimumTolerance)
            #expect(kept.count == RoutePreview.maxPoints)
            for (a, b) in zip(kept, kept.dropFirst()) where b - a > 1 {
                Self.check(simplifier.x, simplifier.y, a, b, "walk \(seed)")
            }
        }
    }

    @Test func theVectorPathIsTheOneInUseWhereTheProcessorHasIt() throws {
        #if arch(x86_64)
        #expect((routelog_farthest_point_is_wide() == 1) == TestProcessor.hasAVX2)
        #else
        #expect(routelog_farthest_point_is_wide() == 0)
        #endif
    }
}
