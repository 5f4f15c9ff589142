/// The payload of a RoutePut (format-spec.md, "Segment records"), whole.
struct RouteRecord {
    var id: RouteID
    var shape: RouteShape
    var metadata: StoredMetadata
    var splits: [Split]
    var segmentStarts: [Int]
    /// The encoded point block (the codec's output), kept encoded so that compaction
    /// can copy it without decoding.
    var pointBlock: ArraySlice<UInt8>

    /// The payload bytes; the id is the first 8, so a writer can fill it in last.
    func payload() -> [UInt8] {
        var w = ByteWriter(capacity: 96 + splits.count * 6 + pointBlock.count)
        w.u64(id.rawValue)
        shape.write(to: &w)
        metadata.write(to: &w)
        w.varint(splits.count)
        for split in splits {
            w.u8(split.unit.rawValue)
            w.varint(split.pointIndex)
            w.varint(UInt64(Quantization.milliseconds(split.elapsedTime)))
        }
        w.varint(segmentStarts.count)
        for start in segmentStarts { w.varint(start) }
        w.append(contentsOf: pointBlock)
        return w.bytes
    }

    init(id: RouteID, shape: RouteShape, metadata: StoredMetadata, splits: [Split],
         segmentStarts: [Int], pointBlock: ArraySlice<UInt8>) {
        self.id = id
        self.shape = shape
        self.metadata = metadata
        self.splits = splits
        self.segmentStarts = segmentStarts
        self.pointBlock = pointBlock
    }

    init(payload: ArraySlice<UInt8>) throws {
        var r = ByteReader(payload)
        let raw = try r.u64()
        guard raw > 0 else { throw r.fail("route id 0 is reserved") }
        id = RouteID(raw)
        shape = try RouteShape(from: &r)
        metadata = try StoredMetadata(from: &r)
        let pointCount = Int(shape.pointCount)
        let splitCount = try r.count(max: r.remaining / 3)
        splits = []
        for _ in 0..<splitCount {
            guard let unit = Split.Unit(rawValue: try r.u8()) else { throw r.fail("unknown split unit") }
            let index = try r.count(max: pointCount - 1)
            let elapsed = try r.varint()
            guard elapsed < 1 << 53 else { throw r.fail("split time \(elapsed) ms") }
            splits.append(Split(unit: unit, pointIndex: index, elapsedTime: Quantization.seconds(milliseconds: Int64(elapsed))))
        }
        let startCount = try r.count(max: r.remaining)
        segmentStarts = []
        var previous = 0
        for _ in 0..<startCount {
            let start = try r.count(max: pointCount - 1)
            guard start > previous else { throw r.fail("segment starts out of order") }
            segmentStarts.append(start)
            previous = start
        }
        pointBlock = try r.bytes(r.remaining)
    }

    /// The route as an app sees it: points decoded and moved by the time shift.
    func route() throws -> Route {
        var points = try RouteCodec.decodePoints(pointBlock)
        guard points.count == Int(shape.pointCount) else {
            throw ByteReader.Malformed(reason: "point block holds \(points.count) points, the record says \(shape.pointCount)", offset: 0)
        }
        if metadata.shiftMs != 0 {
            for i in points.indices {
                points[i].timestamp = Quantization.date(
                    milliseconds: Quantization.milliseconds(points[i].timestamp) + metadata.shiftMs)
            }
        }
        return Route(points: points, splits: splits, metadata: metadata.routeMetadata, segmentStarts: segmentStarts)
    }
}
