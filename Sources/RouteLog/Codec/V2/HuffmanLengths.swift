import CRouteLogSystem

/// Code lengths of a minimum-redundancy (Huffman) code, no longer than a limit.
///
/// Lengths come from Moffat and Katajainen's in-place algorithm over the weights
/// sorted ascending ("In-place calculation of minimum-redundancy codes", 1995). When a
/// length passes the limit, the weights are halved (rounding up, so none becomes 0) and
/// the code rebuilt: flatter weights make a shallower tree, and with at most 276
/// tokens every length fits in 9 bits once the weights are equal.
///
/// The build runs in C (`routelog_huffman_lengths`, huffman_lengths.c): every column of
/// every save builds one or two codes, and in Swift, with the generic sort and the size
/// worked out after it, a code took about 8,700 instructions, in C about 4,500
/// (callgrind). `HuffmanLengthsOracleTests` holds the Swift build it replaced, and
/// checks that both give the same lengths and sizes.
enum HuffmanLengths {
    /// What a column's code sends: code and extra bits of every token counted, and one
    /// past the last used value token and run token (tokens 256 and up are run tokens).
    struct Size: Equatable {
        var bits: Int
        var valueTokensListed: Int
        var runTokensListed: Int
    }

    /// Writes into `lengths[t]` the code length of token `t` (0 for tokens with weight
    /// 0). A single used token gets length 1.
    @discardableResult
    static func build(weights: UnsafeBufferPointer<UInt32>, limit: Int, into lengths: UnsafeMutableBufferPointer<UInt8>) -> Size {
        precondition(weights.count <= lengths.count && weights.count <= HuffmanCode.symbolCount && limit >= 9)
        lengths.update(repeating: 0)
        guard let w = weights.baseAddress, let l = lengths.baseAddress else { return Size(bits: 0, valueTokensListed: 0, runTokensListed: 0) }
        let size = routelog_huffman_lengths(w, weights.count, Int32(limit), l)
        return Size(bits: Int(size.bits), valueTokensListed: size.value_tokens_listed, runTokensListed: size.run_tokens_listed)
    }
}
