import Foundation
import Testing
@testable import RouteLog

/// The version 2 code: lengths are optimal or near it, never over the limit, always a
/// complete code; canonical codes and the decode table agree with each other.
@Suite struct HuffmanCodeConstructionTests {
    static func lengths(_ weights: [UInt32], limit: Int = 11) -> [UInt8] {
        var code = HuffmanCode()
        var padded = weights + [UInt32](repeating: 0, count: HuffmanCode.symbolCount - weights.count)
        padded.withUnsafeMutableBufferPointer { w in
            code.lengths.withUnsafeMutableBufferPointer {
                HuffmanLengths.build(weights: UnsafeBufferPointer(w), limit: limit, into: $0)
            }
        }
        return code.lengths
    }

    @Test func knownSmallCodes() {
        #expect(Array(Self.lengths([5])[0..<1]) == [1])
        #expect(Array(Self.lengths([1, 1])[0..<2]) == [1, 1])
        #expect(Array(Self.lengths([1, 1, 2])[0..<3]) == [2, 2, 1])
        // Weights 1, 1, 2, 4, 8: the classic skewed tree.
        #expect(Array(Self.lengths([8, 4, 2, 1, 1])[0..<5]) == [1, 2, 3, 4, 4])
        #expect(Array(Self.lengths([0, 3, 0, 3])[0..<4]) == [0, 1, 0, 1])
    }

