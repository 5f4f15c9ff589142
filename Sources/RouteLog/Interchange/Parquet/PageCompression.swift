/// Compresses a page for its column chunk's codec. LZ4_RAW (Compression.md) is one raw
/// LZ4 block per page, the block format the store already writes, made by the store's
/// LZ4 door.
enum PageCompression {
    static func compress(_ page: [UInt8], codec: ParquetFormat.Codec) -> [UInt8] {
        switch codec {
        case .uncompressed: return page
        case .lz4Raw: return LZ4Block.compress(page) ?? literalBlock(page)
        }
    }

    /// A valid LZ4 block that holds `bytes` as literals only. The store's door declines
    /// input LZ4 cannot shrink (and empty input), but in a LZ4_RAW column every page must
    /// be a block: one sequence of literals with no match is one (its token's high nibble
    /// is the literal count, 15 and up continued in bytes of 255 and a remainder).
    static func literalBlock(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 255 + 2)
        let count = bytes.count
        out.append(UInt8(min(count, 15)) << 4)
        if count >= 15 {
            var rest = count - 15
            while rest >= 255 {
                out.append(255)
                rest -= 255
            }
            out.append(UInt8(rest))
        }
        out.append(contentsOf: bytes)
        return out
    }
}
