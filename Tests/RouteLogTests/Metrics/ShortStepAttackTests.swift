import CRouteLogSystem
import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// `routelog_short_step_lengths` (vector and portable paths) and the save's
/// RouteStatistics built on it, attacked at their edges. The kernel: every count from 0
/// to 20 at four starting offsets, from buffers of exactly the route's size (a read or
/// write past the end is a heap overflow under AddressSanitizer) and with guard cells
/// after the lengths (a write past the end changes them in any build), one hostile step
/// in every lane and in the tail: differences of exactly 0.02 degree and the next double
/// above, mid-latitudes of exactly 90 and just past, the antimeridian, the poles, -0,
/// subnormals, NaN and infinities. Each length must be Geodesic.distance's bits for a
/// short step and -1 otherwise, lengths[0] never written. RouteStatistics: on routes
/// with such a step at every position, and segment starts around it, the distance and
/// moving time must equal RouteMetrics' to the bit.
@Suite struct ShortStepAttackTests {
    static let sentinel = -12345.0

    /// Geodesic.distance's bits for a short step, -1 for any other: the kernel's contract.
    static func expected(_ lat: [Double], _ lon: [Double], _ i: Int) -> Double {
        let latDelta = lat[i] - lat[i - 1], lonDelta = lon[i] - lon[i - 1], mid = (lat[i - 1] + lat[i]) / 2
        let short = latDelta.magnitude <= 0.02 && lonDelta.magnitude <= 0.02 && mid.magnitude <= 90
        return short ? Geodesic.distance(lat[i - 1], lon[i - 1], lat[i], lon[i]) : -1
    }

