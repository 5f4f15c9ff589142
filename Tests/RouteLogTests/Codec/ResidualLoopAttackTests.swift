import CRouteLogSystem
import Foundation
import Synchronization
import Testing
@testable import RouteLog

/// Attacks on the C loops of the version 2 codec (residual_streams.c, residual_tokens.c):
/// hand-made columns whose tokens take the longest bits right up to the end of the
/// block's copy, values decoded by hand (>= 2^48) at the edges of a batch, tables of
/// every width, windows with no code, runs that reach or pass k, and divisors at the
/// edges of Int64. Every column is read with the processor's loops and the portable
/// ones, and compared with values worked out here from the tokens themselves.
@Suite struct ResidualLoopAttackTests {
    typealias V2 = FormatConstants.ColumnV2

    // MARK: - Making columns by hand

    /// Bits written lowest first, as the streams are read.
    struct Bits {
        var bytes: [UInt8] = []
        var count = 0
        mutating func put(_ value: UInt64, _ n: Int) {
            for b in 0..<n {
                if count % 8 == 0 { bytes.append(0) }
                if (value >> UInt64(b)) & 1 != 0 { bytes[count / 8] |= 1 << UInt8(count % 8) }
                count += 1
            }
        }
    }

    /// One token of a stream: a value token (symbol 0...255) with its extra bits, or
    /// run token j (symbol 256 + j) with its j extra bits.
    struct Token {
        var symbol: Int
        var extra: UInt64
        static func value(_ symbol: Int, _ extra: UInt64 = 0) -> Token { Token(symbol: symbol, extra: extra) }
        static func run(_ length: Int) -> Token {
            let j = 63 - UInt64(length).leadingZeroBitCount
            return Token(symbol: V2.valueTokens + j, extra: UInt64(length - (1 << j)))
        }
        /// u of a value token, or the run's length.
        var u: UInt64 {
            symbol < V2.valueTokens ? ResidualToken.base(symbol) &+ extra : (1 << UInt64(symbol - V2.valueTokens)) + extra
        }
        var extraBits: Int {
            symbol < V2.valueTokens ? ResidualToken.extraBits(symbol) : symbol - V2.valueTokens
        }
    }

    /// A token whose u is `u` (its symbol and extra bits).
    static func token(u: UInt64) -> Token {
        let symbol = ResidualToken.token(u)
        return Token(symbol: symbol, extra: u - ResidualToken.base(symbol))
    }

    static func stream(_ tokens: [Token], _ code: HuffmanCode) -> [UInt8] {
        let (bits, lengths) = code.codes()
        var w = Bits()
        for t in tokens {
            precondition(lengths[t.symbol] > 0, "symbol \(t.symbol) has no code")
            w.put(UInt64(bits[t.symbol]), Int(lengths[t.symbol]))
            w.put(t.extra, t.extraBits)
        }
        return w.bytes
    }

    /// An altitude column (tag, encoding, length, body) of `streams` (one, or four when
    /// `four`), with the code `code`; order 0 unless told, no presence.
    static func column(order: Int = 0, starts: [Int64] = [], bias: Int64 = 0, divisor: UInt64 = 1, code: HuffmanCode,
                       runs: Bool = false, streams: [[UInt8]], extraStreamBytes: [Int] = []) -> [UInt8] {
        var body = ByteWriter()
        var previous: Int64 = 0
        for (i, s) in starts.enumerated() {
            body.varint(ResidualToken.zigzag(i == 0 ? s : s &- previous))
            previous = s
        }
        body.varint(ResidualToken.zigzag(bias))
        body.varint(divisor)
        CodePlan.writeLengths(code, runs: runs, to: &body)
        var padded = streams
        for (s, extra) in extraStreamBytes.enumerated() where extra > 0 { padded[s] += [UInt8](repeating: 0, count: extra) }
        for s in padded.dropLast() { body.varint(s.count) }
        for s in padded { body.append(contentsOf: s) }
        var out = ByteWriter()
        out.u8(FormatConstants.ColumnTag.altitude.rawValue)
        out.u8(UInt8(order) | (padded.count == 4 ? 2 << V2.streamShift : 0) | (runs ? V2.zeroRuns : 0))
        out.varint(body.count)
        out.append(contentsOf: body.bytes)
        return out.bytes
    }

