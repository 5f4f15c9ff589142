import CRouteLogSystem
import Foundation
import Testing
@testable import RouteLog

/// The version 2 encoder on columns built at the edges of its fast paths: values just
/// inside and just past the two-values-a-put limit (28 bits of code and extra bits),
/// zero runs starting and ending at every offset of an 8-byte word and at the end of the
/// column, values of 57 to 72 bits, and streams of every length around the four-stream
/// split. Each column must be written byte for byte as the reference copy of the
/// earlier encoder writes it, and must decode to its values.
@Suite struct EncoderV2EdgeTests {
    /// Order 0, no bias, divisor 1: each residual is its value, so a test picks the tokens.
    static let plain = ResidualModel(order: 0, bias: 0, divisor: 1)

    /// Both encoders' bytes for one altitude column, with `model` or the one each would choose.
    static func both(_ values: [Int64], model: ResidualModel? = nil) -> (new: [UInt8], reference: [UInt8]) {
        EncoderV2ReferenceTests.bothColumns(values, model: model)
    }

    /// A whole block of `count` points: the required columns all 0, then `column` (an
    /// altitude column's bytes), last.
    static func block(around column: [UInt8], count: Int) -> [UInt8] {
        let zeros = [Int64](repeating: 0, count: count)
        var out = ByteWriter()
        out.u8(FormatConstants.Compression.columnsV2.rawValue)
        out.varint(count)
        out.varint(4)
        zeros.withUnsafeBufferPointer { z in
            let encoder = ColumnEncoderV2(capacity: count)
            defer { encoder.deallocate() }
            for tag in [FormatConstants.ColumnTag.latitude, .longitude, .time] {
                encoder.encode(tag: tag, values: z, presence: nil, to: &out)
            }
        }
        out.append(contentsOf: column)
        return out.bytes
    }

    /// The values of `column` (an altitude column's bytes) read back through a whole
    /// block whose required columns are all 0: any integers, not held to an altitude's
    /// limits (the codec's tests put every integer in a column).
    static func decode(_ column: [UInt8], count: Int) throws -> [Int64] {
        let columns = try PointBlockV2.decodeColumns(block(around: column, count: count)[...], checkingStoredLimits: false)
        let values = try #require(columns.optional.first).column.values
        return (0..<values.count).map { values.base[$0] }
    }

    /// Encodes `values` both ways, expects equal bytes, and expects them to decode back.
    static func check(_ values: [Int64], model: ResidualModel? = nil, _ comment: @autoclosure () -> String) throws {
        let (new, reference) = both(values, model: model)
        #expect(new == reference, "\(comment())")
        guard !values.isEmpty else { return }
        #expect(try decode(new, count: values.count) == values, "\(comment())")
    }

    /// The value whose residual (order 0, no bias) is `u`: zigzag's inverse.
    static func value(_ u: UInt64) -> Int64 { ResidualToken.unzigzag(u) }

    /// The longest value (code and extra bits) of the plan the encoder makes for
    /// residuals `u`: what decides between one value a put and two.
    static func longestValue(_ u: [UInt64]) -> Int {
        let tokens = u.map { UInt8(ResidualToken.token($0)) }
        var counts = [UInt32](repeating: 0, count: FormatConstants.ColumnV2.valueTokens)
        for t in tokens { counts[Int(t)] += 1 }
        return tokens.withUnsafeBufferPointer { t in
            counts.withUnsafeBufferPointer { CodePlan(tokens: t, tokenCounts: $0).longestValue }
        }
    }

    @Test func theEdgeColumnsReachThePathsTheyAreMeantTo() {
        // Two tokens, 1-bit codes: e - 1 bits, on either side of 28.
        #expect(Self.longestValue([1, 1 << 29]) == 28)
        #expect(Self.longestValue([1, 1 << 30]) == 29)
        // The halving chain: a 9-bit code (the longest the writer makes) and 61 extra bits.
        var chain: [UInt64] = [.max, .max - 1]
        for t in 1...12 { chain += [UInt64](repeating: UInt64(t), count: 1 << (12 - t)) }
        #expect(Self.longestValue(chain) == FormatConstants.ColumnV2.writtenCodeLength + 61)
    }