    /// The lengths one path writes for `lat`/`lon` copied `offset` doubles into buffers of
    /// exactly `offset + count` doubles, into a lengths buffer of exactly that size too
    /// (`guarded` false) or with four guard cells after it (`guarded` true). Returns the
    /// count lengths, then the guard cells.
    static func lengths(_ lat: [Double], _ lon: [Double], offset: Int, wide: Bool, guarded: Bool) -> [Double] {
        let n = lat.count, extra = guarded ? 4 : 0
        let out = UnsafeMutablePointer<Double>.allocate(capacity: offset + n + extra)
        defer { out.deallocate() }
        out.initialize(repeating: sentinel, count: offset + n + extra)
        withExactlySizedBuffers(lat, lon, offset: offset) { pLat, pLon in
            if wide {
                routelog_short_step_lengths(pLat, pLon, n, out + offset)
            } else {
                routelog_short_step_lengths_portable(pLat, pLon, n, out + offset)
            }
        }
        for i in 0..<offset { #expect(out[i] == sentinel, "a length written before the buffer") }
        return (0..<(n + extra)).map { out[offset + $0] }
    }

    static func check(_ lat: [Double], _ lon: [Double], _ label: @autoclosure () -> String) {
        for wide in [true, false] {
            for offset in 0..<4 {
                // Guard cells first: a path that writes past the end fails here, before
                // the exactly sized run would corrupt the heap.
                for guarded in [true, false] {
                    let out = lengths(lat, lon, offset: offset, wide: wide, guarded: guarded)
                    let path = "\(wide ? "vector" : "portable"), offset \(offset)"
                    let past = out.dropFirst(lat.count).filter { $0 != sentinel }
                    #expect(past.isEmpty, "\(label()): written past the end (\(path))")
                    guard past.isEmpty else { return }
                    if !lat.isEmpty { #expect(out[0] == sentinel, "\(label()): lengths[0] written (\(path))") }
                    for i in lat.indices.dropFirst() {
                        let e = expected(lat, lon, i)
                        #expect(out[i].bitPattern == e.bitPattern, "\(label()), step \(i) (\(path)): \(out[i]) against \(e)")
                    }
                }
            }
        }
    }

    /// Steps that sit on an edge of the short-step test, as (from, to) pairs of
    /// (latitude, longitude).
    static let edgeSteps: [(String, (Double, Double), (Double, Double))] = [
        ("0.02 of latitude", (0, 0), (0.02, 0)),
        ("past 0.02 of latitude", (0, 0), (0.02.nextUp, 0)),
        ("-0.02 of longitude", (10, 5), (10, 5 - 0.02)),
        ("past -0.02 of longitude", (10, 0), (10, -(0.02.nextUp))),
        ("both 0.02", (-30, 0), (-30 + 0.02, 0.02)),
        ("mid-latitude 90", (90, 0), (90, 0.01)),
        ("mid-latitude -90", (-90, 179.99), (-90, 180)),
        ("into the pole", (89.99, 3), (90, 3)),
        ("mid-latitude past 90", (90.0.nextUp, 0), (90.0.nextUp, 0.01)),
        ("a sum that rounds to 90", (90, 0), (90.0.nextUp, 0)),
        ("mid-latitude 90.01", (90.005, 0), (90.015, 0.01)),
        ("across the antimeridian", (0, 179.995), (0, -179.995)),
        ("onto the antimeridian", (0, 179.99), (0, 180)),
        ("signed zeros", (-0.0, -0.0), (0, 0)),
        ("subnormals", (Double.leastNonzeroMagnitude, 0), (0, -Double.leastNonzeroMagnitude)),
        ("standing still", (51.5, -0.12), (51.5, -0.12)),
        ("NaN latitude", (.nan, 0), (1, 0)),
        ("NaN longitude", (1, 0), (1, .nan)),
        ("infinite latitude", (.infinity, 0), (.infinity, 0)),
        ("infinite longitude", (0, -.infinity), (0, 0)),
        ("huge latitudes", (1e308, 0), (1.7976931348623157e308, 0)),
        ("long step", (0, 0), (1, 1)),
    ]

    /// The edge steps themselves land on the side of the test they are meant to.
    @Test func theEdgeStepsAreOnTheSideTheyClaim() {
        let short: Set = ["0.02 of latitude", "-0.02 of longitude", "both 0.02", "mid-latitude 90", "mid-latitude -90",
                          "into the pole", "a sum that rounds to 90", "onto the antimeridian", "signed zeros", "subnormals", "standing still"]
        for (label, from, to) in Self.edgeSteps {
            let out = Self.lengths([from.0, to.0], [from.1, to.1], offset: 0, wide: true, guarded: true)
            if short.contains(label) {
                #expect(out[1] >= 0 && out[1] < 3000, "\(label): \(out[1])")
            } else {
                #expect(out[1] == -1, "\(label): \(out[1])")
            }
        }
        // Exact values a wrong rounding would move: standing still is +0.
        let still = Self.lengths([51.5, 51.5], [-0.12, -0.12], offset: 0, wide: true, guarded: false)
        #expect(still[1].bitPattern == 0.0.bitPattern)
    }

    /// Every count from 0 to 20 at every offset, each edge step at every position.
    @Test func everyCountOffsetAndPositionOfAnEdgeStep() {
        var g = SeededGenerator(state: 0x5757)
        for n in 0...20 {
            // A plain walk of short steps.
            var lat: [Double] = [], lon: [Double] = []
            var y = 45.0, x = 7.0
            for _ in 0..<n {
                lat.append(y)
                lon.append(x)
                y += Double.random(in: -0.005...0.005, using: &g)
                x += Double.random(in: -0.005...0.005, using: &g)
            }
            Self.check(lat, lon, "walk of \(n)")
            guard n >= 2 else { continue }
            for p in 1..<n {
                for (label, from, to) in Self.edgeSteps {
                    var la = lat, lo = lon
                    (la[p - 1], lo[p - 1], la[p], lo[p]) = (from.0, from.1, to.0, to.1)
                    Self.check(la, lo, "\(label) at step \(p) of \(n)")
                }
            }
        }
    }

    /// Random mixtures of edge steps, long routes: every lane of many iterations.
    @Test func randomMixturesOfEdgeSteps() {
        var g = SeededGenerator(state: 0x6E06)
        for round in 0..<40 {
            let n = Int.random(in: 20...200, using: &g)
            var lat: [Double] = [], lon: [Double] = []
            var y = 0.0, x = 0.0
            for _ in 0..<n {
                if Int.random(in: 0..<4, using: &g) == 0 {
                    let (_, from, to) = Self.edgeSteps.randomElement(using: &g)!
                    lat += [from.0, to.0]
                    lon += [from.1, to.1]
                    (y, x) = to.0.isFinite && to.1.isFinite && to.0.magnitude <= 90 ? to : (0, 0)
                } else {
                    y = min(90, max(-90, y + Double.random(in: -0.02...0.02, using: &g)))
                    x += Double.random(in: -0.02...0.02, using: &g)
                    lat.append(y)
                    lon.append(x)
                }
            }
            Self.check(lat, lon, "mixture \(round)")
        }
    }

    // MARK: - RouteStatistics against RouteMetrics

    static func points(_ lat: [Double], _ lon: [Double], _ seconds: [Double]) -> [TrackPoint] {
        lat.indices.map { TrackPoint(latitude: lat[$0], longitude: lon[$0], timestamp: Date(timeIntervalSince1970: 1_767_225_600 + seconds[$0])) }
    }

    /// RouteStatistics of `points` (measured as a save or a compaction measures them,
    /// unvalidated) equals RouteMetrics' distance and moving time, bit for bit.
    static func checkStatistics(_ points: [TrackPoint], _ starts: [Int], _ label: @autoclosure () -> String) throws {
        let columns = try PointColumns(points, validating: false, measuring: starts)
        let s = try #require(columns.statistics)
        let distance = RouteMetrics.distance(of: points, segmentStarts: starts)
        let moving = RouteMetrics.movingTime(of: points, segmentStarts: starts)
        #expect(s.distance.bitPattern == distance.bitPattern, "\(label()), starts \(starts): \(s.distance) against \(distance)")
        #expect(s.movingTime.bitPattern == moving.bitPattern, "\(label()), starts \(starts): \(s.movingTime) against \(moving)")
    }

    /// Each edge step at every position of routes of 2 to 14 points, with no segment
    /// start, a start at the step, and starts on both sides of it; times that stand
    /// still, go backwards and crawl below the moving speed.
    @Test func routeStatisticsEqualRouteMetricsAroundEveryEdgeStep() throws {
        var g = SeededGenerator(state: 0x57A7)
        for n in 2...14 {
            var lat: [Double] = [], lon: [Double] = [], seconds: [Double] = []
            var y = -33.9, x = 18.4, t = 0.0
            for _ in 0..<n {
                lat.append(y)
                lon.append(x)
                seconds.append(t)
                // Some steps crawl (about 0.1 m in a second), some walk, some stand still.
                let size = [0.0, 1e-6, 1e-5, 3e-3][Int.random(in: 0..<4, using: &g)]
                y += Double.random(in: -size...size, using: &g)
                x += Double.random(in: -size...size, using: &g)
                t += [1, 1, 5, 0, -2][Int.random(in: 0..<5, using: &g)]
            }
            try Self.checkStatistics(Self.points(lat, lon, seconds), [], "walk of \(n)")
            for p in 1..<n {
                for (label, from, to) in Self.edgeSteps {
                    var la = lat, lo = lon
                    (la[p - 1], lo[p - 1], la[p], lo[p]) = (from.0, from.1, to.0, to.1)
                    let points = Self.points(la, lo, seconds)
                    var startSets: [[Int]] = [[], [p]]
                    if p + 1 < n { startSets.append([p + 1]) }
                    if p >= 2 && p + 1 < n { startSets.append([p - 1, p + 1]) }
                    for starts in startSets { try Self.checkStatistics(points, starts, "\(label) at step \(p) of \(n)") }
                }
            }
        }
    }

    /// Longer routes: walks round the antimeridian and over a pole with a long jump and a
    /// segment start every few points, and a stored walk of the samples.
    @Test func routeStatisticsEqualRouteMetricsOnLongerRoutes() throws {
        var g = SeededGenerator(state: 0xA9E)
        for round in 0..<12 {
            let n = 100 + round * 37
            var lat: [Double] = [], lon: [Double] = [], seconds: [Double] = []
            var y = round % 2 == 0 ? 89.95 : -10.0, x = round % 2 == 0 ? 0 : 179.98, t = 0.0
            for i in 0..<n {
                lat.append(y)
                lon.append(x)
                seconds.append(t)
                if i % 41 == 40 {
                    y = Double.random(in: -80...80, using: &g)  // a long jump
                } else {
                    y = min(90, max(-90, y + Double.random(in: -0.01...0.01, using: &g)))
                }
                x += Double.random(in: -0.003...0.01, using: &g)
                if x > 180 { x -= 360 }
                t += Double(Int.random(in: 0...3, using: &g))
            }
            let starts = stride(from: 1 + round % 5, to: n, by: 7 + round).map { $0 }
            let points = Self.points(lat, lon, seconds)
            try Self.checkStatistics(points, starts, "round \(round)")
            try Self.checkStatistics(points, [], "round \(round)")
            // A save's own path: validated, and the shape it stores.
            let route = Route(points: points, segmentStarts: starts)
            let encoded = try RouteEncoder.encode(route, version: 2)
            #expect(encoded.shape == RouteShape(points: points, segmentStarts: starts), "round \(round)")
        }
        let walk = Fixtures.sampleWalk(seed: 77, points: 1001)
        try Self.checkStatistics(walk.points, [1, 2, 3, 4, 5, 999, 1000], "sample walk")
        // One and no points: nothing measured.
        for points in [[], Array(walk.points.prefix(1))] {
            let s = try #require(try PointColumns(points, validating: false, measuring: []).statistics)
            #expect(s.distance == 0 && s.movingTime == 0)
        }
    }
}