    /// A four-stream column of `tokens` (token i in stream i mod 4).
    static func fourStreamColumn(_ tokens: [Token], order: Int = 0, starts: [Int64] = [], bias: Int64 = 0,
                                 divisor: UInt64 = 1, code: HuffmanCode) -> [UInt8] {
        let streams = (0..<4).map { s in stream(stride(from: s, to: tokens.count, by: 4).map { tokens[$0] }, code) }
        return column(order: order, starts: starts, bias: bias, divisor: divisor, code: code, streams: streams)
    }

    /// The values a column of these residual tokens holds.
    static func expected(_ tokens: [Token], order: Int = 0, starts: [Int64] = [], bias: Int64 = 0, divisor: Int64 = 1) -> [Int64] {
        var residuals: [Int64] = []
        for t in tokens {
            if t.symbol >= V2.valueTokens {
                residuals += [Int64](repeating: bias, count: Int(t.u))
            } else {
                residuals.append(bias &+ ResidualToken.unzigzag(t.u) &* divisor)
            }
        }
        var values = Array(starts.prefix(order))
        var delta: Int64 = order == 2 ? starts[1] &- starts[0] : 0
        for r in residuals {
            switch order {
            case 0: values.append(r)
            case 1: values.append(values.last! &+ r)
            default:
                delta = delta &+ r
                values.append(values.last! &+ delta)
            }
        }
        return values
    }

    /// The code with lengths 1, 2, ..., w - 1, w, w over `symbols` (w + 1 of them): its
    /// longest code has w bits, so its table is w bits wide. w = 1: two codes of one bit.
    static func ladder(_ symbols: [Int]) -> HuffmanCode {
        var code = HuffmanCode()
        let w = symbols.count - 1
        for (i, s) in symbols.enumerated() { code.lengths[s] = UInt8(min(i + 1, w)) }
        precondition(code.problem() == nil, "\(code.problem()!)")
        return code
    }

    /// An 11-bit code for symbol 255 (61 extra bits: 72 bits a value, the most there
    /// is), and codes for 0...10 beside it.
    static let longestCode = ladder(Array(0...10) + [255])

    /// A block of four all-zero required columns and `column`, last, read with `loops`.
    static func decode(_ column: [UInt8], count n: Int, with loops: DecodeLoops) -> ResidualKernelTests.Outcome {
        ResidualKernelTests.decode(column, count: n, with: loops)
    }

    /// Both loop sets give `expected` (a difference told briefly: columns are long).
    static func expectBoth(_ column: [UInt8], count n: Int, _ expected: ResidualKernelTests.Outcome,
                           _ comment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for (name, loops) in [("processor", DecodeLoops.processor), ("portable", DecodeLoops.portable)] {
            let got = decode(column, count: n, with: loops)
            guard got != expected else { continue }
            Issue.record("\(name): \(comment): \(brief(got)), expected \(brief(expected))", sourceLocation: sourceLocation)
        }
    }

    static func brief(_ outcome: ResidualKernelTests.Outcome) -> String {
        switch outcome {
        case .failure(let reason): return "failure \"\(reason)\""
        case .values(let v): return "\(v.count) values, first \(v.prefix(4)), last \(v.suffix(2))"
        }
    }

    // MARK: - Four streams near the end of the copy

    @Test func longestTokensRunRightUpToTheCopysEnd() {
        // Every value 72 bits (symbol 255, all 61 extra bits set: u = 2^64 - 1), in a
        // column that ends the block: the positions pass the reach inside the last
        // batches, and each stream's last window is in the padding.
        let top = Token.value(255, (1 << 61) - 1)
        for k in [32, 33, 35, 36, 39, 40, 63, 64, 65, 68, 96, 100, 127, 128, 131, 200] {
            let tokens = [Token](repeating: top, count: k)
            for order in 0...2 {
                let starts: [Int64] = [Int64.max, Int64.min + 1].prefix(order).map { $0 }
                let column = Self.fourStreamColumn(tokens, order: order, starts: starts, bias: -7, divisor: 3, code: Self.longestCode)
                Self.expectBoth(column, count: k + order,
                                .values(Self.expected(tokens, order: order, starts: starts, bias: -7, divisor: 3)),
                                "k \(k), order \(order)")
            }
        }
    }

    /// What the four-stream C loop was asked and did, call by call (a `@convention(c)`
    /// loop cannot capture; only the test below records here).
    static let fourStreamCalls = Mutex<[(k: Int, done: Int)]>([])

