/// The RLE/bit-packing hybrid (Encodings.md, "Run Length Encoding / Bit-Packing
/// Hybrid"): runs of one repeated value, and groups of 8 values bit-packed. Used for
/// definition levels (width 1) and dictionary indices.
enum RLEHybrid {
    /// Runs shorter than this are bit-packed with their neighbours.
    private static let shortestRun = 8

    /// Appends `values` (each below 2^width) at `width` bits, without a length prefix.
    static func encode<V: FixedWidthInteger & UnsignedInteger>(_ values: UnsafeBufferPointer<V>, width: Int,
                                                               into out: inout [UInt8]) {
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
                BitPacking.appendVarint(UInt64(length) << 1, to: &out)
                BitPacking.appendWord(UInt64(values[i]), bytes: (width + 7) / 8, to: &out)
                i += length
                continue
            }
            // Groups of 8 until a long run starts at a group boundary (or the values end;
            // the last group is padded with zeros, which readers never count as values).
            var end = i
            repeat { end += 8 } while end < n && run(at: end, cap: shortestRun) < shortestRun
            let groups = (end - i) / 8
            BitPacking.appendVarint(UInt64(groups) << 1 | 1, to: &out)
            let first = i
            BitPacking.pack(count: end - i, width: width, into: &out) { j in
                first + j < n ? UInt64(values[first + j]) : 0
            }
            i = end
        }
    }

    /// Definition levels of a data page v1: their byte length (4 bytes, little endian),
    /// then the hybrid encoding at width 1.
    static func appendDefinitionLevels(_ levels: [UInt8], to out: inout [UInt8]) {
        let lengthAt = out.count
        out.append(contentsOf: [0, 0, 0, 0])
        levels.withUnsafeBufferPointer { encode($0, width: 1, into: &out) }
        let length = UInt32(out.count - lengthAt - 4)
        for k in 0..<4 { out[lengthAt + k] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(k))) }
    }
}
