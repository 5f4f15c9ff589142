import CRouteLogSystem

/// The code of one column's residuals: token counts, the choice between plain tokens
/// and zero runs (whichever writes fewer bits), and the code it sends each token with.
final class CodePlan {
    typealias V2 = FormatConstants.ColumnV2

    /// True when zeros are sent as run tokens.
    let runs: Bool
    let code: HuffmanCode
    /// Per symbol: code bits (reversed) in bits 0-31, code length in bits 32-39, extra
    /// bits in 40-47, code and extra bits together in 48-55: one load per value in the
    /// write loop.
    private let send: UnsafeMutablePointer<UInt64>
    /// Per symbol: the mask of its extra bits, so the write loop needs no shift for it.
    private let extraMasks: UnsafeMutablePointer<UInt64>
    /// The most bits one value takes, code and extra bits, over the symbols the code
    /// has (0 for none).
    let longestValue: Int

    /// Builds the cheaper code for residuals whose tokens are `tokens` (one byte each;
    /// 0 exactly for the value 0), counted into `tokenCounts` (``valueTokens`` entries)
    /// as they were made.
    init(tokens: UnsafeBufferPointer<UInt8>, tokenCounts: UnsafeBufferPointer<UInt32>) {
        let choice = withUnsafeTemporaryAllocation(of: UInt32.self, capacity: HuffmanCode.symbolCount) { counts in
            counts.initialize(repeating: 0)
            for t in 0..<V2.valueTokens { counts[t] = tokenCounts[t] }
            let zeros = Int(counts[0])
            // Zero runs pay only when zeros are common; counting runs needs another pass
            // over the tokens (`routelog_count_zero_runs`, C: 64 tokens a step, from the
            // edges of a mask of their zeros), the scan that writing them goes through too.
            let tryRuns = zeros * 16 >= tokens.count
            if tryRuns, let t = tokens.baseAddress {
                routelog_count_zero_runs(t, tokens.count, counts.baseAddress! + V2.valueTokens)
            }
            let plain = Self.build(UnsafeBufferPointer(counts), withRuns: false)
            var choice = (runs: false, code: plain.code)
            if tryRuns {
                counts[0] = 0
                let withRuns = Self.build(UnsafeBufferPointer(counts), withRuns: true)
                if withRuns.bits < plain.bits { choice = (true, withRuns.code) }
            }
            return choice
        }
        runs = choice.runs
        code = choice.code
        // Both tables in one allocation, zeroed at once (one allocation and one fill a
        // column fewer).
        send = .allocate(capacity: 2 * HuffmanCode.symbolCount)
        send.initialize(repeating: 0, count: 2 * HuffmanCode.symbolCount)
        extraMasks = send + HuffmanCode.symbolCount
        longestValue = Self.fill(send, extraMasks, for: code)
    }

    /// Each used symbol's entries (an unused one is never looked up and stays 0); returns
    /// the most bits one value takes. Shaped for speed: it visits only the symbols the
    /// code lists (a walk's columns use 5 to 65 of the 276), with no arrays made, where a
    /// pass over every symbol through ``HuffmanCode/codes()`` took a tenth of a column's
    /// write.
    private static func fill(_ send: UnsafeMutablePointer<UInt64>, _ extraMasks: UnsafeMutablePointer<UInt64>,
                             for code: HuffmanCode) -> Int {
        var longest = 0
        code.forEachCode { symbol, length, bits in
            let extra = symbol < V2.valueTokens ? ResidualToken.extraBits(symbol) : symbol &- V2.valueTokens
            // The writer's BMI2 path keeps the low `total` bits of the entry with the value
            // shifted past the code (routelog_write_residual_streams): it needs the code
            // below 2^length and the total at length + extra, as made here, and the
            // longest total returned, which sizes its groups of values.
            assert(UInt64(bits) >> UInt64(length) == 0, "a code longer than its length")
            send[symbol] = UInt64(bits) | UInt64(length) &<< 32 | UInt64(extra) &<< 40 | UInt64(length &+ extra) &<< 48
            extraMasks[symbol] = (1 &<< UInt64(extra)) &- 1
            longest = max(longest, length &+ extra)
        }
        return longest
    }

    /// Per symbol: code bits, length and extra bits packed (see the stored property).
    var sendTable: UnsafePointer<UInt64> { UnsafePointer(send) }

    /// Per symbol: the mask of its extra bits.
    var extraMaskTable: UnsafePointer<UInt64> { UnsafePointer(extraMasks) }

    deinit {
        send.deallocate()  // and extraMasks, which is in the same allocation
    }

    /// A code for `counts` (run tokens ignored unless `withRuns`) and the bits it would
    /// write: codes, extra bits and the lengths table.
    private static func build(_ counts: UnsafeBufferPointer<UInt32>, withRuns: Bool) -> (code: HuffmanCode, bits: Int) {
        var code = HuffmanCode()
        let used = withRuns ? HuffmanCode.symbolCount : V2.valueTokens
        // The sizes come with the lengths, from the used tokens only (C): worked out here
        // over all 276 symbols, with the lengths table scanned for the last used ones,
        // they cost a save about 30,000 instructions.
        let size = code.lengths.withUnsafeMutableBufferPointer { lengths in
            HuffmanLengths.build(weights: UnsafeBufferPointer(rebasing: counts[0..<used]), limit: V2.writtenCodeLength,
                                 into: lengths)
        }
        // Symbols past the last used ones have no code: the loops over the code skip them.
        code.valueTokensListed = size.valueTokensListed
        code.runTokensListed = size.runTokensListed
        return (code, size.bits + 4 * (size.valueTokensListed + size.runTokensListed) + 16)
    }

    /// A and B of the lengths table: one past the last used value and run token.
    private static func tokenCounts(_ code: HuffmanCode, withRuns: Bool) -> (values: Int, runs: Int) {
        let values = (code.lengths[0..<V2.valueTokens].lastIndex { $0 > 0 } ?? -1) + 1
        guard withRuns else { return (values, 0) }
        let runs = (code.lengths[V2.valueTokens...].lastIndex { $0 > 0 }.map { $0 - V2.valueTokens } ?? -1) + 1
        return (values, runs)
    }

    /// The code lengths as the format stores them: token counts, then nibbles.
    func writeLengths(to out: inout ByteWriter) { Self.writeLengths(code, runs: runs, to: &out) }

    /// The lengths of `code` (with run tokens when `runs`) as the format stores them.
    static func writeLengths(_ code: HuffmanCode, runs: Bool, to out: inout ByteWriter) {
        let (values, runCount) = tokenCounts(code, withRuns: runs)
        out.varint(values)
        if runs { out.varint(runCount) }
        let all = Array(code.lengths[0..<values]) + Array(code.lengths[V2.valueTokens..<(V2.valueTokens + runCount)])
        var i = 0
        while i < all.count {
            out.u8(all[i] | (i + 1 < all.count ? all[i + 1] << 4 : 0))
            i += 2
        }
    }
}
