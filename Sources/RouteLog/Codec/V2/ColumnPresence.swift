/// Which points an optional column has a value for (format-spec.md, "PointBlock",
/// "Presence"): a bitmap, or alternating runs when they are shorter.
struct ColumnPresence: Equatable {
    /// Bit i % 8 of byte i / 8 set when point i has a value.
    var bitmap: [UInt8]
    let pointCount: Int

    /// Run lengths, alternately present and absent, starting with present.
    var runs: [Int] {
        var result: [Int] = []
        var current = true, length = 0
        for i in 0..<pointCount {
            let present = bitmap[i >> 3] & (1 << UInt8(i & 7)) != 0
            if present == current {
                length += 1
            } else {
                result.append(length)
                current = present
                length = 1
            }
        }
        result.append(length)
        return result
    }

    /// Writes the presence and returns its encoding bit.
    func write(to out: inout ByteWriter) -> UInt8 {
        let runs = self.runs
        let runBytes = ByteWriter.varintSize(UInt64(runs.count)) + runs.reduce(0) { $0 + ByteWriter.varintSize(UInt64($1)) }
        if runBytes < bitmap.count {
            out.varint(runs.count)
            for run in runs { out.varint(run) }
            return FormatConstants.ColumnV2.presenceRuns
        }
        out.append(contentsOf: bitmap)
        return FormatConstants.columnHasBitmap
    }
}