    @Test func theBlocksLastColumnIsReadByTheCLoopToItsLastWholeBatch() {
        // A walk-like column (mostly short tokens, some longer) that ends the block: the
        // copy's padding must leave the reach past the last stream's end, so that every
        // whole batch of 32 values goes through the C loop and only the last k mod 32
        // through the checked one. With 32 bytes of padding the loop stopped about 48
        // bytes before the end, and some 300 values of a 3,600-value column were read
        // the slow way on every load.
        let counting: FourStreamLoop = { state, out, k in
            let done = routelog_decode_four_streams(state, out, k)
            ResidualLoopAttackTests.fourStreamCalls.withLock { $0.append((k, done)) }
            return done
        }
        let loops = DecodeLoops(fourStreams: counting, runStream: routelog_decode_run_stream)
        let long = [12, 14, 16, 20]
        let code = Self.ladder(Array(0...6) + long)  // codes of 1 to 10 bits
        var g = SeededGenerator(state: 3600)
        for k in [3600, 3601, 1000, 257, 64] {
            let tokens = (0..<k).map { _ -> Token in
                let s = Int.random(in: 0..<8, using: &g) == 0 ? long.randomElement(using: &g)! : Int.random(in: 0...6, using: &g)
                let bits = ResidualToken.extraBits(s)
                return .value(s, bits == 0 ? 0 : UInt64.random(in: 0 ..< (1 << UInt64(bits)), using: &g))
            }
            let column = Self.fourStreamColumn(tokens, order: 1, starts: [5], bias: 3, code: code)
            Self.fourStreamCalls.withLock { $0.removeAll() }
            let got = Self.decode(column, count: k + 1, with: loops)
            #expect(got == .values(Self.expected(tokens, order: 1, starts: [5], bias: 3)), "k \(k)")
            let calls = Self.fourStreamCalls.withLock { $0 }
            // The altitude column is the only one of k residuals (the required columns
            // before it are all zeros, written as runs).
            let mine = calls.filter { $0.k == k }
            #expect(mine.count == 1 && mine[0].done == k - k % 32, "k \(k): \(calls)")
        }
    }

    @Test func positionsExactlyAtTheReachStayInsideAnExactlySizedBuffer() {
        // The C loop itself, on a heap buffer of exactly `size` bytes (no padding past
        // it: a read past the end shows under AddressSanitizer) filled with 72-bit
        // tokens, every position at the reach the decoder works out for a copy of that
        // size (its end minus 8 bytes, minus a batch of the longest values), at each
        // bit offset: one whole batch is read, and nothing past the buffer.
        let storage = UnsafeMutablePointer<UInt64>.allocate(capacity: 1 << V2.maxCodeLength)
        defer { storage.deallocate() }
        let table = HuffmanDecodeTable(Self.longestCode, storage: storage)
        let size = 200
        let reach = (size - 8) * 8 - StreamDecoder.longestValueBits * Int(ROUTELOG_FOUR_STREAM_GROUPS_PER_CHECK)
        let top = Token.value(255, (1 << 61) - 1)
        for back in 0..<9 {
            let start = reach - back
            var bits = Bits()
            bits.put(0, start % 72)
            let tokens = [Token](repeating: top, count: size * 8 / 72 + 2)
            let (codes, lengths) = Self.longestCode.codes()
            for t in tokens {
                bits.put(UInt64(codes[t.symbol]), Int(lengths[t.symbol]))
                bits.put(t.extra, t.extraBits)
            }
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
            defer { buffer.deallocate() }
            buffer.initialize(from: bits.bytes, count: size)
            // Every position on a token's start, at most the reach.
            let p = Int64(start % 72 + (start - start % 72) / 72 * 72)
            for loop in [routelog_decode_four_streams as FourStreamLoop, routelog_decode_four_streams_portable] {
                var state = routelog_four_streams(
                    bytes: buffer, positions: (p, p, p, p), reach: Int64(reach), entries: table.entries,
                    mask: (1 << UInt64(table.bits)) - 1, bias: 0, divisor: 1, order: 0, value: 0, delta: 0)
                var out = [Int64](repeating: 1, count: 40)
                let done = out.withUnsafeMutableBufferPointer { loop(&state, $0.baseAddress, 40) }
                #expect(done == 32, "\(back) bits before the reach")
                #expect(out.prefix(32).allSatisfy { $0 == Int64.min }, "\(back) bits before the reach")
                #expect(out.suffix(8).allSatisfy { $0 == 1 })
                #expect(state.positions.0 == p + 8 * 72 && state.positions.3 == p + 8 * 72)
            }
        }
    }

