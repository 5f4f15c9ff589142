import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// `PreviewSimplifier.keep`, which keeps its pending spans in a heap and its kept points
/// as bits, splits the spans in the order the previous array of spans did (the first
/// found of the largest) and gives the same points, error and work: on lines whose
/// spans tie (standing still, mirrored zigzags, plateaus), walks, lines with NaN and
/// infinite points, for point limits around the preview's and none, and tolerances from
/// 0 to infinity and NaN.
@Suite struct PreviewSplitOrderTests {
    /// `keep(maxPoints:tolerance:work:)` as it was before the heap (99fae52), word for word.
    static func previousKeep(_ s: PreviewSimplifier, count n: Int, maxPoints: Int = .max, tolerance: Double,
                             work: inout Int) -> (indices: [Int], error: Double) {
        guard n > 2 else { return (Array(0..<n), 0) }
        var kept = [0, n - 1]
        var dropped = 0.0
        var spans: [(a: Int, b: Int, index: Int, distance: Double)] = []
        func farthest(_ a: Int, _ b: Int) -> (index: Int, distance: Double)? {
            work += max(0, b - a - 1)
            return s.farthest(a, b)
        }
        if let f = farthest(0, n - 1) { spans.append((0, n - 1, f.index, f.distance)) }
        while !spans.isEmpty {
            let pick = maxPoints == .max ? spans.count - 1 : spans.indices.max { spans[$0].distance < spans[$1].distance }!
            let span = spans[pick]
            if span.distance < tolerance || kept.count >= maxPoints {
                if maxPoints == .max {
                    dropped = max(dropped, span.distance)
                    spans.remove(at: pick)
                    continue
                }
                return (kept.sorted(), max(dropped, spans.map(\.distance).max() ?? 0))
            }
            spans.remove(at: pick)
            kept.append(span.index)
            if let f = farthest(span.a, span.index) { spans.append((span.a, span.index, f.index, f.distance)) }
            if let f = farthest(span.index, span.b) { spans.append((span.index, span.b, f.index, f.distance)) }
        }
        return (kept.sorted(), dropped)
    }

    static func lines(_ g: inout SeededGenerator) -> [[Coordinate]] {
        var lines: [[Coordinate]] = []
        for _ in 0..<12 { lines += SaveFastPathHostileTests.tyingLines(&g) }
        for n in [0, 1, 2, 3, 4, 5, 9, 64, 65, 66, 130] {
            lines.append((0..<n).map { i in Coordinate(latitude: (i % 2 == 0 ? 1 : -1) * 1e-4, longitude: Double(i) * 1e-4) })
            lines.append((0..<n).map { i in Coordinate(latitude: 45 + Double(i % 3) * 1e-5, longitude: 9) })
        }
        for seed in 1...3 {
            lines.append(Fixtures.sampleWalk(seed: UInt64(seed), points: 3600).points.map(\.coordinate))
        }
        for _ in 0..<20 {
            var lat = 45.0, lon = 9.0
            lines.append((0..<Int.random(in: 3...800, using: &g)).map { _ in
                lat += Double.random(in: -1e-4...1e-4, using: &g)
                lon += Double.random(in: -1e-4...1e-4, using: &g)
                switch Int.random(in: 0..<60, using: &g) {
                case 0: return Coordinate(latitude: .nan, longitude: lon)
                case 1: return Coordinate(latitude: lat, longitude: .infinity)
                case 2: return Coordinate(latitude: lat, longitude: lon + 180)  // across the antimeridian and back
                default: return Coordinate(latitude: lat, longitude: lon)
                }
            })
        }
        return lines
    }

    @Test func keptPointsErrorAndWorkAreThePreviousOnes() {
        var g = SeededGenerator(state: 0x4EA9)
        let limits = [0, 1, 2, 3, 4, 5, 16, RoutePreview.maxPoints, 200, .max]
        let tolerances = [0, RoutePreview.minimumTolerance, 0.5, 3, 40, .infinity, .nan]
        for (k, line) in Self.lines(&g).enumerated() {
            let s = PreviewSimplifier(line)
            for maxPoints in limits {
                for tolerance in tolerances {
                    var work = 0, previousWork = 0
                    let kept = s.keep(maxPoints: maxPoints, tolerance: tolerance, work: &work)
                    let expected = Self.previousKeep(s, count: line.count, maxPoints: maxPoints, tolerance: tolerance,
                                                     work: &previousWork)
                    let label = "line \(k) (\(line.count) points), limit \(maxPoints), tolerance \(tolerance)"
                    #expect(kept.indices == expected.indices, "\(label)")
                    #expect(kept.error.bitPattern == expected.error.bitPattern, "\(label): error \(kept.error) against \(expected.error)")
                    #expect(work == previousWork, "\(label): work")
                }
            }
        }
    }
}
