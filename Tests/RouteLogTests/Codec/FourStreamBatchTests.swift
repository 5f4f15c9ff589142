import CRouteLogSystem
import Testing
@testable import RouteLog

/// The four-stream loop makes each batch's values while it reads the next batch's tokens
/// (residual_streams.c, decode_four): the last batch's values come after the loop, and
/// the running sums pass from batch to batch and back to the checked loop that reads the
/// rest. Here the C loops are stopped after every count of batches around those edges (a
/// cap on the values they may read), and what they leave to the checked loop must give
/// the values and errors of the checked loop alone, for every order, divisors of 1 and
/// more, values an entry cannot hold, wrapping sums, and damaged streams.
@Suite struct FourStreamBatchTests {
    /// The C loops, stopped after at most `cap` values (none: the checked loop reads all).
    static let capped: [(cap: Int, loops: [DecodeLoops])] = {
        func loops(_ processor: FourStreamLoop, _ portable: FourStreamLoop) -> [DecodeLoops] {
            [DecodeLoops(fourStreams: processor, runStream: routelog_decode_run_stream),
             DecodeLoops(fourStreams: portable, runStream: routelog_decode_run_stream_portable)]
        }
        // A C function pointer captures nothing, so each cap is a closure of its own.
        return [
            (31, loops({ routelog_decode_four_streams($0, $1, min($2, 31)) }, { routelog_decode_four_streams_portable($0, $1, min($2, 31)) })),
            (32, loops({ routelog_decode_four_streams($0, $1, min($2, 32)) }, { routelog_decode_four_streams_portable($0, $1, min($2, 32)) })),
            (63, loops({ routelog_decode_four_streams($0, $1, min($2, 63)) }, { routelog_decode_four_streams_portable($0, $1, min($2, 63)) })),
            (64, loops({ routelog_decode_four_streams($0, $1, min($2, 64)) }, { routelog_decode_four_streams_portable($0, $1, min($2, 64)) })),
            (97, loops({ routelog_decode_four_streams($0, $1, min($2, 97)) }, { routelog_decode_four_streams_portable($0, $1, min($2, 97)) })),
            (.max, loops(routelog_decode_four_streams, routelog_decode_four_streams_portable)),
        ]
    }()

    /// The checked loop alone: the C loop reads nothing.
    static let plain = DecodeLoops(fourStreams: { _, _, _ in 0 }, runStream: routelog_decode_run_stream_portable)

    /// Columns whose counts put the block's end (where the C loop stops for the reach)
    /// around each batch edge too, with one of each kind of value in the second batch.
    static func columns(_ g: inout SeededGenerator) -> [(values: [Int64], model: ResidualModel?)] {
        var columns: [(values: [Int64], model: ResidualModel?)] = []
        for order in 0...2 {
            for (n, divisor) in [(256, 1), (258, 3), (288, 1), (290, 7), (300, 1 << 20), (1001, 1)] {
                let k = n - order
                var value: Int64 = 0
                let values = (0..<n).map { i -> Int64 in
                    let step: Int64 = switch i {
                    case 40: 1 << 52  // a base of 2^48 or more: read by hand
                    case 41: Int64.max  // wrapping sums
                    case 42...44: Int64.min
                    case k - 1: -(1 << 40)
                    default: Int64.random(in: -60...60, using: &g)
                    }
                    value = value &+ step &* Int64(divisor)
                    return value
                }
                let model = divisor == 1 && order % 2 == 0 ? nil : ResidualModel(order: order, bias: 5, divisor: Int64(divisor))
                columns.append((values, model))
            }
        }
        return columns
    }

    @Test func everyBatchCountGivesTheCheckedLoopsValuesAndErrors() {
        var g = SeededGenerator(state: 2026)
        var fourStreams = 0
        for (round, (values, model)) in Self.columns(&g).enumerated() {
            let (column, _) = EncoderV2EdgeTests.both(values, model: model)
            guard column[1] & FormatConstants.ColumnV2.streamMask == 2 << FormatConstants.ColumnV2.streamShift else { continue }
            fourStreams += 1
            let n = values.count
            let plain = ResidualKernelTests.decode(column, count: n, with: Self.plain)
            #expect(plain == .values(values), "round \(round)")
            for (cap, loops) in Self.capped {
                for (l, loop) in loops.enumerated() {
                    let outcome = ResidualKernelTests.decode(column, count: n, with: loop)
                    #expect(outcome == plain, "round \(round), cap \(cap), loop \(l)")
                }
            }
            for _ in 0..<6 {
                let damage = (0..<Int.random(in: 1...2, using: &g)).map { _ in
                    (offset: Int.random(in: 0..<column.count, using: &g), xor: UInt8.random(in: 1...255, using: &g))
                }
                let expected = ResidualKernelTests.decode(column, count: n, damage: damage, with: Self.plain)
                for (cap, loops) in Self.capped {
                    for (l, loop) in loops.enumerated() {
                        let outcome = ResidualKernelTests.decode(column, count: n, damage: damage, with: loop)
                        #expect(outcome == expected, "round \(round), cap \(cap), loop \(l), damage \(damage)")
                    }
                }
            }
        }
        #expect(fourStreams >= 15, "\(fourStreams) columns with four streams")
    }
}
