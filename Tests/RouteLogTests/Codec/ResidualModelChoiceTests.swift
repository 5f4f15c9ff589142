import Foundation
import Testing
@testable import RouteLog

/// `ResidualModel.choose` against the plain way of choosing (sums of doubles, the
/// greatest common divisor of every residual's distance from the first): the same model
/// for every column whose values a writer can store, and a model that round-trips for
/// any other.
@Suite struct ResidualModelChoiceTests {
    /// The plain way: what `choose` computes, with none of its shortcuts.
    static func plainChoice(_ values: [Int64]) -> ResidualModel {
        let m = values.count
        guard m > 2 else { return ResidualModel(order: m, bias: 0, divisor: 1) }
        let length = ResidualModel.windowLength, count = ResidualModel.windowCount
        let windows: [Range<Int>] = m <= length * count ? [0..<m] : (0..<count).map { w in
            let s = w * (m / count)
            return s..<(s + length)
        }
        func residual(_ j: Int, _ order: Int) -> Int64 {
            switch order {
            case 0: return values[j]
            case 1: return values[j] &- values[j - 1]
            default: return (values[j] &- values[j - 1]) &- (values[j - 1] &- values[j - 2])
            }
        }
        func rounded(_ x: Double) -> Int64 { x.magnitude < 4e18 ? Int64(x.rounded()) : 0 }
        var sums = [0.0, 0.0, 0.0], n = 0
        for window in windows where window.count > 2 {
            for j in (window.lowerBound + 2)..<window.upperBound {
                for order in 0...2 { sums[order] += Double(residual(j, order)) }
            }
            n += window.count - 2
        }
        let biases = sums.map { rounded($0 / Double(max(1, n))) }
        var costs: [Int64] = [0, 0, 0]
        for window in windows where window.count > 2 {
            for j in (window.lowerBound + 2)..<window.upperBound {
                for order in 0...2 {
                    costs[order] += Int64(64 - ResidualToken.zigzag(residual(j, order) &- biases[order]).leadingZeroBitCount)
                }
            }
        }
        let order = costs[0] <= costs[1] && costs[0] <= costs[2] ? 0 : (costs[1] <= costs[2] ? 1 : 2)
        var model = ResidualModel(order: order, bias: biases[order], divisor: 1)
        var divisor: Int64 = 0, first: Int64?
        for window in windows where window.count > order {
            for j in (window.lowerBound + order)..<window.upperBound {
                let r = residual(j, order)
                guard let r0 = first else {
                    first = r
                    continue
                }
                divisor = ResidualModel.gcd(divisor, r &- r0)
            }
        }
        if divisor > 1, let r0 = first {
            model.divisor = divisor
            model.bias = r0 &+ rounded(Double(model.bias &- r0) / Double(divisor)) &* divisor
        }
        return model
    }

    static func choose(_ values: [Int64]) -> ResidualModel {
        values.withUnsafeBufferPointer { ResidualModel.choose($0) }
    }

    /// Columns of the sizes and kinds a writer stores (coordinates, times in
    /// milliseconds, channels in centimetres; steps that share a factor; runs; noise):
    /// the same model as the plain way, to the bias.
    @Test func theSameModelAsThePlainWayForStorableColumns() {
        var g = SeededGenerator(state: 0xC0053)
        for round in 0..<3000 {
            let n = [3, 4, 5, 63, 64, 65, 255, 256, 257, 258, 1000, 3600].randomElement(using: &g)!
            let start = Int64.random(in: -1_800_000_000...1_800_000_000, using: &g)
            let factor: Int64 = [1, 1, 2, 7, 100, 1000, 6000].randomElement(using: &g)!
            // Steps small enough that no value passes 2^43 (as none a writer stores does).
            let spread = min(Int64([1, 3, 50, 10_000, 1 << 30].randomElement(using: &g)!), (1 << 42) / (factor * Int64(n)))
            var values: [Int64] = [start], step = Int64.random(in: -spread...spread, using: &g) * factor
            for _ in 1..<n {
                switch round % 4 {
                case 0: step = Int64.random(in: -spread...spread, using: &g) * factor  // noise of a factor
                case 1: step &+= Int64.random(in: -1...1, using: &g) * factor  // smooth: second differences small
                case 2: if Int.random(in: 0..<8, using: &g) == 0 { step = Int64.random(in: -spread...spread, using: &g) }  // runs
                default: step = Int64.random(in: -spread...spread, using: &g) * factor + 13  // a shared offset
                }
                values.append(values[values.count - 1] &+ step)
            }
            #expect(values.allSatisfy { $0.magnitude < 1 << 44 })
            #expect(Self.choose(values) == Self.plainChoice(values), "round \(round), \(n) values, factor \(factor)")
        }
    }

    /// Real times of a 1 Hz track in milliseconds (constant steps, a pause), and a column
    /// that is all one value: divisors and orders as the plain way finds them.
    @Test func constantStepsAndConstantColumns() {
        let times = (0..<3600).map { Int64(1_767_225_600_000) + Int64($0) * 1000 + ($0 > 1800 ? 60_000 : 0) }
        #expect(Self.choose(times) == Self.plainChoice(times))
        for value: Int64 in [0, 1, -7, 123_456_789] {
            let column = [Int64](repeating: value, count: 500)
            #expect(Self.choose(column) == Self.plainChoice(column), "\(value)")
        }
    }

    /// Values anywhere in Int64 (distances of Int64.min, sums past 2^63): the choice may
    /// differ from the plain way's doubles, but its model encodes the column, and the
    /// column decodes back.
    @Test func extremeColumnsRoundTripWithTheChosenModel() throws {
        var g = SeededGenerator(state: 0xE7)
        let edges: [Int64] = [.min, .max, 0, -1, 1, 1 << 62, -(1 << 62), 1 << 50, -(1 << 50)]
        for round in 0..<300 {
            let n = [3, 10, 64, 257, 1000].randomElement(using: &g)!
            let values: [Int64] = (0..<n).map { _ in
                switch Int.random(in: 0..<3, using: &g) {
                case 0: return edges.randomElement(using: &g)!
                case 1: return Int64.random(in: .min ... .max, using: &g)
                default: return Int64.random(in: -1000...1000, using: &g) << Int64.random(in: 0...62, using: &g)
                }
            }
            let model = Self.choose(values)
            #expect((0...2).contains(model.order) && model.divisor >= 1, "round \(round): \(model)")
            try ResidualEncoderAttackTests.check(values, model: model, "round \(round)")
        }
        // Residual distances of Int64.min beside a shared factor: the divisor becomes 1,
        // as the plain way's greatest common divisor makes it.
        for values: [Int64] in [[0, 0, Int64.min, 0, 1 << 40, 0, Int64.min, 0],
                                [0, 0, 1 << 40, 0, 0, Int64.min, 0, 0, 0, 0],
                                [5, 5, 5 + (1 << 40), 5, 5, 5 &+ Int64.min, 5, 5, 5, 5]] {
            let model = Self.choose(values)
            #expect(model == Self.plainChoice(values), "\(values)")
            #expect(model.divisor == 1, "\(values): \(model)")
        }
    }
}