    @Test func slowAndLongTokensAtEveryPlaceOfABatch() {
        // Symbols 191 (e = 47: the largest base an entry holds, 45 extra bits), 192 (e =
        // 48: base 2^48, decoded by hand) and 255, one at a time at every index of the
        // first three batches and the last values, among 1-bit zeros.
        var g = SeededGenerator(state: 77)
        let code = Self.ladder([0, 191, 192, 255, 1, 2, 3, 4, 5, 6, 7, 8])
        let k = 101
        for symbol in [191, 192, 255] {
            for at in Array(0..<100) + [100] {
                // Fillers of 47 bits (191, code 2 bits), so that the streams are long
                // enough for the C loop to read most of them.
                var tokens = (0..<k).map { _ in Token.value(191, UInt64.random(in: 0 ..< (1 << 45), using: &g)) }
                let bits = ResidualToken.extraBits(symbol)
                tokens[at] = .value(symbol, UInt64.random(in: 0 ... .max, using: &g) >> UInt64(64 - bits))
                if at + 4 < k { tokens[at + 4] = .value(symbol, (1 << UInt64(bits)) - 1) }
                let column = Self.fourStreamColumn(tokens, order: 1, starts: [12], bias: 5, divisor: 1, code: code)
                Self.expectBoth(column, count: k + 1, .values(Self.expected(tokens, order: 1, starts: [12], bias: 5)),
                                "symbol \(symbol) at \(at)")
            }
        }
    }

    @Test func randomColumnsOfLongTokensEndingTheBlock() {
        // Mixed lengths, so that the four streams end at different places and some cross
        // the reach in the middle of a batch; each column is the last bytes of the block.
        var g = SeededGenerator(state: 4711)
        let symbols = Array(0...10) + [255]
        // The second code gives 255 the code "0": the zero padding after the last stream
        // reads as 62-bit tokens.
        let codes = [Self.longestCode, Self.ladder([255] + Array(0...10))]
        for round in 0..<120 {
            let k = Int.random(in: 28...300, using: &g)
            let tokens = (0..<k).map { _ -> Token in
                let s = Int.random(in: 0..<4, using: &g) == 0 ? 255 : symbols[Int.random(in: 0..<symbols.count, using: &g)]
                let bits = ResidualToken.extraBits(s)
                return .value(s, bits == 0 ? 0 : UInt64.random(in: 0 ... .max, using: &g) >> UInt64(64 - bits))
            }
            let order = round % 3
            let starts: [Int64] = [Int64.random(in: .min ... .max, using: &g), Int64.random(in: .min ... .max, using: &g)]
            let column = Self.fourStreamColumn(tokens, order: order, starts: Array(starts.prefix(order)), bias: 1 << 40,
                                               divisor: 1 << 20, code: codes[round % 2])
            Self.expectBoth(column, count: k + order,
                            .values(Self.expected(tokens, order: order, starts: Array(starts.prefix(order)), bias: 1 << 40,
                                                  divisor: 1 << 20)),
                            "round \(round), k \(k)")
        }
    }

