// Apple platforms only: the Compression framework's provider of the LZ4 door
// (LZ4Block.swift). COMPRESSION_LZ4_RAW is the bare LZ4 block format, the bytes liblz4
// reads and writes (COMPRESSION_LZ4 would add Apple's own block headers).
#if canImport(Compression)
import Compression

extension LZ4Block {
    /// Output room for `count` bytes of input. Apple's encoder keeps a safety margin at
    /// the end of its output buffer (128 bytes in its published source) and gives up
    /// when a block comes within it; the margin lets any block shorter than its input fit.
    static func encodeCapacity(for count: Int) -> Int {
        count + 256
    }

    /// Compresses `src` into `dst`; the bytes written, or 0 when they do not fit.
    static func encodeBlock(_ src: UnsafeBufferPointer<UInt8>, into dst: UnsafeMutableBufferPointer<UInt8>) -> Int {
        guard let source = src.baseAddress, let destination = dst.baseAddress else { return 0 }
        return compression_encode_buffer(destination, dst.count, source, src.count, nil, COMPRESSION_LZ4_RAW)
    }

    /// Decompresses `src` into `dst`; the bytes produced. The framework returns 0 on
    /// malformed input, and stops early, returning a short count, when the input ends
    /// mid-block or `dst` fills: the door compares the count with the size it expects.
    static func decodeBlock(_ src: UnsafeBufferPointer<UInt8>, into dst: UnsafeMutableBufferPointer<UInt8>) -> Int {
        guard let source = src.baseAddress, let destination = dst.baseAddress else { return 0 }
        return compression_decode_buffer(destination, dst.count, source, src.count, nil, COMPRESSION_LZ4_RAW)
    }
}
#endif
