import CRouteLogSystem
import Foundation
import Testing
@testable import RouteLog

/// The C loops of the version 2 codec: the save's tokenizer and order costs, and the
/// load's four-stream and zero-run loops. Each has a path for processors with LZCNT and
/// BMI2 (the tokenizer also AVX2) and a portable one; the tests run on one kind of
/// processor, so both paths are called directly and compared, with each other and with
/// the Swift definitions (ResidualToken, ExactDivision), on values of every size (four at
/// a time with one of 2^52 or more among them), divisors that divide and that do not,
/// and damaged streams.
@Suite struct ResidualKernelTests {
    /// Random 64-bit patterns of every magnitude: small, near powers of two, huge.
    static func patterns(_ count: Int, _ g: inout SeededGenerator) -> [UInt64] {
        (0..<count).map { i in
            let e = UInt64.random(in: 0...63, using: &g)
            switch i % 4 {
            case 0: return UInt64.random(in: 0...40, using: &g)
            case 1: return (1 << e) &- UInt64.random(in: 0...2, using: &g)
            case 2: return UInt64.random(in: 0 ... .max, using: &g) >> UInt64.random(in: 0...63, using: &g)
            default: return 0 &- UInt64.random(in: 0...1000, using: &g)  // small negative residuals
            }
        }
    }

    /// What the tokenizer must give, from the Swift definitions.
    static func expectedTokens(_ residuals: [UInt64], divisor: Int64) -> (u: [UInt64], tokens: [UInt8], counts: [UInt32])? {
        let division = ExactDivision(divisor)
        var u: [UInt64] = [], tokens: [UInt8] = [], counts = [UInt32](repeating: 0, count: 256)
        for r in residuals {
            guard let q = divisor == 1 ? Int64(bitPattern: r) : division.quotient(Int64(bitPattern: r)) else { return nil }
            let value = ResidualToken.zigzag(q), token = ResidualToken.token(value)
            u.append(value)
            tokens.append(UInt8(token))
            counts[token] += 1
        }
        return (u, tokens, counts)
    }

    typealias Tokenizer = (UnsafeMutablePointer<UInt64>?, Int, UnsafePointer<routelog_exact_division>?,
                           UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt32>?) -> Int32

    static func tokenize(_ residuals: [UInt64], divisor: Int64, with tokenizer: Tokenizer)
        -> (exact: Bool, u: [UInt64], tokens: [UInt8], counts: [UInt32]) {
        var u = residuals, tokens = [UInt8](repeating: 0xEE, count: residuals.count)
        // Garbage in the histograms: the tokenizer clears them itself.
        var counts = [UInt32](repeating: 7, count: 4 * 256)
        var spec = ExactDivision(divisor).spec
        let exact = u.withUnsafeMutableBufferPointer { uu in
            tokens.withUnsafeMutableBufferPointer { t in
                counts.withUnsafeMutableBufferPointer { c in
                    divisor == 1 ? tokenizer(uu.baseAddress, uu.count, nil, t.baseAddress, c.baseAddress)
                        : tokenizer(uu.baseAddress, uu.count, &spec, t.baseAddress, c.baseAddress)
                }
            }
        }
        return (exact == 1, u, tokens, Array(counts.prefix(256)))
    }

