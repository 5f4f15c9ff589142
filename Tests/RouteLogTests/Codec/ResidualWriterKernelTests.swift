import CRouteLogSystem
import Foundation
import Testing
@testable import RouteLog

/// The save's C write loop for a version 2 column's streams (`routelog_write_residual_streams`):
/// both its paths (with BMI2 and portable) against the same streams written one value
/// at a time through the reference's puts (``ReferenceBitStreamWriter``), for one, two and
/// four streams, counts of residuals around the loop's groups, and values of every size,
/// among them values too long for one put (the loop's slow path) and codes short enough
/// that two, four or eight values share a put (its groups).
@Suite struct ResidualWriterKernelTests {
    typealias Writer = (UnsafePointer<UInt64>?, UnsafePointer<UInt8>?, Int, Int, UnsafePointer<UInt64>?,
                        UnsafePointer<UInt64>?, UInt32, UnsafePointer<UnsafeMutablePointer<UInt8>?>?,
                        UnsafeMutablePointer<Int>?) -> Void

    /// The most bits one put of the C writers takes (MAX_PUT in residual_writer.c).
    static let maxPut = 56

    /// u values for a column: small ones, or small ones with a few of every magnitude.
    static func values(_ count: Int, large: Bool, _ g: inout SeededGenerator) -> [UInt64] {
        (0..<count).map { i in
            if large && i % 7 == 3 { return UInt64.random(in: 0 ... .max, using: &g) >> UInt64.random(in: 0...63, using: &g) }
            return UInt64.random(in: 1...60, using: &g)
        }
    }

    /// The streams as the one-value-at-a-time writer makes them.
    static func expected(_ u: [UInt64], count: Int, plan: CodePlan) -> [[UInt8]] {
        (0..<count).map { s in
            let capacity = 10 * (u.count / count + 1) + 16
            let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            defer { bytes.deallocate() }
            var writer = ReferenceBitStreamWriter(bytes)
            for j in stride(from: s, to: u.count, by: count) { plan.referencePut(u[j], &writer) }
            let length = writer.finish()
            return Array(UnsafeBufferPointer(start: bytes, count: length))
        }
    }

