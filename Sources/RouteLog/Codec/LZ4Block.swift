/// The one door to LZ4: raw block compression of a column block (format-spec.md,
/// "PointBlock"). Two providers stand behind it, one per build, with the same two
/// functions (`encodeBlock`, `decodeBlock`):
/// - `LZ4Block+LibLZ4.swift`: the system's liblz4 (Linux and other non-Apple systems);
/// - `LZ4Block+Compression.swift`: Apple's Compression framework, `COMPRESSION_LZ4_RAW`.
///
/// Both read and write the standard LZ4 block format, so a store moves between them
/// unchanged. They differ in how they fail, and this door hides that: it refuses what
/// does not shrink, and demands that a block decode to exactly `rawLength` bytes.
enum LZ4Block {
    /// LZ4's own limit on one block's input (LZ4_MAX_INPUT_SIZE), kept for every provider
    /// so that the same input compresses or not everywhere.
    static let maxInputLength = 0x7E00_0000

    /// The compressed bytes, or nil when LZ4 cannot make `input` smaller.
    static func compress(_ input: [UInt8]) -> [UInt8]? {
        guard !input.isEmpty, input.count <= maxInputLength else { return nil }
        var output = [UInt8](repeating: 0, count: encodeCapacity(for: input.count))
        let written = input.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in encodeBlock(src, into: dst) }
        }
        // 0 is every provider's "did not fit"; a block as long as its input saves nothing.
        guard written > 0, written < input.count else { return nil }
        output.removeSubrange(written...)
        return output
    }

    /// Decompresses exactly `rawLength` bytes; nil when the input is not a valid LZ4
    /// block of that size. The caller bounds `rawLength` before calling.
    static func decompress(_ input: ArraySlice<UInt8>, rawLength: Int) -> [UInt8]? {
        guard rawLength > 0, rawLength < maxInputLength, !input.isEmpty, input.count <= maxInputLength else {
            return nil
        }
        // One byte more than asked: the Compression framework stops quietly when its
        // output is full, so a block that decodes to more than `rawLength` would look
        // exactly right in a buffer of `rawLength`. With room for one more byte it shows.
        var output = [UInt8](repeating: 0, count: rawLength + 1)
        let produced = input.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in decodeBlock(src, into: dst) }
        }
        // Fewer bytes is a truncated or damaged block (the framework reports those as
        // a short count, liblz4 as a negative one); more is a block of another size.
        guard produced == rawLength else { return nil }
        output.removeLast()
        return output
    }
}