    /// The fast loop reads each stream's tokens two to a window when their bits add up
    /// to 57 or fewer (a window holds at least 57): pairs of every sum from 54 to 60, at
    /// every bit phase and every place of a batch, short before long and long before
    /// short, read as the tokens say.
    @Test func tokenPairsAroundTheWindowsBitsReadAlike() {
        var g = SeededGenerator(state: 5757)
        // A ladder code: symbol 0 takes 1 bit, 1 takes 2, and so on; value tokens of
        // exponent e take e - 2 extra bits, so their lengths step through every sum.
        let symbols = [0, 1, 2, 16, 100, 150, 170, 175, 180, 185, 190, 191]
        let code = Self.ladder(symbols)
        let (_, lengths) = code.codes()
        func bits(_ s: Int) -> Int { Int(lengths[s]) + ResidualToken.extraBits(s) }
        func token(_ s: Int) -> Token {
            let extra = ResidualToken.extraBits(s)
            return .value(s, extra == 0 ? 0 : UInt64.random(in: 0 ... .max, using: &g) >> UInt64(64 - extra))
        }
        var pairs = 0
        for a in symbols { for b in symbols where (54...60).contains(bits(a) + bits(b)) {
            pairs += 1
            for phase in 0..<4 {
                let k = 64 + 8 + phase
                // Stream s holds tokens s, s + 4, ...: a at even, b at odd places of a stream.
                var tokens = (0..<k).map { i in token((i / 4) % 2 == 0 ? a : b) }
                // A 1-bit token first in every stream shifts the phase of the windows.
                for s in 0..<min(phase, 4) { tokens[s] = .value(0) }
                for order in 0...2 {
                    let starts: [Int64] = [7, -3]
                    let column = Self.fourStreamColumn(tokens, order: order, starts: Array(starts.prefix(order)),
                                                       bias: -9, divisor: 3, code: code)
                    Self.expectBoth(column, count: k + order,
                                    .values(Self.expected(tokens, order: order, starts: Array(starts.prefix(order)),
                                                          bias: -9, divisor: 3)),
                                    "\(a) (\(bits(a)) bits) then \(b) (\(bits(b)) bits), phase \(phase), order \(order)")
                }
            }
        } }
        #expect(pairs >= 6, "\(pairs) pairs")
    }

    // MARK: - Tables of every width

    @Test func tablesOfEveryWidthReadAlike() {
        var g = SeededGenerator(state: 9090)
        let pool = [0, 17, 191, 192, 255, 3, 50, 200, 15, 16, 254, 100]
        for width in 1...11 {
            let symbols = Array(pool.prefix(width + 1))
            let code = Self.ladder(symbols)
            #expect(code.maxLength == width)
            for k in [1, 3, 4, 31, 32, 33, 257] {
                let tokens = (0..<k).map { _ -> Token in
                    let s = symbols[Int.random(in: 0..<symbols.count, using: &g)]
                    let bits = ResidualToken.extraBits(s)
                    return .value(s, bits == 0 ? 0 : UInt64.random(in: 0 ... .max, using: &g) >> UInt64(64 - bits))
                }
                let four = Self.fourStreamColumn(tokens, bias: -3, divisor: 7, code: code)
                Self.expectBoth(four, count: k, .values(Self.expected(tokens, bias: -3, divisor: 7)), "width \(width), k \(k), four")
                let one = Self.column(bias: -3, divisor: 7, code: code, streams: [Self.stream(tokens, code)])
                Self.expectBoth(one, count: k, .values(Self.expected(tokens, bias: -3, divisor: 7)), "width \(width), k \(k), one")
            }
        }
    }

    // MARK: - Windows with no code

    @Test func aWindowWithNoCodeAnywhereIsTheSameError() {
        // A single one-bit code ("0" for symbol 5): a 1 bit where a value starts is no
        // code. Streams of 100 bytes (800 values each), so that the C loop reads the
        // first 416 values of each before the positions pass its reach. The bad bit at
        // the first value, in a batch's first, middle and last group, at the last value
        // the C loop reads, just after it, and at the end.
        var code = HuffmanCode()
        code.lengths[5] = 1
        let perStream = 800, k = 4 * perStream
        let good = Self.fourStreamColumn([Token](repeating: .value(5), count: k), code: code)
        Self.expectBoth(good, count: k, .values([Int64](repeating: ResidualToken.unzigzag(5), count: k)), "undamaged")
        let places = [0, 1, 2, 3, 4, 7, 27, 28, 31, 32, 33, 63, 64, 127, 129, 1000, 1659, 1660, 1663, 1664, 1665, 1667, 1668,
                      2000, 3196, 3199]
        for at in places {
            var streams = (0..<4).map { _ in [UInt8](repeating: 0, count: perStream / 8) }
            streams[at % 4][(at / 4) / 8] |= 1 << UInt8((at / 4) % 8)
            let column = Self.column(code: code, streams: streams)
            Self.expectBoth(column, count: k, .failure("a stream holds a bit pattern that is no code"), "no code at \(at)")
        }
    }

    // MARK: - Runs

