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
        RouteLayout(splits: splits, segmentStarts: segmentStarts).write(to: &w)
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
        let layout = try RouteLayout(from: &r, pointLimit: Int(shape.pointCount))
        splits = layout.splits
        segmentStarts = layout.segmentStarts
        pointBlock = try r.bytes(r.remaining)
    }

    /// The route as an app sees it: points decoded and moved by the time shift.
    func route() throws -> Route {
        let points = try RouteCodec.decodePoints(pointBlock)
        guard points.count == Int(shape.pointCount) else {
            throw ByteReader.Malformed(reason: "point block holds \(points.count) points, the record says \(shape.pointCount)", offset: 0)
        }
        return metadata.route(points: points, splits: splits, segmentStarts: segmentStarts)
    }
}

extension StoredMetadata {
    /// The route as an app sees it: `points` (as stored) moved by the time shift.
    func route(points: [TrackPoint], splits: [Split], segmentStarts: [Int]) -> Route {
        var points = points
        if shiftMs != 0 {
            for i in points.indices {
                points[i].timestamp = Quantization.date(
                    milliseconds: Quantization.milliseconds(points[i].timestamp) + shiftMs)
            }
        }
        return Route(points: points, splits: splits, metadata: routeMetadata, segmentStarts: segmentStarts)
    }
}