    @Test func valuesAroundThePairedPutLimitMatchTheReference() throws {
        var g = SeededGenerator(state: 2828)
        // A value with top bit e has e - 2 extra bits; with two tokens both codes are
        // 1 bit long, so the longest value is e - 1 bits: 28 at e = 29, 29 at e = 30.
        for e in 24...34 {
            for n in [1, 2, 3, 4, 5, 8, 255, 256, 257, 258, 259, 1001] {
                let big = (0..<n).map { i -> Int64 in
                    i % 3 == 1 ? Self.value(1) : Self.value(UInt64(1) << UInt64(e) | UInt64.random(in: 0..<(1 << UInt64(e)), using: &g))
                }
                try Self.check(big, model: Self.plain, "two tokens, e \(e), \(n) values")
                // Many small tokens make the rare large one's code long: up to 9 bits, the longest the writer makes.
                let skewed = (0..<n).map { i -> Int64 in
                    i % 97 == 5 ? Self.value(UInt64(1) << UInt64(e) | UInt64.random(in: 0..<(1 << UInt64(e)), using: &g))
                        : Self.value(UInt64.random(in: 0...200, using: &g))
                }
                try Self.check(skewed, model: Self.plain, "skewed, e \(e), \(n) values")
            }
        }
    }

    @Test func randomMixturesMatchTheReference() throws {
        var g = SeededGenerator(state: 31337)
        for round in 0..<600 {
            let n = [Int.random(in: 1...20, using: &g), Int.random(in: 250...270, using: &g),
                     Int.random(in: 1...5000, using: &g)][round % 3]
            let exponents = (0..<Int.random(in: 1...6, using: &g)).map { _ in Int.random(in: 0...63, using: &g) }
            let zeroShare = [0.0, 0.05, 0.5, 0.95][Int.random(in: 0..<4, using: &g)]
            let values = (0..<n).map { _ -> Int64 in
                if Double.random(in: 0..<1, using: &g) < zeroShare { return 0 }
                let e = exponents.randomElement(using: &g)!
                let top: UInt64 = e == 0 ? UInt64.random(in: 0...1, using: &g) : UInt64(1) << UInt64(e)
                let low: UInt64 = e == 0 ? 0 : UInt64.random(in: 0 ... .max, using: &g) & ((1 << UInt64(e)) - 1)
                return Self.value(top | low)
            }
            try Self.check(values, model: Self.plain, "round \(round): \(n) values, exponents \(exponents), zeros \(zeroShare)")
            // And with the model the encoder chooses (orders 1 and 2, bias, divisor).
            let (new, reference) = Self.both(values)
            #expect(new == reference, "round \(round), chosen model")
        }
    }

    @Test func zeroRunsAtEveryWordOffsetMatchTheReference() throws {
        // A run of `length` zeros starting at `offset`, the rest 1s, then the same with
        // the run reaching the column's end.
        for offset in 0...17 {
            for length in 1...40 {
                for tail in [0, 1, 9] {
                    var values = [Int64](repeating: 1, count: offset + length + tail)
                    for i in offset..<(offset + length) { values[i] = 0 }
                    try Self.check(values, model: Self.plain, "run of \(length) at \(offset), \(tail) after")
                }
            }
        }
    }

    @Test func alternatingRunsMatchTheReference() throws {
        var g = SeededGenerator(state: 808)
        for round in 0..<300 {
            var values: [Int64] = []
            let target = Int.random(in: 1...600, using: &g)
            while values.count < target {
                values += [Int64](repeating: 0, count: Int.random(in: 0...20, using: &g))
                values += (0..<Int.random(in: 0...3, using: &g)).map { _ in
                    [Int64.min, .max, 1, -1, 1 << 40][Int.random(in: 0..<5, using: &g)]
                }
            }
            try Self.check(values, model: Self.plain, "round \(round)")
        }
    }

    @Test func extremeColumnsMatchTheReference() throws {
        for n in [1, 2, 3, 4, 255, 256, 257, 4096, 4097, 4099] {
            try Self.check([Int64](repeating: 0, count: n), model: Self.plain, "\(n) zeros")
            try Self.check([Int64](repeating: .min, count: n), model: Self.plain, "\(n) Int64.min")
            try Self.check([Int64](repeating: .max, count: n), model: Self.plain, "\(n) Int64.max")
            try Self.check((0..<n).map { $0 % 2 == 0 ? .min : .max }, model: Self.plain, "\(n) alternating min and max")
            try Self.check((0..<n).map { $0 % 2 == 0 ? .min : .max }, "\(n) alternating, chosen model")
            try Self.check((0..<n).map { $0 % 2 == 0 ? .min : 0 }, model: Self.plain, "\(n) min and 0")
            // Every value 72 bits (11-bit codes and 61 extra bits): the worst case a value.
            var g = SeededGenerator(state: UInt64(n))
            let spread = (0..<n).map { i -> Int64 in
                i % 300 == 0 ? .min : Self.value(UInt64(1) << UInt64(40 + i % 24) | UInt64.random(in: 0..<(1 << 40), using: &g))
            }
            try Self.check(spread, model: Self.plain, "\(n) spread over exponents 40-63")
        }
    }