    @Test func bothTokenizersGiveTheSwiftTokens() {
        var g = SeededGenerator(state: 4141)
        for round in 0..<300 {
            let n = [0, 1, 2, 3, 4, 5, 7, 255, 256, 257, 3599][round % 11]
            let divisor: Int64 = [1, 1, 1000, 6, 1 << 40, 3 << 20][round % 6]
            var residuals = Self.patterns(n, &g)
            // Multiples of the divisor, but for one value in some rounds.
            if divisor != 1 {
                residuals = residuals.map { UInt64(bitPattern: Int64(bitPattern: $0 >> 24) &* divisor) }
                if round % 5 == 0, !residuals.isEmpty { residuals[Int.random(in: 0..<n, using: &g)] &+= 1 }
            }
            let expected = Self.expectedTokens(residuals, divisor: divisor)
            for (name, tokenizer) in [("dispatched", routelog_tokenize_residuals as Tokenizer),
                                      ("portable", routelog_tokenize_residuals_portable as Tokenizer)] {
                let got = Self.tokenize(residuals, divisor: divisor, with: tokenizer)
                guard let expected else {
                    #expect(!got.exact, "\(name), round \(round): a residual that is no multiple of \(divisor) went through")
                    continue
                }
                #expect(got.exact, "\(name), round \(round)")
                #expect(got.u == expected.u, "\(name), round \(round): u")
                #expect(got.tokens == expected.tokens, "\(name), round \(round): tokens")
                #expect(got.counts == expected.counts, "\(name), round \(round): counts")
            }
        }
    }

    /// A residual that is no multiple of the divisor is refused wherever it lies, by
    /// both tokenizers: its wrapped quotient falls below the smallest quotient there is
    /// as often as above the largest, so both bounds are tried.
    @Test func everyNonMultipleIsRefused() {
        var g = SeededGenerator(state: 4343)
        for divisor: Int64 in [3, 5, 6, 7, 1000, 1_000_000_007, 3 << 20] {
            for _ in 0..<200 {
                var x = Int64.random(in: .min ... .max, using: &g)
                if x % divisor == 0 { x &+= 1 }
                var residuals = (0..<Int.random(in: 1...40, using: &g)).map { _ in
                    UInt64(bitPattern: Int64.random(in: -1000...1000, using: &g) &* divisor)
                }
                residuals.insert(UInt64(bitPattern: x), at: Int.random(in: 0...residuals.count, using: &g))
                for (name, tokenizer) in [("dispatched", routelog_tokenize_residuals as Tokenizer),
                                          ("portable", routelog_tokenize_residuals_portable as Tokenizer)] {
                    #expect(!Self.tokenize(residuals, divisor: divisor, with: tokenizer).exact, "\(name): \(x) by \(divisor)")
                }
            }
        }
    }

    /// The tokenizer's vector path takes eight values a step, their tokens from the
    /// upper halves of their doubles, and eight with one of 2^52 or more the scalar way:
    /// values at each token's edges (15 and 16, each power of two and one under it, up to
    /// 2^52 and past it, Int64's extremes), a value of 2^52 or more at each of the eight
    /// places of a step or none, every count of values left after the steps, with and
    /// without a divisor.
    @Test func tokenizersAtTheEdgesOfEachStepAndToken() {
        var g = SeededGenerator(state: 4747)
        var edges: [UInt64] = [0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33]
        for e: UInt64 in 5...52 {
            let power: UInt64 = 1 << e
            edges += [power - 1, power, power + 1, power | (power >> 1)]
        }
        let large: [UInt64] = [1 << 52, (1 << 52) + 1, 1 << 53, UInt64(bitPattern: Int64.max),
                               UInt64(bitPattern: Int64.min), UInt64.max, UInt64.max - 1]
        for round in 0..<400 {
            let k = round % 4 == 0 ? 256 + round % 8 : Int.random(in: 0...40, using: &g)
            let divisor: Int64 = [1, 1, 1, 6, 1000, 1 << 20][round % 6]
            var residuals: [UInt64] = (0..<k).map { _ in
                let u = edges.randomElement(using: &g)!
                // A residual whose zigzag is u (or its neighbour): positive or negative.
                return Bool.random(using: &g) ? u >> 1 : 0 &- (u >> 1) &- 1
            }
            // Now and then one of 2^52 or more, at one place of a step.
            let place = (round / 2) % 9
            if divisor == 1, place < 8 {
                for j in stride(from: place, to: k, by: 8 * (1 + round % 3)) { residuals[j] = large.randomElement(using: &g)! }
            }
            if divisor != 1 {
                residuals = residuals.map { UInt64(bitPattern: Int64(bitPattern: $0 >> 24) &* divisor) }
            }
            let expected = Self.expectedTokens(residuals, divisor: divisor)!
            for (name, tokenizer) in [("dispatched", routelog_tokenize_residuals as Tokenizer),
                                      ("portable", routelog_tokenize_residuals_portable as Tokenizer)] {
                let got = Self.tokenize(residuals, divisor: divisor, with: tokenizer)
                #expect(got.exact, "\(name), round \(round)")
                #expect(got.u == expected.u, "\(name), round \(round): u")
                #expect(got.tokens == expected.tokens, "\(name), round \(round): tokens")
                #expect(got.counts == expected.counts, "\(name), round \(round): counts")
            }
        }
    }

