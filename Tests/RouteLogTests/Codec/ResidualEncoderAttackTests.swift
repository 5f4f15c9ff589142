import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// The version 2 encoder's residual pass (ColumnEncoderV2.computeResiduals, one pass in C)
/// and its exact division (ExactDivision.quotient, masking shifts) attacked with
/// divisors: ExactDivision against plain integer division for divisors from 1 to
/// Int64.max (every shift from 0 to 62) on multiples at the edges of the quotient's
/// range, Int64.min and Int64.max, and values off a multiple by every low bit; columns
/// of every length from 0 to 20 values past the start values and at the four-stream
/// split, of each order, whose residuals share a factor (the chosen model has a
/// divisor), with explicit models whose bias and divisor make the residuals wrap round
/// Int64, and with one residual that is not a multiple where the model's samples miss
/// it. Every column must be written byte for byte as the reference encoder writes it
/// and decode to its values; routes with such fields must round-trip through
/// RouteCodec.encodedPoints and RouteCodec.points(decoding:).
@Suite struct ResidualEncoderAttackTests {
    /// `x / d` when `x` is a multiple of `d` (d > 0), else nil: the definition.
    static func quotient(_ x: Int64, _ d: Int64) -> Int64? { x % d == 0 ? x / d : nil }

    static let divisors: [Int64] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 100, 1000, 60_000, 1 << 31, 3 << 40, 5 << 58,
                                    1 << 61, 1 << 62, (1 << 62) + 1, (1 << 62) - 1, 3 << 61, .max, .max - 1, .max / 3,
                                    0x5555_5555_5555_5555, 0x7FFF_FFFF_0000_0000]

    @Test func exactDivisionAgreesWithIntegerDivision() {
        var g = SeededGenerator(state: 0xD1F)
        var divisors = Self.divisors
        for shift in 0...62 { divisors.append(Int64(1) << shift) }
        for _ in 0..<40 { divisors.append(Int64.random(in: 1...(.max), using: &g) >> Int64.random(in: 0...62, using: &g) | 1) }
        for _ in 0..<40 { divisors.append(max(1, Int64.random(in: 1...1_000_000, using: &g) << Int64.random(in: 0...40, using: &g))) }
        for d in divisors {
            let division = ExactDivision(d)
            var xs: [Int64] = [0, 1, -1, .min, .max, .min + 1, .max - 1, d, -d, d &* 2, d &* -2]
            let largest = Int64.max / d, smallest = Int64.min / d
            for q in [largest, largest - 1, smallest, smallest + 1, 0, 1, -1] {
                let m = q &* d
                xs += [m, m &+ 1, m &- 1, m &+ d, m &- d]
                // Off a multiple by each low bit the shift must see.
                for s in 0..<Int64(d.trailingZeroBitCount) { xs.append(m &+ (1 << s)) }
            }
            for _ in 0..<50 {
                xs.append(Int64.random(in: .min ... .max, using: &g))
                xs.append(Int64.random(in: smallest...largest, using: &g) &* d)
            }
            for x in xs {
                #expect(division.quotient(x) == Self.quotient(x, d), "\(x) / \(d)")
            }
        }
    }

    /// New and reference bytes for `values`, equal, and the values decoded back.
    static func check(_ values: [Int64], model: ResidualModel? = nil, _ label: @autoclosure () -> String) throws {
        let (new, reference) = EncoderV2ReferenceTests.bothColumns(values, model: model)
        #expect(new == reference, "\(label()): bytes differ from the reference encoder's")
        guard !values.isEmpty else { return }
        let decoded = try EncoderV2EdgeTests.decode(new, count: values.count)
        #expect(decoded == values, "\(label()): decoded to other values")
    }

    /// The values whose order-`order` residuals are `residuals`, from start values 0 and
    /// `first`: what a decoder makes of them (wrapping sums).
    static func integrate(_ residuals: [Int64], order: Int, first: Int64 = 0) -> [Int64] {
        var values: [Int64] = order >= 1 ? [first] : []
        if order == 2 { values.append(first &+ 3) }
        for r in residuals {
            switch order {
            case 0: values.append(r)
            case 1: values.append(values[values.count - 1] &+ r)
            default:
                let n = values.count
                values.append(values[n - 1] &+ (values[n - 1] &- values[n - 2]) &+ r)
            }
        }
        return values
    }

    static let lengths = Array(0...20) + [63, 64, 65, 255, 256, 257, 258, 259, 1000, 4097]

    /// Residuals that share a factor, with an offset the bias takes: the chosen model has
    /// the factor as divisor, and every length round-trips.
    @Test func columnsWhoseResidualsShareAFactor() throws {
        var g = SeededGenerator(state: 0xFAC7)
        for order in 0...2 {
            for factor: Int64 in [2, 3, 100, 1000, 1 << 20, 7 << 40] {
                for k in Self.lengths {
                    let offset = Int64.random(in: -99...99, using: &g)
                    let residuals = (0..<k).map { _ in Int64.random(in: -60...60, using: &g) * factor + offset }
                    let values = Self.integrate(residuals, order: order, first: Int64.random(in: -1_000_000...1_000_000, using: &g))
                    if k >= 3 && Set(residuals).count > 1 {
                        let model = values.withUnsafeBufferPointer { ResidualModel.choose($0) }
                        if model.order == order { #expect(model.divisor % factor == 0, "order \(order), factor \(factor), \(k) residuals: \(model)") }
                    }
                    try Self.check(values, "order \(order), factor \(factor), \(k) residuals")
                    // The same residuals, each model forced: order and divisor as made.
                    let forced = ResidualModel(order: order, bias: offset, divisor: factor)
                    try Self.check(values, model: forced, "forced order \(order), factor \(factor), \(k) residuals")
                }
            }
        }
    }

    /// Explicit models at the edges of Int64: divisors up to Int64.max, quotients at the
    /// ends of their range, and biases that make every residual minus the bias wrap.
    @Test func explicitModelsAtTheEdgesOfInt64() throws {
        var g = SeededGenerator(state: 0xED6E)
        let biases: [Int64] = [0, .max, .min, -1, 1, .max - 7]
        for d in Self.divisors {
            let largest = Int64.max / d, smallest = Int64.min / d
            for bias in biases {
                for order in 0...2 {
                    for k in [1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 257] {
                        let quotients = (0..<k).map { i -> Int64 in
                            switch i % 4 {
                            case 0: return largest
                            case 1: return smallest
                            case 2: return Int64.random(in: smallest...largest, using: &g)
                            default: return [0, 1, -1][Int.random(in: 0..<3, using: &g)]
                            }
                        }
                        let residuals = quotients.map { $0 &* d &+ bias }
                        let values = Self.integrate(residuals, order: order, first: Int64.random(in: .min ... .max, using: &g))
                        let model = ResidualModel(order: order, bias: bias, divisor: d)
                        try Self.check(values, model: model, "divisor \(d), bias \(bias), order \(order), \(k) residuals")
                    }
                }
            }
        }
        // Columns of the extremes alone, models chosen.
        let extremes: [[Int64]] = [
            [.min, .max, .min, .max, .min, .max, .min],
            [.min, 0, 1 << 62, -(1 << 62), .min, 0, 1 << 62, .min],
            [0, .max, -Int64.max, 0, .max, -Int64.max, .max, .max],
            [.max, .max - 2, .max - 4, .max - 6, .min + 1, .min + 3],
        ]
        for values in extremes {
            for k in 1...values.count { try Self.check(Array(values.prefix(k)), "extremes \(values.prefix(k))") }
        }
    }

    /// Long columns whose samples all share a factor but one residual outside the
    /// sampled windows is off it: the encoder must notice in its full pass, fall back to
    /// divisor 1 and still write what the reference writes.
    @Test func aResidualTheSamplesMissIsNotAMultiple() throws {
        var g = SeededGenerator(state: 0x0FF)
        for order in 0...2 {
            for m in [300, 513, 1000, 4100] {
                let windowStarts = (0..<ResidualModel.windowCount).map { $0 * (m / ResidualModel.windowCount) }
                var spots = windowStarts.map { $0 + ResidualModel.windowLength + 1 } + [m - 1, m - 2, m - 3, m - 4]
                spots = spots.filter { spot in
                    spot >= order + 2 && spot < m
                        && !windowStarts.contains { ($0..<($0 + ResidualModel.windowLength)).contains(spot) }
                }
                // Off by a value the low-bit test catches, and by ones only the quotient's
                // range catches (a multiple of the divisor's power of two, or any value
                // for an odd divisor).
                for (factor, off) in [(100, 1), (100, 4), (100, 50), (3, 1), (3, -2), (1 << 20, 1 << 19), (96, 32)] as [(Int64, Int64)] {
                    for spot in spots {
                        var residuals = (0..<(m - order)).map { _ in Int64.random(in: -30...30, using: &g) * factor + 37 }
                        residuals[spot - order] += off
                        let values = Self.integrate(residuals, order: order, first: 12_345)
                        let model = values.withUnsafeBufferPointer { ResidualModel.choose($0) }
                        #expect(model.divisor > 1, "order \(order), \(m) values, factor \(factor): the samples should see a factor")
                        try Self.check(values, "order \(order), \(m) values, factor \(factor), off by \(off) at \(spot)")
                    }
                }
            }
        }
    }

    /// Routes whose fields share a factor (whole metres of altitude from an odd datum,
    /// whole seconds, even heart rates, courses in steps of 45 degrees), and one point
    /// off it late in the route, round-trip through the public point-block API.
    @Test func routesWithFactoredFieldsRoundTripThroughThePublicAPI() throws {
        var g = SeededGenerator(state: 0x90B)
        for n in Array(1...20) + [300, 1000] {
            for outlier in [false, true] {
                var t = 1_767_225_600.0
                var points: [TrackPoint] = []
                for i in 0..<n {
                    t += Double(Int.random(in: 1...3, using: &g))
                    let off = outlier && i == n - 1
                    points.append(TrackPoint(
                        latitude: 47 + Double(i) * 1e-4, longitude: 8 + Double(i % 7) * 2e-4,
                        timestamp: Date(timeIntervalSince1970: off ? t + 0.001 : t),
                        altitude: 400.37 + Double(Int.random(in: -5...5, using: &g)) + (off ? 0.01 : 0),
                        speed: Double(Int.random(in: 0...12, using: &g)) * 0.25,
                        course: Double(Int.random(in: 0...7, using: &g)) * 45 + (off ? 1 : 0),
                        heartRate: Double(2 * Int.random(in: 50...90, using: &g) + (off ? 1 : 0))))
                }
                let block = try RouteCodec.encodedPoints(of: points)
                let decoded = try RouteCodec.points(decoding: block)
                #expect(decoded == RouteCodec.quantize(Route(points: points)).points, "\(n) points, outlier \(outlier)")
            }
        }
    }
}
