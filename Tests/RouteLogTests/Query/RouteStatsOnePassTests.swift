import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// The stats' pass over the points where they lie (`routelog_point_stats`, C) gives the
/// same doubles, bit for bit, as the point-by-point Swift loop: elevation gain and loss
/// per segment, heart rate and cadence means and largest, the largest reported speed;
/// for walks, for points with missing, infinite and NaN fields (the public
/// `RouteStats.compute` takes any points), and for segment starts out of order, repeated
/// or outside the route.
@Suite struct RouteStatsOnePassTests {
    static func expectSame(_ points: [TrackPoint], _ segmentStarts: [Int], _ comment: String,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        let wide = RouteStats.onePass(points, segmentStarts: segmentStarts)
        let pointByPoint = RouteStats.onePassPointByPoint(points, segmentStarts: segmentStarts)
        #expect(wide == pointByPoint, "\(comment): \(wide) against \(pointByPoint)", sourceLocation: sourceLocation)
    }

    @Test func theLayoutIsKnownHere() {
        // Otherwise the pass under test would be the Swift loop itself.
        #expect(TrackPointLayout.current != nil)
    }

    @Test func walksGiveTheSameDoubles() {
        for seed in 1...6 {
            let walk = Fixtures.sampleWalk(seed: UInt64(seed), points: 3600)
            Self.expectSame(walk.points, walk.segmentStarts, "walk \(seed)")
            Self.expectSame(walk.points, [0, 900, 1800, 1801, 3599], "walk \(seed) in segments")
        }
    }

    @Test func hostileFieldsGiveTheSameDoubles() {
        var g = SeededGenerator(state: 31337)
        let odd: [Double?] = [nil, .nan, .infinity, -.infinity, 0, -0.0, 3, -3, 2.9999999, 1e308, -1e308, .leastNonzeroMagnitude]
        for round in 0..<400 {
            let n = Int.random(in: 0...300, using: &g)
            let points = (0..<n).map { i -> TrackPoint in
                func field(_ scale: Double) -> Double? {
                    Int.random(in: 0..<4, using: &g) == 0 ? odd[Int.random(in: 0..<odd.count, using: &g)]
                        : Double.random(in: -scale...scale, using: &g).rounded() / 4
                }
                return TrackPoint(latitude: 0, longitude: 0, timestamp: Date(timeIntervalSince1970: Double(i)),
                                  altitude: field(40), speed: field(10), heartRate: field(200), cadence: field(100))
            }
            let starts = (0..<Int.random(in: 0...5, using: &g)).map { _ in Int.random(in: -2...(n + 2), using: &g) }
            Self.expectSame(points, starts, "round \(round), \(n) points, segments \(starts)")
        }
    }

    /// The hysteresis at its edges: a first altitude that is not finite, changes of
    /// exactly the threshold either way, turns, and no altitude at all in a segment.
    @Test func theHysteresisAtItsEdgesGivesTheSameDoubles() {
        let runs: [[Double?]] = [
            [.nan, 1, 5, 9], [.infinity, 10, 0], [0, 3, 0, -3, 0, 3, 6, 2.9, 6.1], [0, -3, -2, -6, -3, -2.99, 5],
            [nil, nil, 4, nil, 8], [nil, nil], [1e308, -1e308, 1e308], [0, 3, 3, 3, 0, 0],
        ]
        for (r, altitudes) in runs.enumerated() {
            let points = altitudes.enumerated().map { i, a in
                TrackPoint(latitude: 0, longitude: 0, timestamp: Date(timeIntervalSince1970: Double(i)), altitude: a)
            }
            Self.expectSame(points, [], "run \(r)")
            Self.expectSame(points + points, [altitudes.count], "run \(r) twice, in two segments")
        }
    }
}