    /// A quotient just outside the divisor's range (one below the smallest, one above the
    /// largest) is refused, and one at either bound goes through, in every lane of a step
    /// and in the tail: the vector tokenizer tests the range on the quotients' zigzags.
    @Test func quotientsAtTheEdgesOfTheirRange() {
        var g = SeededGenerator(state: 4949)
        for divisor: Int64 in [3, 5, 7, 1000, 1_000_000_007, 3 << 20, 6, 1 << 20, 2] {
            let division = ExactDivision(divisor), odd = divisor >> division.shift
            let edges = [division.smallest &- 1, division.smallest, division.smallest &+ 1,
                         division.largest &- 1, division.largest, division.largest &+ 1]
            for q in edges {
                for place in 0..<12 {
                    var residuals = (0..<12).map { _ in UInt64(bitPattern: Int64.random(in: -40...40, using: &g) &* divisor) }
                    // q times the divisor, wrapping: the quotient's division gives q back
                    // where the shift loses none of its bits.
                    residuals[place] = UInt64(bitPattern: (q &* odd) << division.shift)
                    let expected = Self.expectedTokens(residuals, divisor: divisor)
                    for (name, tokenizer) in [("dispatched", routelog_tokenize_residuals as Tokenizer),
                                              ("portable", routelog_tokenize_residuals_portable as Tokenizer)] {
                        let got = Self.tokenize(residuals, divisor: divisor, with: tokenizer)
                        #expect(got.exact == (expected != nil), "\(name): \(q) by \(divisor) at \(place)")
                        if let expected, got.exact {
                            #expect(got.u == expected.u && got.tokens == expected.tokens && got.counts == expected.counts,
                                    "\(name): \(q) by \(divisor) at \(place)")
                        }
                    }
                }
            }
        }
    }

    /// The differences' tokenizer (the save's: residuals of order 0, 1 or 2 worked out from
    /// the values) against its portable twin and the Swift definitions: runs of repeated
    /// values (zero residuals, which the vector loop counts eight at a time) of every
    /// length and start, broken by a small step, a step past 2^52 or a wrapping one, with
    /// biases and divisors, and tails of every length.
    @Test func differenceTokenizersAgreeOnRunsAndEdges() {
        var g = SeededGenerator(state: 5151)
        typealias DifferenceTokenizer = (UnsafePointer<Int64>?, Int32, Int64, Int, UnsafePointer<routelog_exact_division>?,
                                         UnsafeMutablePointer<UInt64>?, UnsafeMutablePointer<UInt8>?,
                                         UnsafeMutablePointer<UInt32>?) -> Int32
        let steps: [Int64] = [1, -1, 7, 1 << 40, 1 << 52, -(1 << 53), .max, .min]
        for round in 0..<600 {
            let order = round % 3
            let divisor: Int64 = [1, 1, 1, 6, 1000, 1 << 20, 7][round % 7]
            let n = Int.random(in: order...(round % 4 == 0 ? 300 : 45), using: &g), k = n - order
            var values: [Int64] = [], value = Int64.random(in: -1000...1000, using: &g) &* divisor
            while values.count < n {
                // A run of one value, or one of one step (zero second differences).
                let run = Int.random(in: 1...20, using: &g), step = Bool.random(using: &g) ? 0 : divisor
                for _ in 0..<run where values.count < n {
                    values.append(value)
                    value &+= step
                }
                value &+= steps.randomElement(using: &g)! &* (Int.random(in: 0..<4, using: &g) == 0 ? 1 : divisor)
            }
            let bias: Int64 = [0, 0, divisor, -divisor, Int64.random(in: -5...5, using: &g) &* divisor][round % 5]
            // The residuals the way ColumnEncoderV2 defines them, for the Swift tokens.
            let residuals: [UInt64] = (0..<k).map { j in
                let r: Int64
                switch order {
                case 0: r = values[j]
                case 1: r = values[j + 1] &- values[j]
                default: r = (values[j + 2] &- values[j + 1]) &- (values[j + 1] &- values[j])
                }
                return UInt64(bitPattern: r &- bias)
            }
            let expected = Self.expectedTokens(residuals, divisor: divisor)
            var spec = ExactDivision(divisor).spec
            for (name, tokenizer) in [("dispatched", routelog_tokenize_differences as DifferenceTokenizer),
                                      ("portable", routelog_tokenize_differences_portable as DifferenceTokenizer)] {
                var u = [UInt64](repeating: 0xEE, count: max(k, 1)), tokens = [UInt8](repeating: 0xEE, count: max(k, 1))
                var counts = [UInt32](repeating: 7, count: 4 * 256)
                let exact = values.withUnsafeBufferPointer { v in
                    u.withUnsafeMutableBufferPointer { uu in
                        tokens.withUnsafeMutableBufferPointer { t in
                            counts.withUnsafeMutableBufferPointer { c in
                                divisor == 1
                                    ? tokenizer(v.baseAddress, Int32(order), bias, k, nil, uu.baseAddress, t.baseAddress, c.baseAddress)
                                    : tokenizer(v.baseAddress, Int32(order), bias, k, &spec, uu.baseAddress, t.baseAddress, c.baseAddress)
                            }
                        }
                    }
                } == 1
                guard let expected else {
                    #expect(!exact, "\(name), round \(round): a residual that is no multiple of \(divisor) went through")
                    continue
                }
                #expect(exact, "\(name), round \(round)")
                #expect(Array(u.prefix(k)) == expected.u, "\(name), round \(round): u")
                #expect(Array(tokens.prefix(k)) == expected.tokens, "\(name), round \(round): tokens")
                #expect(Array(counts.prefix(256)) == expected.counts, "\(name), round \(round): counts")
            }
        }
    }

    /// Each order's cost of values[from..<to] the plain Swift way: bits of
    /// zigzag(residual - bias), with values[from - 2] and values[from - 1] starting the
    /// differences; and the C loops' sums of the same, dispatched and portable.
    static func plainCosts(_ values: [Int64], _ from: Int, _ to: Int, _ biases: [Int64]) -> [Int64] {
        var costs: [Int64] = [0, 0, 0]
        for j in from..<to {
            let d1 = values[j] &- values[j - 1], d2 = d1 &- (values[j - 1] &- values[j - 2])
            for (order, r) in [values[j], d1, d2].enumerated() {
                costs[order] += Int64(64 - ResidualToken.zigzag(r &- biases[order]).leadingZeroBitCount)
            }
        }
        return costs
    }

    static func loopCosts(_ values: [Int64], _ from: Int, _ to: Int, _ biases: [Int64], start: [Int64] = [0, 0, 0])
        -> [(name: String, costs: [Int64])] {
        [("dispatched", routelog_order_costs), ("portable", routelog_order_costs_portable)].map { name, loop in
            var got = start
            loop(values, from, to, biases, &got)
            return (name, got)
        }
    }

    @Test func bothCostLoopsGiveTheSwiftCosts() {
        var g = SeededGenerator(state: 4242)
        for round in 0..<300 {
            let values = Self.patterns(Int.random(in: 2...300, using: &g), &g).map { Int64(bitPattern: $0) }
            let biases = (0..<3).map { _ in Int64.random(in: -1000...1000, using: &g) }
            let from = Int.random(in: 2...values.count, using: &g), to = Int.random(in: from...values.count, using: &g)
            let expected = Self.plainCosts(values, from, to, biases)
            for (name, got) in Self.loopCosts(values, from, to, biases, start: [5, 6, 7]) {
                #expect(got == [5 + expected[0], 6 + expected[1], 7 + expected[2]], "\(name), round \(round)")
            }
        }
    }

    /// Residuals whose zigzag is 0, 1, or near 2^52 (where the wide loop's exponents stop
    /// being exact and a group goes the scalar way), in every lane of a group of four
    /// and at every start: each order's cost the Swift one.
    @Test func costLoopsAroundTheExactRangeOfDoubles() {
        var g = SeededGenerator(state: 52)
        let edges: [Int64] = [0, 1, -1, 1 << 51 - 1, -(1 << 51), 1 << 51, -(1 << 51) - 1, 1 << 52, Int64.max, Int64.min]
        for round in 0..<400 {
            let n = Int.random(in: 3...40, using: &g)
            // Order 0 sees the values, 1 and 2 their differences: runs of equal values
            // give zero differences, an edge value after one gives the edge.
            var values: [Int64] = []
            for _ in 0..<n {
                values.append(Bool.random(using: &g) ? edges.randomElement(using: &g)! : (values.last ?? 0))
            }
            let biases: [Int64] = round % 2 == 0 ? [0, 0, 0] : (0..<3).map { _ in edges.randomElement(using: &g)! }
            let from = Int.random(in: 2...n, using: &g), to = Int.random(in: from...n, using: &g)
            let expected = Self.plainCosts(values, from, to, biases)
            for (name, got) in Self.loopCosts(values, from, to, biases) {
                #expect(got == expected, "\(name), round \(round): \(values) from \(from) to \(to), biases \(biases)")
            }
        }
    }

    /// Every order's residual minus its bias at ±2^k and a few units around it, for
    /// every k, in every lane of groups whose other lanes are small: the wide loop takes
    /// each group below 2^52 (zigzagged) itself, so its exponents are checked right up to
    /// the edge, and hands the others to the scalar loop.
    @Test func costLoopsAtEveryPowerOfTwo() {
        var g = SeededGenerator(state: 0x2052)
        for k in 0..<63 {
            for delta: Int64 in [-2, -1, 0, 1, 2] {
                for sign: Int64 in [1, -1] {
                    let r = sign &* ((1 << Int64(k)) &+ delta)
                    // Values whose order-0 residual is r at one place, small elsewhere:
                    // orders 1 and 2 then see r, -r and the like around it.
                    var values = (0..<12).map { _ in Int64.random(in: -3...3, using: &g) }
                    values[2 + Int.random(in: 0..<8, using: &g)] = r
                    let biases: [Int64] = [Int64.random(in: -2...2, using: &g), 0, 1]
                    let expected = Self.plainCosts(values, 2, values.count, biases)
                    for (name, got) in Self.loopCosts(values, 2, values.count, biases) {
                        #expect(got == expected, "\(name): 2^\(k) \(delta >= 0 ? "+" : "")\(delta), sign \(sign): \(values)")
                    }
                }
            }
        }
    }

    /// What a decode gave: the column's values, or the error's description.
    enum Outcome: Equatable {
        case values([Int64])
        case failure(String)
    }

    /// `column` (an altitude column's bytes) read through a whole block, with `damage`
    /// done to the column's bytes first, with `loops`: the values, or why it was refused.
    static func decode(_ column: [UInt8], count: Int, damage: [(offset: Int, xor: UInt8)] = [],
                       with loops: DecodeLoops) -> Outcome {
        var block = EncoderV2EdgeTests.block(around: column, count: count)
        let start = block.count - column.count
        for (offset, xor) in damage { block[start + offset % column.count] ^= xor }
        do {
            let columns = try PointBlockV2.decodeColumns(block[...], loops: loops, checkingStoredLimits: false)
            guard let values = columns.optional.first?.column.values else { return .failure("no altitude column") }
            return .values((0..<values.count).map { values.base[$0] })
        } catch let error as ByteReader.Malformed {
            return .failure(error.reason)
        } catch {
            return .failure("\(error)")
        }
    }

    @Test func bothLoopSetsReadEveryColumnAlike() throws {
        var g = SeededGenerator(state: 4343)
        var runColumns = 0, fourStreamColumns = 0
        for round in 0..<300 {
            let n = [256, 257, 259, 300, 1000, 3600, 40][round % 7]
            // Steps of a few sizes, and in some rounds values past 2^48 (bases an entry
            // cannot hold: decoded by hand). Every fifth column mostly repeats its value:
            // zero runs, in one stream.
            let scale: Int64 = [1, 100, 1 << 20, 1 << 50][round % 4]
            let repeating = round % 5 == 4
            var value: Int64 = 0
            let values = (0..<n).map { _ -> Int64 in
                if !repeating || Int.random(in: 0..<40, using: &g) == 0 {
                    value &+= Int64.random(in: -50...50, using: &g) &* scale
                }
                return value
            }
            let order = round % 3
            let model = round % 2 == 0 ? ResidualModel(order: order, bias: 0, divisor: 1) : nil
            let (column, _) = EncoderV2EdgeTests.both(values, model: model)
            // Tag, encoding, length, body.
            if column[1] & FormatConstants.ColumnV2.zeroRuns != 0 { runColumns += 1 }
            if column[1] & FormatConstants.ColumnV2.streamMask == 2 << FormatConstants.ColumnV2.streamShift {
                fourStreamColumns += 1
            }
            let dispatched = Self.decode(column, count: n, with: .processor)
            let portable = Self.decode(column, count: n, with: .portable)
            #expect(dispatched == .values(values), "round \(round)")
            #expect(portable == .values(values), "round \(round)")
            // Damage: the same values or the same error from both.
            for _ in 0..<4 {
                let damage = (0..<Int.random(in: 1...3, using: &g)).map { _ in
                    (offset: Int.random(in: 0..<column.count, using: &g), xor: UInt8.random(in: 1...255, using: &g))
                }
                let a = Self.decode(column, count: n, damage: damage, with: .processor)
                let b = Self.decode(column, count: n, damage: damage, with: .portable)
                #expect(a == b, "round \(round), damage \(damage)")
            }
        }
        // Both loops were met often.
        #expect(runColumns >= 30 && fourStreamColumns >= 100, "\(runColumns) columns with runs, \(fourStreamColumns) with four streams")
    }

    @Test func aWindowWithNoCodeStopsTheLoop() {
        // A one-symbol code (a single 1-bit code, "0"): every window whose low bit is 1
        // starts no code. Stream 1 meets one at its 9th value, in the second batch.
        var code = HuffmanCode()
        code.lengths[3] = 1
        let storage = UnsafeMutablePointer<UInt64>.allocate(capacity: 1 << FormatConstants.ColumnV2.maxCodeLength)
        defer { storage.deallocate() }
        let table = HuffmanDecodeTable(code, storage: storage)
        let bytes = [UInt8](repeating: 0, count: 65) + [0x01] + [UInt8](repeating: 0, count: 200)
        for loop in [routelog_decode_four_streams as FourStreamLoop, routelog_decode_four_streams_portable] {
            bytes.withUnsafeBufferPointer { b in
                var state = routelog_four_streams(
                    bytes: b.baseAddress, positions: (0, 64 * 8, 128 * 8, 192 * 8), reach: 1 << 20,
                    entries: table.entries, mask: (1 << UInt64(table.bits)) - 1, bias: 0, divisor: 1, order: 0,
                    value: 0, delta: 0)
                var out = [Int64](repeating: -1, count: 80)
                let done = out.withUnsafeMutableBufferPointer { loop(&state, $0.baseAddress, 64) }
                #expect(done == 0)
                #expect(state.positions == (.max, .max, .max, .max))
                // Nothing past k was written.
                #expect(out.suffix(16).allSatisfy { $0 == -1 })
            }
        }
    }

    /// A four-stream altitude column of `k` values (order 0, a code of two 1-bit tokens)
    /// whose first three streams hold `lengths` bytes of zeros and whose last holds the
    /// rest of `total` bytes.
    static func fourStreamColumn(lengths: [Int], total: Int) -> [UInt8] {
        var body = ByteWriter()
        body.varint(0)  // bias
        body.varint(1)  // divisor
        body.varint(2)  // value tokens 0 and 1
        body.u8(0x11)  // both 1 bit long
        for length in lengths { body.varint(length) }
        body.append(contentsOf: [UInt8](repeating: 0, count: total))
        var column = ByteWriter()
        column.u8(FormatConstants.ColumnTag.altitude.rawValue)
        column.u8(2 << FormatConstants.ColumnV2.streamShift)
        column.varint(body.count)
        column.append(contentsOf: body.bytes)
        return column.bytes
    }

    @Test func aShortStreamLateInTheBlockIsRefusedBeforeItsValuesAreMadeRoomFor() {
        // 4,000 values, 1,000 a stream. Streams 0 to 2 hold 500 bytes each (4,000 bits),
        // stream 3 holds none: its end lies 12,000 bits into the copy, but it has no bit
        // for any of its 1,000 values. The check counts its own bits, not its end.
        let late = Self.fourStreamColumn(lengths: [500, 500, 500], total: 1500)
        for loops in [DecodeLoops.processor, .portable] {
            guard case .failure(let message) = Self.decode(late, count: 4000, with: loops) else {
                Issue.record("a stream with no bits for 1,000 values was read")
                continue
            }
            #expect(message.contains("stream 3 holds 0 bytes, fewer than a bit for each of its values"), "\(message)")
        }
        // Four streams of 125 bytes (1,000 bits each): a bit for each value, every value 0.
        let enough = Self.fourStreamColumn(lengths: [125, 125, 125], total: 500)
        #expect(Self.decode(enough, count: 4000, with: .processor) == .values([Int64](repeating: 0, count: 4000)))
    }

    /// The running sums a column of one or two streams is integrated with, both paths, against
    /// the definition (format-spec.md, "Version 2": v[j] from the start values and the
    /// residuals Δ^d v[j]), wrapping as a damaged block's values may: every count around
    /// the groups of four, orders 0 to 3 (only 1 and 2 sum).
    @Test func runningSumsAreTheDefinitions() {
        var g = SeededGenerator(state: 0x5A5)
        func plain(_ residuals: [Int64], order: Int) -> [Int64] {
            var v = residuals
            if order == 1 { for j in v.indices.dropFirst() { v[j] = v[j - 1] &+ v[j] } }
            if order == 2 && v.count > 2 {
                var delta = v[1] &- v[0]
                for j in 2..<v.count {
                    delta = delta &+ v[j]
                    v[j] = v[j - 1] &+ delta
                }
            }
            return v
        }
        for round in 0..<3_000 {
            let count = round < 100 ? round % 25 : Int.random(in: 0...400, using: &g)
            let order = round % 4
            let residuals: [Int64] = (0..<count).map { _ in
                switch Int.random(in: 0..<4, using: &g) {
                case 0: Int64.random(in: -1...1, using: &g)
                case 1: Int64.random(in: -1_000_000...1_000_000, using: &g)
                case 2: Bool.random(using: &g) ? .max - Int64.random(in: 0...3, using: &g) : .min + Int64.random(in: 0...3, using: &g)
                default: Int64.random(in: .min ... .max, using: &g)
                }
            }
            var wide = residuals, portable = residuals
            wide.withUnsafeMutableBufferPointer { routelog_running_sums($0.baseAddress, count, Int32(order)) }
            portable.withUnsafeMutableBufferPointer { routelog_running_sums_portable($0.baseAddress, count, Int32(order)) }
            let expected = plain(residuals, order: order)
            #expect(wide == expected, "round \(round): order \(order), \(count) values")
            #expect(portable == expected, "round \(round): order \(order), \(count) values")
        }
    }
}
