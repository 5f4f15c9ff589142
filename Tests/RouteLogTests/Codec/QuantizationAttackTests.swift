import CRouteLogSystem
import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// `routelog_scaled` (Quantization.scaled) attacked at its edges: products of exactly
/// ±4.6e18 and the doubles on either side, ±2^62, ±2^63 and beyond, infinities, NaN,
/// -0 and subnormals, every tie n + 0.5 from 0.5 up to the last binade with halves
/// (2^51...2^52), the doubles one ulp either side of each tie and of ±0.5, products
/// that round onto a tie, and random bit patterns. Each must be the definition
/// written with the standard library: NaN → 0, at or beyond ±4.6e18 → ±2^62, otherwise
/// the product rounded half away from zero.
@Suite struct QuantizationAttackTests {
    static func reference(_ value: Double, _ scale: Double) -> Int64 {
        let v = value * scale
        if v.isNaN { return 0 }
        if v <= -4.6e18 { return -(1 << 62) }
        if v >= 4.6e18 { return 1 << 62 }
        return Int64(v.rounded(.toNearestOrAwayFromZero))
    }

    static func check(_ value: Double, _ scale: Double = 1, _ label: @autoclosure () -> String = "") {
        let got = Quantization.scaled(value, scale), expected = reference(value, scale)
        #expect(got == expected, "\(label()) \(value) × \(scale): \(got), not \(expected)")
        #expect(routelog_scaled(value, scale) == got)
    }

    @Test func theClampAndItsEdges() {
        let limit = 4.6e18
        #expect(Quantization.scaled(limit, 1) == 1 << 62)
        #expect(Quantization.scaled(-limit, 1) == -(1 << 62))
        #expect(Quantization.scaled(limit.nextDown, 1) == Int64(limit.nextDown))
        #expect(Quantization.scaled((-limit).nextUp, 1) == Int64((-limit).nextUp))
        #expect(Quantization.scaled(.nan, 1) == 0)
        #expect(Quantization.scaled(-.nan, 1e7) == 0)
        #expect(Quantization.scaled(.infinity, 1) == 1 << 62)
        #expect(Quantization.scaled(-.infinity, 1) == -(1 << 62))
        #expect(Quantization.scaled(0, .infinity) == 0)  // 0 × ∞ is NaN
        #expect(Quantization.scaled(1e300, 1e300) == 1 << 62)
        #expect(Quantization.scaled(-1e300, 1e300) == -(1 << 62))
        for v in [limit, limit.nextUp, limit.nextDown, limit.nextDown.nextDown, 0x1p62, 0x1p62.nextDown, 0x1p63,
                  0x1p63.nextDown, 0x1p64, 9.2e18, 1e19, .greatestFiniteMagnitude, 0x1p53, 0x1p53 + 2, 0x1p52 - 1] {
            Self.check(v)
            Self.check(-v)
            // The same products reached through a scale.
            Self.check(v / 1e7, 1e7, "through the degree scale")
            Self.check(v / 1000, 1000, "through the millisecond scale")
        }
    }

    @Test func zerosAndSubnormals() {
        for v in [0.0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude,
                  -.leastNormalMagnitude, 1e-300, -1e-300] {
            Self.check(v)
            Self.check(v, 1e7)
            #expect(Quantization.scaled(v, 1e7) == 0)
        }
        #expect(Quantization.degrees(-0.0) == 0)
        #expect(Quantization.coordinate(Coordinate(latitude: -0.0, longitude: -1e-9)).latitude.sign == .plus)
    }

    /// Every tie n + 0.5 in every binade that has halves, and the doubles either side:
    /// ties go away from zero, the neighbours to the nearer integer.
    @Test func tiesInEveryBinadeAndTheirNeighbours() {
        var g = SeededGenerator(state: 0x7135)
        var values: [Double] = [0.5, 0.5.nextUp, 0.5.nextDown, 0.49999999999999994, 1.5, 2.5, 1.5.nextDown, 2.5.nextUp]
        for e in 0...51 {
            let low = Int64(1) << e
            let ns: [Int64] = [low, low - 1, low + 1, (low << 1) - 1, Int64.random(in: low..<(low << 1), using: &g)]
            for n in ns where n >= 0 {
                let tie = Double(n) + 0.5
                values += [tie, tie.nextUp, tie.nextDown, Double(n), Double(n).nextUp, Double(n).nextDown]
            }
        }
        for v in values {
            Self.check(v, 1, "tie")
            Self.check(-v, 1, "tie")
        }
        // Products that round onto a tie, or just off one, at the scales a save uses.
        for scale in [1e7, 1000, 100, 1] {
            for _ in 0..<2000 {
                let n = Double(Int64.random(in: -(1 << 40)...(1 << 40), using: &g))
                let v = (n + 0.5) / scale
                for w in [v, v.nextUp, v.nextDown] { Self.check(w, scale, "scaled tie") }
            }
        }
    }

    @Test func randomBitPatterns() {
        var g = SeededGenerator(state: 0xB175)
        for _ in 0..<50_000 {
            let v = Double(bitPattern: UInt64.random(in: .min ... .max, using: &g))
            Self.check(v, 1, "bits")
            Self.check(v, 1e7, "bits")
        }
        // Every exponent near the clamp, with random significands.
        for e in 50...64 {
            for _ in 0..<200 {
                let v = Double(sign: .plus, exponent: e, significand: Double.random(in: 1..<2, using: &g))
                Self.check(v, 1, "near the clamp")
                Self.check(-v, 1, "near the clamp")
            }
        }
    }

    /// The fields a save quantizes go through the same conversion: optional fields at
    /// and past their limits, and times at the edges of what a save accepts.
    @Test func pointFieldsQuantizeThroughTheSameConversion() {
        for field in PointField.optional {
            for v in [field.limits.upperBound, field.limits.lowerBound, -0.0, 0.005, -0.005, 0.015, 1e300, -.infinity, .nan] {
                #expect(field.integer(v) == Self.reference(v, field.scale), "\(field.name) \(v)")
            }
        }
        for seconds in [0.0, -0.0005, 0.0005, -0.0015, 7_258_118_399.9995, 1e16, -1e16] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(Quantization.milliseconds(date) == Self.reference(date.timeIntervalSince1970, 1000), "\(seconds) s")
        }
    }
}
