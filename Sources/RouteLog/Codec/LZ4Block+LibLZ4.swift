// The liblz4 provider of the LZ4 door (LZ4Block.swift), for every system without
// Apple's Compression framework. Package.swift makes CLZ4 a dependency on those systems only.
#if !canImport(Compression)
import CLZ4

extension LZ4Block {
    /// Output room for `count` bytes of input: LZ4's worst case, so that liblz4 takes its
    /// unlimited-output path and its bytes stay what they have always been.
    static func encodeCapacity(for count: Int) -> Int {
        Int(LZ4_compressBound(Int32(count)))
    }

    /// Compresses `src` into `dst`; the bytes written, or 0 when they do not fit.
    static func encodeBlock(_ src: UnsafeBufferPointer<UInt8>, into dst: UnsafeMutableBufferPointer<UInt8>) -> Int {
        src.withMemoryRebound(to: CChar.self) { s in
            dst.withMemoryRebound(to: CChar.self) { d in
                Int(LZ4_compress_default(s.baseAddress, d.baseAddress, Int32(s.count), Int32(d.count)))
            }
        }
    }

    /// Decompresses `src` into `dst`; the bytes produced, or -1 when `src` is not a
    /// valid LZ4 block or decodes to more than `dst` holds.
    static func decodeBlock(_ src: UnsafeBufferPointer<UInt8>, into dst: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let produced = src.withMemoryRebound(to: CChar.self) { s in
            dst.withMemoryRebound(to: CChar.self) { d in
                LZ4_decompress_safe(s.baseAddress, d.baseAddress, Int32(s.count), Int32(d.count))
            }
        }
        return produced < 0 ? -1 : Int(produced)
    }
}
#endif