    @Test func randomWeightsGiveCompleteCodesWithinTheLimit() {
        var g = SeededGenerator(state: 99)
        for round in 0..<500 {
            let count = Int.random(in: 2...HuffmanCode.symbolCount, using: &g)
            // Steep (Fibonacci-like) weights force lengths past the limit before halving.
            let steep = round % 3 == 0
            var weights = (0..<count).map { i -> UInt32 in
                steep ? UInt32(min(Double(UInt32.max / 1024), pow(1.6, Double(i % 40)))) : UInt32.random(in: 0...1000, using: &g)
            }
            if weights.filter({ $0 > 0 }).count < 2 { weights[0] = 1; weights[1] = 1 }
            var code = HuffmanCode()
            code.lengths = Self.lengths(weights)
            #expect(code.problem() == nil, "round \(round)")
            #expect(code.maxLength <= 11)
            for (t, w) in weights.enumerated() { #expect((w == 0) == (code.lengths[t] == 0)) }
        }
    }

    @Test func lengthsAreOptimalWhenNoLimitBinds() {
        // Compare the cost with a straightforward Huffman by repeatedly merging the two lightest.
        var g = SeededGenerator(state: 3)
        for _ in 0..<200 {
            let weights = (0..<Int.random(in: 2...40, using: &g)).map { _ in UInt32.random(in: 1...500, using: &g) }
            let lengths = Self.lengths(weights, limit: 40)
            let cost = zip(weights, lengths).reduce(0) { $0 + Int($1.0) * Int($1.1) }
            var heap = weights.map(Int.init)
            var reference = 0
            while heap.count > 1 {
                heap.sort()
                let merged = heap[0] + heap[1]
                reference += merged
                heap = [merged] + heap.dropFirst(2)
            }
            #expect(cost == reference)
        }
    }

    @Test func theDecodeTableFindsEveryCodeWithItsExtraBits() {
        var code = HuffmanCode()
        // Value tokens 0, 5, 17 (e = 4: two extra bits) and 40, and run token 3.
        code.lengths[0] = 1
        code.lengths[5] = 3
        code.lengths[17] = 3
        code.lengths[40] = 4
        code.lengths[256 + 3] = 4
        code.lengths[41] = 4
        code.lengths[42] = 4
        #expect(code.problem() == nil)
        let storage = UnsafeMutablePointer<UInt64>.allocate(capacity: 2048)
        defer { storage.deallocate() }
        let table = HuffmanDecodeTable(code, storage: storage)
        let decoder = StreamDecoder(table)
        let (bits, lengths) = code.codes()
        // Write token 17 with extra bits 0b10 (u = 16 + 4 + ... base(17) + 2), then a run of 8 + 5.
        var buffer = [UInt8](repeating: 0, count: 64)
        buffer.withUnsafeMutableBufferPointer { b in
            var w = ReferenceBitStreamWriter(b.baseAddress!)
            w.put(UInt64(bits[17]), Int(lengths[17]))
            w.put(0b10, ResidualToken.extraBits(17))
            w.put(UInt64(bits[259]), Int(lengths[259]))
            w.put(5, 3)
            w.put(UInt64(bits[0]), Int(lengths[0]))
            let length = w.finish()
            var cursor = StreamCursor(UnsafePointer(b.baseAddress!), length: length)
            #expect(try! decoder.valueOrRun(&cursor) == (ResidualToken.base(17) + 2, 0))
            #expect(try! decoder.valueOrRun(&cursor) == (0, 13))
            #expect(try! decoder.valueOrRun(&cursor) == (0, 0))
            #expect(cursor.checkEnd() == nil)
        }
    }

    /// Every entry of the decode table against the entry worked out by hand from the
    /// codes `HuffmanCode.codes()` gives: for random codes of every width up to 11 bits,
    /// with and without run tokens, built from every symbol or from only those a lengths
    /// table lists (as a reader builds them), the same 2^width entries.
    @Test func everyDecodeTableEntryIsTheOneTheCodesGive() {
        typealias Table = HuffmanDecodeTable
        var g = SeededGenerator(state: 1313)
        let storage = UnsafeMutablePointer<UInt64>.allocate(capacity: 2048)
        defer { storage.deallocate() }
        var widths = Set<Int>()
        for round in 0..<400 {
            let withRuns = round % 3 == 0
            let symbols = withRuns ? HuffmanCode.symbolCount : FormatConstants.ColumnV2.valueTokens
            // A few to many used symbols, with weights from flat to steep.
            let used = [1, 2, 3, 9, 40, 120, 276][round % 7]
            var weights = [UInt32](repeating: 0, count: HuffmanCode.symbolCount)
            for _ in 0..<used {
                let symbol = Int.random(in: 0..<symbols, using: &g)
                weights[symbol] = UInt32.random(in: 1...(round % 2 == 0 ? 4 : 1 << 20), using: &g)
            }
            var code = HuffmanCode()
            weights.withUnsafeBufferPointer { w in
                code.lengths.withUnsafeMutableBufferPointer { l in
                    HuffmanLengths.build(weights: UnsafeBufferPointer(rebasing: w[0..<symbols]), limit: 9 + round % 3, into: l)
                }
            }
            if round % 2 == 1 {  // as a reader lists them: up to the last used value and run token
                code.valueTokensListed = (code.lengths[0..<256].lastIndex { $0 > 0 } ?? -1) + 1
                code.runTokensListed = (code.lengths[256...].lastIndex { $0 > 0 }.map { $0 - 255 }) ?? 0
            }
            guard code.problem() == nil else {
                Issue.record("round \(round): \(code.problem()!)")
                continue
            }
            let table = Table(code, storage: storage)
            let width = code.maxLength
            widths.insert(width)
            #expect(table.bits == width, "round \(round)")
            let (bits, lengths) = code.codes()
            var mismatches = 0
            for index in 0..<(1 << width) {
                let symbol = (0..<HuffmanCode.symbolCount).first { s in
                    lengths[s] > 0 && UInt32(index) & ((1 << UInt32(lengths[s])) - 1) == bits[s]
                }
                let expected: UInt64
                if let symbol {
                    let length = Int(lengths[symbol]), isValue = symbol < 256
                    let extra = isValue ? ResidualToken.extraBits(symbol) : symbol - 256
                    let base = isValue ? ResidualToken.base(symbol) : UInt64(1) << UInt64(extra)
                    if isValue && length + extra <= width {
                        let low = UInt64(index >> length) & ((1 << UInt64(extra)) - 1)
                        expected = Table.entry(total: length + extra, code: length + extra, base: base + low)
                    } else if base >= Table.baseLimit {
                        expected = Table.entry(total: length, code: length, base: UInt64(symbol), flags: Table.slow)
                    } else {
                        expected = Table.entry(total: length + extra, code: length, base: base, flags: isValue ? 0 : Table.run)
                    }
                } else {
                    expected = Table.slow  // a single code of one bit: no code starts here
                }
                if storage[index] != expected { mismatches += 1 }
            }
            #expect(mismatches == 0, "round \(round): \(mismatches) of \(1 << width) entries differ")
        }
        #expect(widths.isSuperset(of: [1, 9, 10, 11]), "widths tried: \(widths.sorted())")
    }

    /// What the C loops (`residual_streams.c`) rely on to check the tokens of one window
    /// with one comparison: an entry's low byte is its token's bits, at most 57, when the
    /// loops may take it, and 128 or more when it must be read by hand (no code starts
    /// there, or a value too large for the base field), so that a sum of such bytes of at
    /// most 57 says that every token fits the window and none is slow.
    @Test func everyEntrysLowByteIsItsBitsOrMarksItSlow() {
        typealias Table = HuffmanDecodeTable
        var g = SeededGenerator(state: 1717)
        let storage = UnsafeMutablePointer<UInt64>.allocate(capacity: 2048)
        defer { storage.deallocate() }
        var slow = 0, fast = 0, longest = 0
        for round in 0..<120 {
            // Every symbol, or a random few with the largest value tokens among them.
            var weights = [UInt32](repeating: 0, count: HuffmanCode.symbolCount)
            if round == 0 {
                weights = weights.map { _ in 1 }
            } else {
                for symbol in [191, 192, 255] + (0..<[1, 5, 40][round % 3]).map({ _ in Int.random(in: 0..<276, using: &g) }) {
                    weights[symbol] = UInt32.random(in: 1...1000, using: &g)
                }
            }
            var code = HuffmanCode()
            weights.withUnsafeBufferPointer { w in
                code.lengths.withUnsafeMutableBufferPointer { HuffmanLengths.build(weights: w, limit: 11, into: $0) }
            }
            guard code.problem() == nil else {
                Issue.record("round \(round): \(code.problem()!)")
                continue
            }
            let table = Table(code, storage: storage)
            for index in 0..<(1 << table.bits) {
                let entry = storage[index], low = entry & 0xFF
                if entry & Table.slow != 0 {
                    slow += 1
                    #expect(low >= 128, "round \(round), entry \(index): slow, low byte \(low)")
                } else {
                    fast += 1
                    longest = max(longest, Int(low))
                    #expect(low == entry & Table.totalMask && low <= 57, "round \(round), entry \(index): low byte \(low)")
                }
            }
        }
        // Both kinds were seen, and the longest token the loops take (code and 45 extra bits).
        #expect(slow > 0 && fast > 0 && longest > 45, "slow \(slow), fast \(fast), longest \(longest)")
    }

    @Test func tokensCoverEveryValueOnce() {
        // Every u maps to a token whose base and extra bits give u back.
        var g = SeededGenerator(state: 12)
        var values: [UInt64] = Array(0...300) + [UInt64.max, UInt64.max - 1, 1 << 63, (1 << 48) - 1, 1 << 48]
        for _ in 0..<10_000 { values.append(UInt64.random(in: 0...UInt64.max, using: &g) >> UInt64.random(in: 0...63, using: &g)) }
        for u in values {
            let t = ResidualToken.token(u)
            #expect(t >= 0 && t < 256)
            let extra = ResidualToken.extraBits(t)
            let low = extra == 0 ? 0 : u & ((1 << UInt64(extra)) - 1)
            #expect(ResidualToken.base(t) + low == u, "u \(u) token \(t)")
        }
    }
}