    /// A code of value tokens 0 and 255 and every run token (lengths 2 and 8/9).
    static let runCode: HuffmanCode = {
        var code = HuffmanCode()
        code.lengths[0] = 2
        code.lengths[255] = 2
        code.lengths[192] = 2
        // 20 run tokens in the 1/4 left: 8 of 7 bits, 12 of 6 bits.
        for j in 0..<V2.runTokens { code.lengths[V2.valueTokens + j] = j < 8 ? 7 : 6 }
        precondition(code.problem() == nil, "\(code.problem()!)")
        return code
    }()

    static func runColumn(_ tokens: [Token], bias: Int64 = 9, extraStreamBytes: [Int] = []) -> [UInt8] {
        column(bias: bias, code: runCode, runs: true, streams: [stream(tokens, runCode)], extraStreamBytes: extraStreamBytes)
    }

    @Test func runsThatReachKExactlyDecode() {
        for k in [1, 2, 3, 7, 255, 256, 257, 1000, (1 << 19) + 5] {
            let tokens: [Token] = [.run(k)]
            Self.expectBoth(Self.runColumn(tokens), count: k, .values(Self.expected(tokens, bias: 9)), "one run of \(k)")
        }
        // Values and runs mixed, a run last, a value last, a huge value (by hand) first.
        let mixed: [Token] = [.value(255, 12345), .run(3), .value(0), .run(1), .value(192, 1 << 45), .run(300), .run(2)]
        let k = 3 + 1 + 1 + 1 + 300 + 2 + 1
        Self.expectBoth(Self.runColumn(mixed), count: k, .values(Self.expected(mixed, bias: 9)), "mixed")
        let mixedValueLast = Array(mixed.dropFirst()) + [.value(0)]
        Self.expectBoth(Self.runColumn(mixedValueLast), count: k, .values(Self.expected(mixedValueLast, bias: 9)), "value last")
    }

    @Test func runsThatPassKAreRefused() {
        for (tokens, k) in [([Token.run(5)], 4), ([.value(0), .run(4)], 4), ([.run(2), .run(3)], 4),
                            ([.run(1 << 19)], (1 << 19) - 1), ([.value(255, 1), .run(2)], 2), ([.run(999), .run(2)], 1000)] {
            Self.expectBoth(Self.runColumn(tokens), count: k, .failure("a run passes the column's last value"), "\(tokens) in \(k)")
        }
        // A run exactly to k, then a value: bytes left over.
        Self.expectBoth(Self.runColumn([.run(40), .value(255, 5)]), count: 40, .failure("stream 0: a stream has 8 unread bytes"),
                        "a value after the last run")
        // Runs that stop short of k: the stream ends first.
        let short = Self.decode(Self.runColumn([.run(3)]), count: 4, with: .processor)
        #expect(short == .failure("a stream ends before its last value"))
        #expect(short == Self.decode(Self.runColumn([.run(3)]), count: 4, with: .portable))
    }

    /// The runs loop reads two tokens to a window when their bits add up to 57 or fewer:
    /// values of 46 bits (token 184: a 2-bit code and 44 extra bits, all ones) beside
    /// runs of 2^(j+1) - 1 (7 code bits and j extra bits, all ones), j = 0...7, so pairs
    /// of 53 to 60 bits, either one first, at every bit phase; and short runs that end at
    /// k or one value before it, where the loop's four-store fill has no room.
    @Test func runTokenPairsAroundTheWindowsBitsReadAlike() {
        var code = HuffmanCode()
        code.lengths[0] = 2
        code.lengths[184] = 2
        code.lengths[186] = 2
        for j in 0..<V2.runTokens { code.lengths[V2.valueTokens + j] = j < 8 ? 7 : 6 }
        #expect(code.problem() == nil)
        func column(_ tokens: [Token]) -> [UInt8] {
            Self.column(bias: 9, code: code, runs: true, streams: [Self.stream(tokens, code)])
        }
        let (_, lengths) = code.codes()
        #expect(Int(lengths[184]) + ResidualToken.extraBits(184) == 46)
        let value = Token.value(184, (1 << 44) - 1)
        var paired = 0
        for j in 0...7 {
            let run = Token.run((2 << j) - 1)
            for valueFirst in [true, false] {
                for phase in 0..<8 {
                    let pair = valueFirst ? [value, run] : [run, value]
                    let tokens = [Token](repeating: .value(0), count: phase) + Array([[Token]](repeating: pair, count: 24).joined())
                    let k = tokens.reduce(0) { $0 + ($1.symbol >= V2.valueTokens ? Int($1.u) : 1) }
                    if 46 + 7 + j > 57 { paired += 1 }
                    Self.expectBoth(column(tokens), count: k, .values(Self.expected(tokens, bias: 9)),
                                    "value of 46 bits \(valueFirst ? "before" : "after") a run of \(run.u), phase \(phase)")
                }
            }
        }
        #expect(paired > 0)
        for length in 1...9 {
            for before in 0...5 {
                for valueLast in [false, true] {
                    let tokens = (0..<before).map { Token.value(186, UInt64($0) + 5) } + [.run(length)] + (valueLast ? [.value(186, 77)] : [])
                    let k = before + length + (valueLast ? 1 : 0)
                    Self.expectBoth(column(tokens), count: k, .values(Self.expected(tokens, bias: 9)),
                                    "\(before) values, a run of \(length)\(valueLast ? ", a value" : "")")
                }
            }
        }
    }

