import CRouteLogSystem
import Foundation
import Testing
@testable import RouteLog

/// `routelog_climb_add` (the elevation gain and loss of a save's altitudes, skipping four
/// at a time those that change nothing) and `routelog_largest_finite` (the largest
/// reported speed) give what the plain loops give, to the bit, on the vector path and the
/// portable one: altitudes that wander within the threshold or jump, NaN, infinities, the
/// absent pattern and signed zeros among them and first, thresholds of every kind, the
/// altitudes added in pieces; speeds of every kind and every count around four.
@Suite struct StatsKernelTests {
    /// `ElevationHysteresis.add(_:)` one altitude at a time, absent ones left out: the
    /// definition the kernel follows.
    static func plainClimb(_ altitudes: [Double], threshold: Double) -> (gain: Double?, loss: Double?) {
        var climb = ElevationHysteresis(threshold: threshold)
        for altitude in altitudes where !TrackPoint.isAbsent(altitude) { climb.add(altitude) }
        return (climb.gain, climb.loss)
    }

    static func value(_ g: inout SeededGenerator, _ usual: Double, oneIn: Int) -> Double {
        guard Int.random(in: 0..<oneIn, using: &g) == 0 else { return usual }
        return [Double.nan, .infinity, -.infinity, Double(bitPattern: TrackPoint.absentBitPattern), -0.0, 0, 1e300,
                -1e300].randomElement(using: &g)!
    }

    @Test func climbIsThePlainLoops() {
        var g = SeededGenerator(state: 0xC11B)
        let thresholds = [RouteStats.elevationNoiseThreshold, 0, -1, .leastNonzeroMagnitude, .infinity, .nan]
        for round in 0..<2_000 {
            let n = round < 200 ? round % 25 : Int.random(in: 0...400, using: &g)
            var h = Double.random(in: -500...9000, using: &g)
            let stride = round % 5 == 0 ? 4.0 : 0.3
            var altitudes = (0..<n).map { _ in
                h += Double.random(in: -stride...stride, using: &g)
                return Self.value(&g, h, oneIn: round % 3 == 0 ? 8 : 200)
            }
            if round % 7 == 0, !altitudes.isEmpty { altitudes[0] = Self.value(&g, h, oneIn: 1) }
            let threshold = round % 2 == 0 ? RouteStats.elevationNoiseThreshold : thresholds.randomElement(using: &g)!
            let expected = Self.plainClimb(altitudes, threshold: threshold)
            // In pieces: each call goes on from where the one before left the climb.
            var cuts = (0..<Int.random(in: 0...3, using: &g)).map { _ in Int.random(in: 0...n, using: &g) }.sorted()
            cuts = [0] + cuts + [n]
            for wide in [true, false] {
                var climb = routelog_climb(reference: 0, climbed: 0, descended: 0, started: 0, direction: 0)
                altitudes.withUnsafeBufferPointer { a in
                    let base = a.baseAddress ?? UnsafePointer(bitPattern: 8)!
                    for (from, to) in zip(cuts, cuts.dropFirst()) {
                        if wide {
                            routelog_climb_add(&climb, base, from, to, threshold, TrackPoint.absentBitPattern)
                        } else {
                            routelog_climb_add_portable(&climb, base, from, to, threshold, TrackPoint.absentBitPattern)
                        }
                    }
                }
                let label = "round \(round) (\(wide ? "vector" : "portable")), threshold \(threshold), cuts \(cuts)"
                let gain = climb.started != 0 ? climb.climbed : nil, loss = climb.started != 0 ? climb.descended : nil
                #expect(gain?.bitPattern == expected.gain?.bitPattern, "\(label): gain \(String(describing: gain))")
                #expect(loss?.bitPattern == expected.loss?.bitPattern, "\(label): loss \(String(describing: loss))")
            }
            // And through ElevationHysteresis, as the stats call it.
            var climb = ElevationHysteresis(threshold: threshold)
            altitudes.withUnsafeBufferPointer { a in
                for (from, to) in zip(cuts, cuts.dropFirst()) { climb.add(a.baseAddress ?? UnsafePointer(bitPattern: 8)!, from..<to) }
            }
            #expect(climb.gain?.bitPattern == expected.gain?.bitPattern && climb.loss?.bitPattern == expected.loss?.bitPattern,
                    "round \(round): ElevationHysteresis")
        }
    }

    @Test func largestSpeedIsThePlainLoopsOnBothPaths() {
        var g = SeededGenerator(state: 0x1A6E)
        let kinds: [Double] = [.nan, .infinity, -.infinity, Double(bitPattern: TrackPoint.absentBitPattern), -1, 0, -0.0,
                               0.25, 3.75, 3.75, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude]
        for round in 0..<3_000 {
            let count = round < 200 ? round % 20 : Int.random(in: 0...300, using: &g)
            let pool = round % 3 == 0 ? [0.0, -0.0, -1, .nan, -.infinity, .infinity] : kinds
            let values = (0..<count).map { _ in
                Bool.random(using: &g) ? pool.randomElement(using: &g)! : Double.random(in: -2...40, using: &g)
            }
            for start in [-1.0, 0, -0.0] {
                var plain = start
                for value in values where value.isFinite { plain = Swift.max(plain, value) }
                values.withUnsafeBufferPointer { v in
                    let base = v.baseAddress ?? UnsafePointer(bitPattern: 8)!
                    let wide = routelog_largest_finite(base, count, start), portable = routelog_largest_finite_portable(base, count, start)
                    #expect(wide.bitPattern == plain.bitPattern, "round \(round), start \(start): vector \(wide) against \(plain)")
                    #expect(portable.bitPattern == plain.bitPattern, "round \(round), start \(start): portable")
                }
            }
        }
    }
}