    @Test func theLongestCodesWithTheMostExtraBitsMatchTheReference() throws {
        // Token t (1...12) 2^(12 - t) times and u = UInt64.max (token 255, 61 extra
        // bits) a few times: a chain of halving weights gives the rare tokens the longest
        // codes the writer makes (9 bits), so one value is 70 bits, over one put's 56.
        var g = SeededGenerator(state: 7272)
        for rare in [1, 2, 5] {
            for zeros in [0, 300, 3000] {
                var values: [Int64] = []
                for t in 1...12 { values += [Int64](repeating: Self.value(UInt64(t)), count: 1 << (12 - t)) }
                values += [Int64](repeating: Self.value(.max), count: rare)
                values += [Int64](repeating: Self.value(.max - 1), count: rare)
                values.shuffle(using: &g)
                // Zeros in runs of 100, with 50 values between one run and the next.
                for run in 0..<(zeros / 100) { values.insert(contentsOf: [Int64](repeating: 0, count: 100), at: 150 * run) }
                try Self.check(values, model: Self.plain, "\(rare) rare, \(zeros) zeros")
                // With zero runs among them the runs stream carries the 72-bit values.
                let encoding = Self.both(values, model: Self.plain).new[1]
                #expect((encoding & FormatConstants.ColumnV2.zeroRuns != 0) == (zeros > 0), "\(rare) rare, \(zeros) zeros")
                try Self.check(Array(values.prefix(300)), model: Self.plain, "first 300: \(rare) rare, \(zeros) zeros")
            }
        }
    }

    @Test func columnsOfTheMostPointsMatchTheReference() throws {
        let n = FormatConstants.ColumnV2.maxPoints
        // The longest zero run a block can hold, ending at the column's end and before it.
        try Self.check([1] + [Int64](repeating: 0, count: n - 1), model: Self.plain, "one value, then the longest run")
        try Self.check([Int64](repeating: 0, count: n - 1) + [.min], model: Self.plain, "the longest run, then Int64.min")
        var g = SeededGenerator(state: 1_000_000)
        let huge = (0..<n).map { _ in Int64.random(in: .min ... .max, using: &g) }
        try Self.check(huge, model: Self.plain, "random 64-bit values in four streams")
    }

    @Test func theRunWriterStoresNoFurtherThanEightBytesPastItsStream() {
        // Memory of exactly the stream's bytes and 8 more (what the writer asks of its
        // caller), so that a store past it is caught by the address sanitizer; the bytes
        // must be the reference writer's.
        var g = SeededGenerator(state: 5656)
        var rounds = 0
        for round in 0..<600 {
            // Runs of zeros of every length up to 200, each after a value of any size.
            var u: [UInt64] = []
            let target = Int.random(in: 1...600, using: &g)
            while u.count < target {
                u += [UInt64](repeating: 0, count: Int.random(in: 0...1, using: &g) == 0 ? Int.random(in: 1...9, using: &g) : Int.random(in: 1...200, using: &g))
                u.append(Int.random(in: 0..<4, using: &g) == 0 ? UInt64.random(in: 1 ... .max, using: &g) >> UInt64.random(in: 0...63, using: &g)
                                                              : UInt64.random(in: 1...40, using: &g))
            }
            if Bool.random(using: &g) { u += [UInt64](repeating: 0, count: Int.random(in: 1...70, using: &g)) }
            let k = u.count
            let tokens = u.map { UInt8(ResidualToken.token($0)) }
            var counts = [UInt32](repeating: 0, count: FormatConstants.ColumnV2.valueTokens)
            for t in tokens { counts[Int(t)] += 1 }
            let plan = tokens.withUnsafeBufferPointer { t in
                counts.withUnsafeBufferPointer { CodePlan(tokens: t, tokenCounts: $0) }
            }
            guard plan.runs else { continue }
            rounds += 1
            let reference = plan.referenceRunStream(u)
            let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: reference.count + 8)
            defer { memory.deallocate() }
            for (name, writer) in [("dispatched", routelog_write_run_stream), ("portable", routelog_write_run_stream_portable)] {
                let length = writer(u, tokens, k, plan.sendTable, plan.extraMaskTable, memory)
                #expect(length == reference.count, "\(name), round \(round)")
                #expect(Array(UnsafeBufferPointer(start: memory, count: min(length, reference.count))) == reference,
                        "\(name), round \(round)")
            }
        }
        #expect(rounds > 300, "only \(rounds) columns chose zero runs")
    }
}
