/// The RLE/bit-packing hybrid (Encodings.md, "Run Length Encoding / Bit-Packing
/// Hybrid"): runs of one repeated value, and groups of 8 values bit-packed. Used for
/// definition levels (width 1) and dictionary indices.
enum RLEHybrid {
    /// Runs shorter than this are bit-packed with their neighbours.
    private static let shortestRun = 8

    /// Appends `values` (each below 2^width) at `width` bits, without a length prefix.
    static func encode<V: FixedWidthInteger & UnsignedInteger>(_ values: UnsafeBufferPointer<V>, width: Int,
                                                               into out: inout [UInt8]) {
        // Worst case: every value in its own group of 8 with a header, or a run header
        // and value per 8 values.
        let capacity = 16 + (values.count / 8 + 1) * (10 + width + (width + 7) / 8)
        ByteSink.append(to: &out, capacity: capacity) { sink in encode(values, width: width, into: &sink) }
    }

    private static func encode<V: FixedWidthInteger & UnsignedInteger>(_ values: UnsafeBufferPointer<V>, width: Int,
                                                                       into sink: inout ByteSink) {
        let n = values.count
        func run(at i: Int, cap: Int) -> Int {
            var j = i + 1
            while j < n && j - i < cap && values[j] == values[i] { j += 1 }
            return j - i
        }
        var i = 0
        while i < n {
            let length = run(at: i, cap: Int(Int32.max))
            if length >= shortestRun {
                sink.varint(UInt64(length) << 1)
                sink.word(UInt64(values[i]), bytes: (width + 7) / 8)
                i += length
                continue
            }
            // Groups of 8 until a long run starts at a group boundary (or the values end;
            // the last group is padded with zeros, which readers never count as values).
            var end = i
            repeat { end += 8 } while end < n && run(at: end, cap: shortestRun) < shortestRun
            sink.varint(UInt64((end - i) / 8) << 1 | 1)
            let first = i
            BitPacking.pack(count: end - i, width: width, into: &sink) { j in
                first + j < n ? UInt64(values[first + j]) : 0
            }
            i = end
        }
    }

    /// Definition levels of a data page v1: their byte length (4 bytes, little endian),
    /// then the hybrid encoding at width 1.
    static func appendDefinitionLevels(_ levels: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        let lengthAt = out.count
        out.append(contentsOf: [0, 0, 0, 0])
        encode(levels, width: 1, into: &out)
        let length = UInt32(out.count - lengthAt - 4)
        for k in 0..<4 { out[lengthAt + k] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(k))) }
    }

    static func appendDefinitionLevels(_ levels: [UInt8], to out: inout [UInt8]) {
        levels.withUnsafeBufferPointer { appendDefinitionLevels($0, to: &out) }
    }
}
