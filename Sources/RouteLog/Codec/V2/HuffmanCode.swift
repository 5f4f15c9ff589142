import CRouteLogSystem

/// A version 2 column's canonical Huffman code (format-spec.md, "PointBlock", "The
/// code"): code lengths per symbol, the codes a writer sends, and the table a reader
/// decodes with. Symbols 0...255 are value tokens, 256 + j is run token j.
struct HuffmanCode {
    typealias V2 = FormatConstants.ColumnV2
    static let symbolCount = V2.valueTokens + V2.runTokens

    /// Length of each symbol's code (0: unused).
    var lengths = [UInt8](repeating: 0, count: symbolCount)

    /// How many value tokens and run tokens may have a length: A and B of the lengths
    /// table a reader was given (format-spec.md, "The code"), every token otherwise.
    /// Symbols past them have length 0, so a reader's loops over the code stop there
    /// (a walk's columns use 5 to 65 of the 276 symbols).
    var valueTokensListed = V2.valueTokens
    var runTokensListed = V2.runTokens

    /// Calls `body` with each symbol that may have a length, in symbol order.
    @inline(__always)
    func forEachListedSymbol(_ body: (Int) -> Void) {
        for symbol in 0..<valueTokensListed { body(symbol) }
        for j in 0..<runTokensListed { body(V2.valueTokens + j) }
    }

    /// Each used symbol's code, bit-reversed so that its first bit is the lowest (the
    /// streams are read from bit 0 up), and its length.
    func codes() -> (bits: [UInt32], lengths: [UInt8]) {
        var bits = [UInt32](repeating: 0, count: Self.symbolCount)
        forEachCode { symbol, _, code in bits[symbol] = code }
        return (bits, lengths)
    }

    /// Calls `body` with each listed symbol that has a code: the symbol, its code's
    /// length, and the code bit-reversed (as ``codes()`` gives it). Canonical order,
    /// as DEFLATE assigns codes: within each length, value tokens, then run tokens, in
    /// symbol order. Allocates nothing, for the writer's table of every column a save
    /// writes.
    @inline(__always)
    func forEachCode(_ body: (_ symbol: Int, _ length: Int, _ code: UInt32) -> Void) {
        let maxLength = V2.maxCodeLength
        lengths.withUnsafeBufferPointer { lengths in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 2 * (maxLength + 2)) { scratch in
                let perLength = scratch.baseAddress!, next = perLength + maxLength + 2
                perLength.initialize(repeating: 0, count: 2 * (maxLength + 2))
                forEachListedSymbol { symbol in
                    let length = Int(lengths[symbol])
                    if length > 0 { perLength[length] &+= 1 }
                }
                var first: UInt32 = 0  // DEFLATE's first code of each length
                for length in 1...maxLength {
                    first = (first &+ perLength[length &- 1]) &<< 1
                    next[length] = first
                }
                forEachListedSymbol { symbol in
                    let length = Int(lengths[symbol])
                    guard length > 0 else { return }
                    body(symbol, length, Self.reversed(next[length], length))
                    next[length] &+= 1
                }
            }
        }
    }

    @inline(__always)
    static func reversed(_ code: UInt32, _ length: Int) -> UInt32 {
        var result: UInt32 = 0, c = code
        for _ in 0..<length {
            result = (result << 1) | (c & 1)
            c >>= 1
        }
        return result
    }

    /// Checks what a reader was given: lengths of at most 11, and a complete code (or a
    /// single code of length 1). Returns a reason when they are not.
    func problem() -> String? {
        var used = 0, kraft = 0, single = 0, tooLong = 0
        forEachListedSymbol { symbol in
            let length = Int(lengths[symbol])
            guard length > 0 else { return }
            guard length <= V2.maxCodeLength else {
                if tooLong == 0 { tooLong = length }  // the first, in symbol order
                return
            }
            used += 1
            kraft += 1 &<< (V2.maxCodeLength - length)
            single = length
        }
        if tooLong > 0 { return "a code of \(tooLong) bits (at most \(V2.maxCodeLength))" }
        if used == 0 { return "a code with no symbols" }
        if used == 1 { return single == 1 ? nil : "a single code of \(single) bits (must be 1)" }
        return kraft == 1 << V2.maxCodeLength ? nil : "an incomplete or oversubscribed code"
    }

    /// The longest code used (the width of the decode table).
    var maxLength: Int { Int(lengths.max() ?? 0) }
}

/// A reader's lookup table for one code: indexed by the next `bits` bits of a stream,
/// each entry says how many bits the code takes, how many extra bits follow and what
/// to add them to, so that every value is decoded the same way, without a branch:
/// u = base + (the extra bits). When a token's extra bits fit in the window too, the
/// entry already holds the whole value (no extra bits left).
///
/// Entry layout: bits 0-6 the bits the token takes (code and extra bits), bit 7
/// "decode by hand" (no code starts here, or a value too large for the base field),
/// bits 8-13 the code's bits, bit 14 a run token (base + extra is the run's length),
/// bits 16-63 the base. The token's whole length comes first, on its own, because a
/// stream's next position waits on it: one byte read after the table load. The flag
/// shares that byte, so that the byte is 128 or more for an entry read by hand: the C
/// loops add the bytes of the tokens that share a window and test the sum once.
struct HuffmanDecodeTable {
    static let totalMask: UInt64 = 0x7F
    static let slow: UInt64 = 1 << 7
    static let codeShift: UInt64 = 8
    static let codeMask: UInt64 = 0x3F
    static let run: UInt64 = 1 << 14
    static let baseShift: UInt64 = 16
    /// Bases from 2^48 on do not fit: those (absurd) values are decoded by hand.
    static let baseLimit: UInt64 = 1 << 48

    /// An entry's fields (see the layout above).
    @inline(__always)
    static func entry(total: Int, code: Int, base: UInt64, flags: UInt64 = 0) -> UInt64 {
        UInt64(total) | UInt64(code) << codeShift | flags | base << baseShift
    }

    let bits: Int
    let entries: UnsafeMutablePointer<UInt64>

    /// Fills `storage` (room for 2^11 entries) for `code`, which must have passed
    /// ``HuffmanCode/problem()``. Made once per column a load decodes, so it allocates
    /// nothing and is made in C (`routelog_fill_decode_table`, in `decode_table.c`): the
    /// canonical codes worked out in place, as ``HuffmanCode/codes()`` gives them
    /// (within a length, in symbol order), over only the symbols the column's lengths
    /// table lists; each symbol's entries are its whole value when its extra bits fit the
    /// table's width too, else its base and extra-bit count.
    init(_ code: HuffmanCode, storage: UnsafeMutablePointer<UInt64>) {
        entries = storage
        bits = code.lengths.withUnsafeBufferPointer { lengths in
            Int(routelog_fill_decode_table(lengths.baseAddress, code.valueTokensListed, code.runTokensListed, storage))
        }
    }
}
