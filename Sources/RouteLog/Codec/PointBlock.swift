import Synchronization

/// The envelope of a version 1 column block (format-spec.md, "PointBlock", "Version
/// 1"), and which version a writer uses.
enum PointBlock {
    /// The point-block version this library writes unless the benchmark chose one
    /// (``CodecBenchmarkHooks/writePointBlocks(version:)``). It is independent of the
    /// file-format version: a file of either format version may hold blocks of either,
    /// and readers decode both.
    static var writtenVersion: Int {
        versionChoice.withLock { $0 } ?? currentVersion
    }

    /// The newest point-block version (format-spec.md, "PointBlock").
    static let currentVersion = 2

    static let versionChoice = Mutex<Int?>(nil)

    static func encode(columns: [UInt8]) -> [UInt8] {
        var out = ByteWriter(capacity: columns.count / 2 + 16)
        if let compressed = LZ4Block.compress(columns) {
            out.u8(FormatConstants.Compression.lz4.rawValue)
            out.varint(columns.count)
            out.append(contentsOf: compressed)
        } else {
            out.u8(FormatConstants.Compression.none.rawValue)
            out.varint(columns.count)
            out.append(contentsOf: columns)
        }
        return out.bytes
    }

    static func decode(_ block: ArraySlice<UInt8>) throws -> [UInt8] {
        var reader = ByteReader(block)
        let method = try reader.u8()
        let rawLength = try reader.count(max: FormatConstants.maxPayloadLength)
        let body = try reader.bytes(reader.remaining)
        switch FormatConstants.Compression(rawValue: method) {
        case .some(.none):
            guard body.count == rawLength else { throw reader.fail("stored block is \(body.count) bytes, header says \(rawLength)") }
            return Array(body)
        case .some(.lz4):
            guard rawLength <= body.count * FormatConstants.lz4MaxRatio + 16 else {
                throw reader.fail("LZ4 block claims \(rawLength) bytes from \(body.count), beyond LZ4's 255:1")
            }
            guard let raw = LZ4Block.decompress(body, rawLength: rawLength) else {
                throw reader.fail("LZ4 block does not decompress to \(rawLength) bytes")
            }
            return raw
        case .some(.columnsV2):
            throw reader.fail("a version 2 block has no version 1 column block")
        default:
            throw reader.fail("unknown compression \(method)")
        }
    }
}