    static func written(_ u: [UInt64], tokens: [UInt8], count: Int, plan: CodePlan, with writer: Writer,
                        longest: Int? = nil) -> [[UInt8]] {
        let region = 10 * (u.count / count + 1) + 8
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: count * region)
        defer { bytes.deallocate() }
        bytes.initialize(repeating: 0xA5, count: count * region)  // the writer may not rely on zeros
        let starts: [UnsafeMutablePointer<UInt8>?] = (0..<count).map { bytes + $0 * region }
        var lengths = [Int](repeating: -1, count: count)
        starts.withUnsafeBufferPointer { out in
            writer(u, tokens, u.count, count, plan.sendTable, plan.extraMaskTable, UInt32(longest ?? plan.longestValue),
                   out.baseAddress, &lengths)
        }
        return (0..<count).map { Array(UnsafeBufferPointer(start: bytes + $0 * region, count: lengths[$0])) }
    }

    /// A `longest` below what the table's values take (0, 1, or one short) would size
    /// groups past the 64-bit buffer: the writers read the table's own and write the same
    /// streams as with the true count.
    @Test func aLongestCountTooShortIsNotTrusted() {
        var g = SeededGenerator(state: 7272)
        for round in 0..<60 {
            let k = [8, 9, 64, 255, 3600][round % 5]
            let count = [1, 2, 4][round % 3]
            // Values of 20 to 40 bits: groups of one or two when told the truth, of eight
            // when told 1 or 0.
            let u = (0..<k).map { _ in UInt64.random(in: (1 << 19)...(1 << 40), using: &g) }
            let tokens = u.map { UInt8(ResidualToken.token($0)) }
            var counts = [UInt32](repeating: 0, count: FormatConstants.ColumnV2.valueTokens)
            for t in tokens { counts[Int(t)] += 1 }
            let plan = tokens.withUnsafeBufferPointer { t in
                counts.withUnsafeBufferPointer { CodePlan(tokens: t, tokenCounts: $0) }
            }
            #expect(plan.longestValue > 20)
            let expected = Self.expected(u, count: count, plan: plan)
            for told in [0, 1, plan.longestValue - 1] {
                for (name, writer) in [("dispatched", routelog_write_residual_streams as Writer),
                                       ("portable", routelog_write_residual_streams_portable as Writer)] {
                    let got = Self.written(u, tokens: tokens, count: count, plan: plan, with: writer, longest: told)
                    #expect(got == expected, "\(name), round \(round), told \(told) of \(plan.longestValue)")
                }
            }
        }
    }

    /// Long values among short ones (groups of eight when the long ones are missed),
    /// its token at an even and at an odd place of the table: the writers find it
    /// wherever it is when told a count of 0 or 1.
    @Test func aLongTokenAmongShortOnesIsFoundAtAnyPlaceOfTheTable() {
        for parity in [0, 1] {
            for k in [64, 3600] {
                // 30-some bits: 2^30, or 2^30 + 2^28, the next token, for the other parity.
                let first = UInt64(1) << 30
                let long = ResidualToken.token(first) % 2 == parity ? first : first | 1 << 28
                // Thirty-two of them in a row, so that every stream has groups of them.
                var u = (0..<k).map { UInt64($0 % 3 + 1) }
                for j in (k / 2)..<(k / 2 + 32) { u[j] = long }
                let tokens = u.map { UInt8(ResidualToken.token($0)) }
                var counts = [UInt32](repeating: 0, count: FormatConstants.ColumnV2.valueTokens)
                for t in tokens { counts[Int(t)] += 1 }
                let plan = tokens.withUnsafeBufferPointer { t in
                    counts.withUnsafeBufferPointer { CodePlan(tokens: t, tokenCounts: $0) }
                }
                #expect(plan.longestValue > 28, "one value a put when told the truth")
                for count in [1, 4] {
                    let expected = Self.expected(u, count: count, plan: plan)
                    for told in [0, 1] {
                        for (name, writer) in [("dispatched", routelog_write_residual_streams as Writer),
                                               ("portable", routelog_write_residual_streams_portable as Writer)] {
                            let got = Self.written(u, tokens: tokens, count: count, plan: plan, with: writer, longest: told)
                            #expect(got == expected, "\(name): token \(ResidualToken.token(long)), \(k) values, \(count) streams, told \(told)")
                        }
                    }
                }
            }
        }
    }

    @Test func bothPathsWriteWhatTheValueAtATimeWriterWrites() {
        var g = SeededGenerator(state: 5151)
        var slowPathRounds = 0, pairedRounds = 0
        for round in 0..<240 {
            let k = [1, 2, 3, 7, 8, 9, 15, 16, 17, 255, 256, 263, 3599, 3600][round % 14]
            let count = [1, 2, 4][round % 3]
            let u = Self.values(k, large: round % 4 == 1, &g)
            let tokens = u.map { UInt8(ResidualToken.token($0)) }
            var counts = [UInt32](repeating: 0, count: FormatConstants.ColumnV2.valueTokens)
            for t in tokens { counts[Int(t)] += 1 }
            let plan = tokens.withUnsafeBufferPointer { t in
                counts.withUnsafeBufferPointer { CodePlan(tokens: t, tokenCounts: $0) }
            }
            #expect(!plan.runs, "round \(round): values from 1 up have no zero runs")
            if plan.longestValue > Self.maxPut { slowPathRounds += 1 }
            if 2 * plan.longestValue <= Self.maxPut && count != 2 && k >= 8 { pairedRounds += 1 }
            let expected = Self.expected(u, count: count, plan: plan)
            for (name, writer) in [("dispatched", routelog_write_residual_streams as Writer),
                                   ("portable", routelog_write_residual_streams_portable as Writer)] {
                let got = Self.written(u, tokens: tokens, count: count, plan: plan, with: writer)
                #expect(got == expected, "\(name), round \(round): \(k) values in \(count) streams")
            }
        }
        #expect(slowPathRounds > 10, "values longer than one put were written")
        #expect(pairedRounds > 50, "values two to a put were written")
    }

    /// The values the C loops add to a stream before they store it: 8, 4 or 2 when that
    /// many of the longest value fit one put, else 1 (write_streams in residual_writer.c).
    static func group(longest: Int) -> Int {
        [8, 4, 2].first { $0 * longest <= maxPut } ?? 1
    }

    /// Every group size in every stream count, with counts of residuals that leave every
    /// remainder after the whole groups of each stream (and none), and values from 1 up
    /// to a cap that makes the code's longest value fall in each group's range, up to
    /// values of 2^52 and more and the largest there is; and values all between 2^e and
    /// 2^(e + 1) (four tokens, as often each: codes of 2 bits, e bits a value), so that
    /// every value is as long as the longest, which is at and one past each group's limit:
    /// both paths against the one-value-at-a-time writer.
    @Test func everyGroupOfValuesAPutWritesWhatTheValueAtATimeWriterWrites() {
        var g = SeededGenerator(state: 6262)
        var rounds: [Int: Int] = [:]
        for round in 0..<900 {
            let count = [1, 2, 4][round % 3]
            // Up to a few whole rounds of groups of eight in each stream, and one long column.
            let k = round % 50 == 0 ? 3600 + round / 50 : Int.random(in: 0...(8 * count * 4 + 7), using: &g)
            let cap: UInt64 = [2, 7, 15, 60, 1_000, 1 << 20, 1 << 40, 1 << 52, 1 << 53, .max][(round / 3) % 10]
            let e: UInt64 = [6, 7, 8, 13, 14, 15, 27, 28, 29][(round / 30) % 9]
            let u: [UInt64] = (0..<k).map { i in
                if round % 2 == 1 { return UInt64.random(in: (1 << e)...((2 << e) - 1), using: &g) }
                if cap > 1 << 50 && i % 5 == 0 { return [cap, cap - 1, cap &+ 1, 1 << 52, (1 << 52) - 1, .max][i % 6] }
                return UInt64.random(in: 1...max(1, cap), using: &g)
            }
            let tokens = u.map { UInt8(ResidualToken.token($0)) }
            var counts = [UInt32](repeating: 0, count: FormatConstants.ColumnV2.valueTokens)
            for t in tokens { counts[Int(t)] += 1 }
            let plan = tokens.withUnsafeBufferPointer { t in
                counts.withUnsafeBufferPointer { CodePlan(tokens: t, tokenCounts: $0) }
            }
            if k > 0 { rounds[Self.group(longest: plan.longestValue), default: 0] += 1 }
            let expected = Self.expected(u, count: count, plan: plan)
            for (name, writer) in [("dispatched", routelog_write_residual_streams as Writer),
                                   ("portable", routelog_write_residual_streams_portable as Writer)] {
                let got = Self.written(u, tokens: tokens, count: count, plan: plan, with: writer)
                #expect(got == expected,
                        "\(name), round \(round): \(k) values up to \(cap) in \(count) streams, longest \(plan.longestValue)")
            }
        }
        for group in [8, 4, 2, 1] { #expect(rounds[group, default: 0] >= 60, "values \(group) a put: \(rounds)") }
    }

    /// Four streams side by side, one in each lane of a vector (AVX2:
    /// write_four_streams_avx2, which routelog_write_residual_streams takes for four
    /// streams on processors with it), against the one-stream-after-another writers (BMI2
    /// and portable) and the value-at-a-time writer: each stream with values of its own
    /// size (so the lanes' buffers fill unevenly), one of them from 48 bits to the largest
    /// u (the code's longest value at, under and past one put: groups of one value, and
    /// no lanes), runs of zeros, the largest value of each size every eleventh residual,
    /// and counts of residuals that leave every remainder of steps of four and of groups.
    @Test func fourLanesWriteWhatTheScalarWritersWrite() {
        var g = SeededGenerator(state: 8383)
        var rounds: [Int: Int] = [:]
        var longestAtOnePut = 0, pastOnePut = 0
        for round in 0..<600 {
            let k = round % 30 == 0 ? 3600 + round / 30 : Int.random(in: 0...(4 * 8 * 3 + 11), using: &g)
            let long = UInt64.random(in: 48...64, using: &g)
            let widths: [UInt64] = [[1, 3, 5, 7], [2, 13, 6, 1], [27, 3, 26, 1], [12, 2, 1, 11], [long, 1, 3, 2],
                                    [4, 4, 4, long], [6, long, 1, long - 2], [1, 2, 3, 2]][round % 8]
            let u: [UInt64] = (0..<k).map { j in
                if round % 3 == 0 && (j / 4) % 9 < 4 { return 0 }
                let top: UInt64 = widths[j % 4] >= 64 ? .max : (1 << widths[j % 4]) - 1
                return j % 11 == 5 ? top : UInt64.random(in: 0...top, using: &g)
            }
            let tokens = u.map { UInt8(ResidualToken.token($0)) }
            var counts = [UInt32](repeating: 0, count: FormatConstants.ColumnV2.valueTokens)
            for t in tokens { counts[Int(t)] += 1 }
            let plan = tokens.withUnsafeBufferPointer { t in
                counts.withUnsafeBufferPointer { CodePlan(tokens: t, tokenCounts: $0) }
            }
            if k >= 4 { rounds[Self.group(longest: plan.longestValue), default: 0] += 1 }
            if plan.longestValue > Self.maxPut - 4 && plan.longestValue <= Self.maxPut { longestAtOnePut += 1 }
            if plan.longestValue > Self.maxPut { pastOnePut += 1 }
            let expected = Self.expected(u, count: 4, plan: plan)
            for (name, writer) in [("dispatched", routelog_write_residual_streams as Writer),
                                   ("scalar", routelog_write_residual_streams_scalar as Writer),
                                   ("portable", routelog_write_residual_streams_portable as Writer)] {
                let got = Self.written(u, tokens: tokens, count: 4, plan: plan, with: writer)
                #expect(got == expected, "\(name), round \(round): \(k) values, longest \(plan.longestValue)")
            }
        }
        for group in [8, 4, 2, 1] { #expect(rounds[group, default: 0] >= 40, "values \(group) a put: \(rounds)") }
        #expect(longestAtOnePut >= 10, "longest values of 53 to 56 bits: \(longestAtOnePut)")
        #expect(pastOnePut >= 40, "values past one put: \(pastOnePut)")
    }
}