    /// Run columns of order 1 and 2 are summed inside the run loops (C, and the checked
    /// loop where C stops), not in a pass after: values and runs of every short length
    /// (the four-store fill) at every place near k, long runs, values read by hand (the
    /// C loop stops and resumes with the sums), divisors, wrapping start values; the C
    /// loops, the portable ones and the checked loop alone must all give the sums.
    @Test func runColumnsOfOrderOneAndTwoAreSummedAsTheyAreRead() {
        let checkedAlone = DecodeLoops(fourStreams: routelog_decode_four_streams_portable, runStream: { _, _, _ in 0 })
        let loops = [("processor", DecodeLoops.processor), ("portable", DecodeLoops.portable), ("checked alone", checkedAlone)]
        let startPairs: [[Int64]] = [[3, -4], [Int64.max - 2, Int64.min + 1], [Int64.min, Int64.max]]
        var columns = 0
        for order in 1...2 {
            for (bias, divisor) in [(Int64(9), UInt64(1)), (-7, 3), (Int64.max, 1)] {
                for starts in startPairs {
                    for length in [1, 2, 3, 4, 5, 8, 9, 300] {
                        for before in [0, 1, 3, 4] {
                            for last in 0...2 {  // nothing after the run, a value, a value read by hand
                                var tokens = (0..<before).map { $0 % 2 == 0 ? Token.value(0) : Token.value(192, UInt64($0) + 5) }
                                if before == 3 { tokens.append(.value(255, 12345)) }  // by hand, before the run
                                tokens.append(.run(length))
                                if last == 1 { tokens.append(.value(0)) }
                                if last == 2 { tokens.append(.value(255, 1 << 50)) }
                                let k = tokens.reduce(0) { $0 + ($1.symbol >= V2.valueTokens ? Int($1.u) : 1) }
                                let column = Self.column(order: order, starts: Array(starts.prefix(order)), bias: bias,
                                                         divisor: divisor, code: Self.runCode, runs: true,
                                                         streams: [Self.stream(tokens, Self.runCode)])
                                let expected = Self.expected(tokens, order: order, starts: Array(starts.prefix(order)),
                                                             bias: bias, divisor: Int64(divisor))
                                for (name, set) in loops {
                                    let got = Self.decode(column, count: k + order, with: set)
                                    #expect(got == .values(expected),
                                            "\(name): order \(order), bias \(bias), divisor \(divisor), starts \(starts), \(before) values, a run of \(length), last \(last): \(Self.brief(got))")
                                }
                                columns += 1
                            }
                        }
                    }
                }
            }
        }
        #expect(columns == 2 * 3 * 3 * 8 * 4 * 3)
    }

    @Test func aRunColumnWithUnreadBytesIsRefused() {
        let tokens: [Token] = [.run(10), .value(0)]
        Self.expectBoth(Self.runColumn(tokens, extraStreamBytes: [1]), count: 11,
                        .failure("stream 0: a stream has 1 unread bytes"), "a zero byte after the stream")
    }

    // MARK: - Divisors and the tokenizer

    /// Residuals at the edges of Int64, multiples of `divisor`.
    static func edgeResiduals(_ divisor: Int64) -> [UInt64] {
        let largest = Int64.max / divisor, smallest = Int64.min / divisor
        let qs: [Int64] = [0, 1, -1, largest, largest - 1, smallest, smallest + 1, largest / 2, smallest / 2]
        return qs.map { UInt64(bitPattern: $0 &* divisor) }
    }

    @Test func bothTokenizersAtTheEdgesOfEveryPowerOfTwo() {
        var divisors: [Int64] = (0...62).map { 1 << Int64($0) }
        divisors += [3, 5, 7, 1_000_000_007, Int64.max, Int64.max / 3, (1 << 62) - 1, (1 << 61) + 1, 3 << 60]
        for divisor in divisors {
            let residuals = Self.edgeResiduals(divisor) + [UInt64(bitPattern: Int64.min)].filter { _ in Int64.min % divisor == 0 }
            let expected = ResidualKernelTests.expectedTokens(residuals, divisor: divisor)
            #expect(expected != nil, "divisor \(divisor)")
            for (name, tokenizer) in [("dispatched", routelog_tokenize_residuals as ResidualKernelTests.Tokenizer),
                                      ("portable", routelog_tokenize_residuals_portable as ResidualKernelTests.Tokenizer)] {
                let got = ResidualKernelTests.tokenize(residuals, divisor: divisor, with: tokenizer)
                #expect(got.exact, "\(name), divisor \(divisor)")
                #expect(got.u == expected?.u, "\(name), divisor \(divisor)")
                #expect(got.tokens == expected?.tokens, "\(name), divisor \(divisor)")
                // One past the edges, and one off a multiple: not exact.
                for bad in [residuals[3] &+ 1, residuals[5] &- 1] where divisor > 1 {
                    let off = ResidualKernelTests.tokenize(residuals + [bad], divisor: divisor, with: tokenizer)
                    #expect(!off.exact, "\(name), divisor \(divisor), \(Int64(bitPattern: bad))")
                }
            }
        }
    }

    @Test func columnsOfEdgeMultiplesEncodeAsTheReferenceAndReadBack() throws {
        // Values whose order-0 residuals are multiples of a large divisor, Int64.min and
        // Int64.max among them, short and long columns.
        for shift in [1, 2, 30, 47, 48, 61, 62] as [Int64] {
            let divisor: Int64 = 1 << shift
            for n in [3, 4, 5, 7, 8, 33, 255, 256, 257, 300] {
                let pattern: [Int64] = [Int64.min, 0, divisor, -divisor, Int64.max & ~(divisor - 1), Int64.min + divisor]
                let values = (0..<n).map { pattern[$0 % pattern.count] }
                for model in [nil, ResidualModel(order: 0, bias: 0, divisor: divisor),
                              ResidualModel(order: 1, bias: divisor, divisor: divisor)] {
                    let (new, reference) = EncoderV2EdgeTests.both(values, model: model)
                    #expect(new == reference, "shift \(shift), n \(n), \(String(describing: model))")
                    Self.expectBoth(new, count: n, .values(values), "shift \(shift), n \(n), \(String(describing: model))")
                }
            }
        }
    }

    @Test func smallAndBatchEdgeColumnCountsEncodeAsTheReference() throws {
        var g = SeededGenerator(state: 31337)
        for n in Array(0...9) + Array(250...262) + [287, 288, 289] {
            for scale in [1, 1 << 20, 1 << 50] as [Int64] {
                var v: Int64 = 0
                let values = (0..<n).map { _ -> Int64 in
                    v &+= Int64.random(in: -100...100, using: &g) &* scale
                    return v
                }
                let (new, reference) = EncoderV2EdgeTests.both(values)
                #expect(new == reference, "n \(n), scale \(scale)")
                if n > 0 { Self.expectBoth(new, count: n, .values(values), "n \(n), scale \(scale)") }
            }
        }
    }

    @Test func orderCostsAtTheEdgesOfInt64() {
        // Wrapping differences of the extreme values, each order's cost the Swift one.
        let values: [Int64] = [Int64.min, Int64.max, Int64.min, 0, -1, Int64.max, Int64.max, Int64.min, 1, Int64.min]
        for biases in [[0, 0, 0], [Int64.min, Int64.max, -1], [Int64.max, Int64.min, 1]] as [[Int64]] {
            let expected = ResidualKernelTests.plainCosts(values, 2, values.count, biases)
            for (name, got) in ResidualKernelTests.loopCosts(values, 2, values.count, biases) {
                #expect(got == expected, "\(name), biases \(biases)")
            }
        }
    }
}
