import CLZ4

/// The one door to liblz4: block compression of a column block.
enum LZ4Block {
    /// The compressed bytes, or nil when LZ4 cannot make `input` smaller.
    static func compress(_ input: [UInt8]) -> [UInt8]? {
        guard !input.isEmpty, input.count <= Int(LZ4_MAX_INPUT_SIZE) else { return nil }
        let bound = Int(LZ4_compressBound(Int32(input.count)))
        var output = [UInt8](repeating: 0, count: bound)
        let written = input.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                src.withMemoryRebound(to: CChar.self) { s in
                    dst.withMemoryRebound(to: CChar.self) { d in
                        LZ4_compress_default(s.baseAddress, d.baseAddress, Int32(input.count), Int32(bound))
                    }
                }
            }
        }
        guard written > 0, Int(written) < input.count else { return nil }
        output.removeSubrange(Int(written)...)
        return output
    }

    /// Decompresses exactly `rawLength` bytes; nil when the input is not a valid LZ4
    /// block of that size. The caller bounds `rawLength` before calling.
    static func decompress(_ input: ArraySlice<UInt8>, rawLength: Int) -> [UInt8]? {
        guard rawLength > 0, input.count <= Int(Int32.max) else { return nil }
        var output = [UInt8](repeating: 0, count: rawLength)
        let produced = input.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                src.withMemoryRebound(to: CChar.self) { s in
                    dst.withMemoryRebound(to: CChar.self) { d in
                        LZ4_decompress_safe(s.baseAddress, d.baseAddress, Int32(input.count), Int32(rawLength))
                    }
                }
            }
        }
        return produced == Int32(rawLength) ? output : nil
    }
}
