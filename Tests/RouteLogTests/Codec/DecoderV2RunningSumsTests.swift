import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// The four-stream decoder turns residuals into values as it reads them (running sums
/// once or twice from the column's start values); shorter columns and columns with
/// zero runs are summed in a pass after. Both ways must give the column's values, for
/// every order, bias and divisor, at every length around the four-stream split, the
/// loop's tail of 1 to 3 values included, and with sums that wrap around Int64.
@Suite struct DecoderV2RunningSumsTests {
    static func column(_ count: Int, _ g: inout SeededGenerator, wrapping: Bool) -> [Int64] {
        var values: [Int64] = []
        var value = Int64.random(in: -1_000_000...1_000_000, using: &g), step: Int64 = 3
        for _ in 0..<count {
            step &+= Int64.random(in: -40...40, using: &g) * 5
            value &+= wrapping ? Int64.random(in: Int64.min...Int64.max, using: &g) : step
            values.append(value)
        }
        return values
    }

    @Test(arguments: 0...2)
    func everyOrderDecodesToItsValues(order: Int) throws {
        var g = SeededGenerator(state: UInt64(31 + order))
        for count in [order + 1, 200, 255, 256, 257, 258, 259, 260, 261, 262, 263, 1000, 3601] {
            for wrapping in [false, true] {
                let values = Self.column(count, &g, wrapping: wrapping)
                // A bias and divisor the residuals do not fit: the writer falls back to
                // divisor 1 (the decoder still applies the bias it was sent).
                for model in [ResidualModel(order: order, bias: 0, divisor: 1), ResidualModel(order: order, bias: 15, divisor: 5)] {
                    let (bytes, _) = EncoderV2EdgeTests.both(values, model: model)
                    let decoded = try EncoderV2EdgeTests.decode(bytes, count: count)
                    let wrong = values.indices.first { $0 >= decoded.count || decoded[$0] != values[$0] }
                    #expect(decoded.count == values.count && wrong == nil,
                            "order \(order), \(count) values, wrapping \(wrapping), model \(model): first wrong value at \(wrong ?? -1)")
                }
            }
        }
    }
}
