import Foundation
import Testing
@testable import RouteLog

/// The two-tracker farthest scan picks the point one scan in order picks (the first of the
/// farthest, DerivedFieldsFastPathTests.referenceFarthest) on whole walks and random
/// lines, over long and short spans, odd and even lengths.
@Suite struct FarthestScanTests {
    @Test func farthestEqualsOneScanOnWalksAndRandomLines() throws {
        var g = SeededGenerator(state: 0x5CA7)
        var lines: [[Coordinate]] = (1...4).map { seed in
            Fixtures.sampleWalk(seed: UInt64(seed), points: [3600, 1001, 64, 5][seed - 1]).points.map {
                Coordinate(latitude: $0.latitude, longitude: $0.longitude)
            }
        }
        for _ in 0..<20 {
            lines.append((0..<Int.random(in: 2...700, using: &g)).map { _ in
                Coordinate(latitude: Double.random(in: -90...90, using: &g), longitude: Double.random(in: -180...180, using: &g))
            })
        }
        // Collinear points (every key equal to the cross product 0 inside the chord).
        lines.append((0..<300).map { Coordinate(latitude: Double($0) * 1e-5, longitude: Double($0) * 2e-5) })
        for line in lines {
            let s = PreviewSimplifier(line)
            let n = line.count
            var spans = [(0, n - 1)]
            for _ in 0..<60 {
                let a = Int.random(in: 0..<n, using: &g)
                spans.append((a, Int.random(in: a..<n, using: &g)))
            }
            for (a, b) in spans {
                #expect(s.farthest(a, b)?.index == DerivedFieldsFastPathTests.referenceFarthest(s, a, b), "span \(a)...\(b) of \(n)")
            }
        }
    }
}
