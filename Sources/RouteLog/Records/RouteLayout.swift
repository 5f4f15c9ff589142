/// A route's splits and segment starts as stored (format-spec.md, "Layout"): in a
/// RoutePut, a RecordingFinish, and (the part added since the last flush) a RecordingChunk.
struct RouteLayout: Equatable, Sendable {
    var splits: [Split] = []
    var segmentStarts: [Int] = []

    var isEmpty: Bool { splits.isEmpty && segmentStarts.isEmpty }

    func write(to w: inout ByteWriter) {
        w.varint(splits.count)
        for split in splits {
            w.u8(split.unit.rawValue)
            w.varint(split.pointIndex)
            w.varint(UInt64(Quantization.milliseconds(split.elapsedTime)))
        }
        w.varint(segmentStarts.count)
        for start in segmentStarts { w.varint(start) }
    }

    /// Reads a layout whose point indices must be below `pointLimit`.
    init(from r: inout ByteReader, pointLimit: Int) throws {
        let splitCount = try r.count(max: r.remaining / 3)
        for _ in 0..<splitCount {
            guard let unit = Split.Unit(rawValue: try r.u8()) else { throw r.fail("unknown split unit") }
            guard pointLimit > 0 else { throw r.fail("a split with no point to refer to") }
            let index = try r.count(max: pointLimit - 1)
            let elapsed = try r.varint()
            guard elapsed < 1 << 53 else { throw r.fail("split time \(elapsed) ms") }
            splits.append(Split(unit: unit, pointIndex: index, elapsedTime: Quantization.seconds(milliseconds: Int64(elapsed))))
        }
        let startCount = try r.count(max: r.remaining)
        var previous = 0
        for _ in 0..<startCount {
            guard pointLimit > 0 else { throw r.fail("a segment start with no point to refer to") }
            let start = try r.count(max: pointLimit - 1)
            guard start > previous else { throw r.fail("segment starts out of order") }
            segmentStarts.append(start)
            previous = start
        }
    }

    init(splits: [Split] = [], segmentStarts: [Int] = []) {
        self.splits = splits
        self.segmentStarts = segmentStarts
    }
}
