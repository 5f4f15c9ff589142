import CRouteLogSystem
import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// `routelog_short_step_lengths`, which measures a save's steps four at a time, gives
/// for every short step the bits Geodesic.distance gives, and -1 for every other step,
/// on the vector path and the portable one: steps at the 0.02-degree and 90-degree
/// limits, across the antimeridian, at the poles, NaN and infinite coordinates, equal
/// points, and every length around the four-step loop and its tail.
@Suite struct ShortStepLengthsTests {
    static func lengths(_ lat: [Double], _ lon: [Double], wide: Bool) -> [Double] {
        var out = [Double](repeating: 12345, count: lat.count)
        if wide {
            routelog_short_step_lengths(lat, lon, lat.count, &out)
        } else {
            routelog_short_step_lengths_portable(lat, lon, lat.count, &out)
        }
        return out
    }

    static func check(_ lat: [Double], _ lon: [Double], _ label: String) {
        for wide in [true, false] {
            let out = lengths(lat, lon, wide: wide)
            if let first = out.first { #expect(first == 12345, "\(label): lengths[0] written") }
            for i in lat.indices.dropFirst() {
                let latDelta = lat[i] - lat[i - 1], lonDelta = lon[i] - lon[i - 1], mid = (lat[i - 1] + lat[i]) / 2
                let short = latDelta.magnitude <= 0.02 && lonDelta.magnitude <= 0.02 && mid.magnitude <= 90
                let expected = short ? Geodesic.distance(lat[i - 1], lon[i - 1], lat[i], lon[i]) : -1
                #expect(out[i].bitPattern == expected.bitPattern,
                        "\(label), step \(i) (\(wide ? "vector" : "portable")): \(out[i]) against \(expected)")
            }
        }
    }

    @Test func walksAndHostileStepsGiveGeodesicsBits() {
        for seed in 1...3 {
            let walk = Fixtures.sampleWalk(seed: UInt64(seed), points: 3601)
            Self.check(walk.points.map(\.latitude), walk.points.map(\.longitude), "walk \(seed)")
        }
        var g = SeededGenerator(state: 0x57E9)
        var lat: [Double] = [], lon: [Double] = []
        var y = 0.0, x = 0.0
        for _ in 0..<4000 {
            switch Int.random(in: 0..<12, using: &g) {
            case 0: y = Double.random(in: -90...90, using: &g)  // a long step
            case 1: x += [0.02, -0.02, 0.0200000001, 0.019999999][Int.random(in: 0..<4, using: &g)]
            case 2: y = [90, -90, 89.99, -89.995, 90.01][Int.random(in: 0..<5, using: &g)]
            case 3: x = [179.995, -179.995, 180, -180][Int.random(in: 0..<4, using: &g)]
            case 4: y = [Double.nan, .infinity, -.infinity][Int.random(in: 0..<3, using: &g)]
            case 5: break  // an equal point
            default:
                y = min(90, max(-90, y.isFinite ? y : 0) + Double.random(in: -0.001...0.001, using: &g))
                x += Double.random(in: -0.001...0.001, using: &g)
            }
            lat.append(y)
            lon.append(x)
        }
        Self.check(lat, lon, "hostile")
        for count in 0...11 { Self.check(Array(lat.prefix(count)), Array(lon.prefix(count)), "first \(count)") }
    }

    @Test func theVectorPathIsTheOneInUseWhereTheProcessorHasIt() {
        #if arch(x86_64)
        #expect((routelog_short_step_lengths_is_wide() == 1) == TestProcessor.hasAVX2)
        #else
        #expect(routelog_short_step_lengths_is_wide() == 0)
        #endif
    }
}
