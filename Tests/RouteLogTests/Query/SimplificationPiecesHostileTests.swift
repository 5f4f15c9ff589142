import Foundation
import Testing
@testable import RouteLog

/// `route(_:tolerance:)` in pieces of 512 points, on lengths at the piece boundaries and
/// shapes built to be hard: every dropped point within the tolerance of the kept line of
/// its piece, segment starts and splits moved to the right kept points.
@Suite struct SimplificationPiecesHostileTests {
    static let lengths = [1, 2, 3, 510, 511, 512, 513, 1_021, 1_022, 1_023, 1_024, 1_025, 1_536, 3_001]

    static func line(_ shape: Int, _ n: Int, _ g: inout SeededGenerator) -> [Coordinate] {
        switch shape {
        case 0:  // a random walk
            var lat = 45.0, lon = 9.0
            return (0..<n).map { _ in
                lat += Double.random(in: -1e-4...1e-4, using: &g)
                lon += Double.random(in: -1e-4...1e-4, using: &g)
                return Coordinate(latitude: lat, longitude: lon)
            }
        case 1:  // a zigzag whose swing shrinks point by point (Douglas-Peucker's worst case)
            return (0..<n).map { i in Coordinate(latitude: (i % 2 == 0 ? 1 : -1) * Double(n - i) * 1e-6, longitude: Double(i) * 1e-5) }
        case 2:  // along the antimeridian, crossing it at every step
            return (0..<n).map { i in Coordinate(latitude: -10 + Double(i) * 1e-5, longitude: i % 2 == 0 ? 179.99999 : -179.99999) }
        default:  // standing still with a few jumps
            return (0..<n).map { i in Coordinate(latitude: 45 + (i % 97 == 0 ? 1e-3 : 0), longitude: 9) }
        }
    }

    /// Metres from point `i` to the segment a-b on a plane's points `x`, `y`.
    static func distance(_ x: [Double], _ y: [Double], _ i: Int, _ a: Int, _ b: Int) -> Double {
        let dx = x[b] - x[a], dy = y[b] - y[a], length2 = dx * dx + dy * dy
        let t = length2 > 0 ? min(1, max(0, ((x[i] - x[a]) * dx + (y[i] - y[a]) * dy) / length2)) : 0
        return hypot(x[a] + t * dx - x[i], y[a] + t * dy - y[i])
    }

    @Test func everyDroppedPointIsWithinTheToleranceOfItsPiece() {
        var g = SeededGenerator(state: 0x51A)
        let piece = RouteStore.simplificationPiece
        for n in Self.lengths {
            for shape in 0..<4 {
                let line = Self.line(shape, n, &g)
                let tolerance = [0.01, 0.5, 3, 40][Int.random(in: 0..<4, using: &g)]
                let kept = RouteStore.keptIndices(line, tolerance: tolerance).indices
                let label = "n \(n), shape \(shape), tolerance \(tolerance)"
                #expect(kept.first == 0 && kept.last == n - 1, "\(label)")
                #expect(zip(kept, kept.dropFirst()).allSatisfy { $0 < $1 }, "\(label): not strictly ascending")
                // Each piece's last point is kept: pieces share their ends.
                for joint in stride(from: piece - 1, to: n - 1, by: piece - 1) {
                    #expect(kept.contains(joint), "\(label): joint \(joint) dropped")
                }
                for (a, b) in zip(kept, kept.dropFirst()) where b - a > 1 {
                    // Both in one piece: the one starting at the last joint at or before a.
                    let start = a / (piece - 1) * (piece - 1)
                    #expect(b <= start + piece - 1, "\(label): kept \(a) and \(b) span two pieces")
                    let plane = PreviewSimplifier(Array(line[start..<min(n, start + piece)]))
                    let (x, y) = (plane.x, plane.y)
                    for i in (a + 1)..<b {
                        let d = Self.distance(x, y, i - start, a - start, b - start)
                        #expect(d <= tolerance * (1 + 1e-9), "\(label): point \(i) is \(d) m from \(a)-\(b)")
                    }
                }
            }
        }
    }

    @Test func segmentStartsAndSplitsMoveToTheirKeptPoints() throws {
        let directory = TemporaryDirectory()
        let store = try RouteStore(at: directory.store(), options: .init(durability: .buffered, compaction: .manual))
        var g = SeededGenerator(state: 0x5E6)
        let t0 = Date(timeIntervalSince1970: 1_767_225_600)
        for round in 0..<12 {
            // Segments of lengths at the piece boundaries, one of a single point.
            let lengths = (0..<Int.random(in: 1...4, using: &g)).map { _ in Self.lengths.randomElement(using: &g)! }
            var coordinates: [Coordinate] = [], starts: [Int] = []
            for (k, length) in lengths.enumerated() {
                if k > 0 { starts.append(coordinates.count) }
                coordinates += Self.line(Int.random(in: 0..<4, using: &g), length, &g)
            }
            let points = coordinates.enumerated().map {
                TrackPoint(latitude: $1.latitude, longitude: $1.longitude, timestamp: t0.addingTimeInterval(Double($0)))
            }
            let n = points.count
            let splitIndices = [0, n - 1] + starts + (0..<5).map { _ in Int.random(in: 0..<n, using: &g) }
            let splits = splitIndices.map { Split(unit: .kilometre, pointIndex: $0, elapsedTime: Double($0)) }
            let id = try store.save(Route(points: points, splits: splits, segmentStarts: starts))
            let stored = try store.route(id)
            let simple = try store.route(id, tolerance: [0.5, 5, 50][round % 3])
            // The kept points are a subsequence of the stored ones, first and last included.
            var kept: [Int] = []
            var j = 0
            for point in simple.points {
                while j < n, stored.points[j] != point { j += 1 }
                try #require(j < n, "round \(round): a point that is not stored, in order")
                kept.append(j)
                j += 1
            }
            #expect(kept.first == 0 && kept.last == n - 1, "round \(round)")
            // Every segment start is kept, and the new starts name it.
            #expect(simple.segmentStarts.map { kept[$0] } == starts, "round \(round)")
            // Every segment's last point is kept.
            for start in starts { #expect(kept.contains(start - 1), "round \(round): end of segment before \(start)") }
            // A split moves to the first kept point at or after its own.
            #expect(simple.splits.count == splits.count)
            for (old, new) in zip(stored.splits, simple.splits) {
                #expect(kept[new.pointIndex] == kept.first { $0 >= old.pointIndex }, "round \(round): split at \(old.pointIndex)")
                #expect(new.elapsedTime == old.elapsedTime && new.unit == old.unit)
            }
        }
    }
}
