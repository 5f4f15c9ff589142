/// The payload of a RoutePut (format-spec.md, "Segment records"), whole.
struct RouteRecord {
    var id: RouteID
    var shape: RouteShape
    var metadata: StoredMetadata {
        didSet { metadataBytes = nil }
    }
    /// `metadata` as written, when the record was made from values (a save, a
    /// compaction's copy): the payload's size and the payload use it rather than each
    /// writing the metadata again (its derived fields are most of a save's record
    /// outside the points).
    private(set) var metadataBytes: [UInt8]?
    var splits: [Split]
    var segmentStarts: [Int]
    /// The encoded point block (the codec's output), kept encoded so that compaction
    /// can copy it without decoding.
    var pointBlock: ArraySlice<UInt8>

    /// The payload bytes.
    func payload() -> [UInt8] {
        var w = ByteWriter(capacity: payloadSize)
        w.u64(id.rawValue)
        shape.write(to: &w)
        if let metadataBytes { w.append(contentsOf: metadataBytes) } else { metadata.write(to: &w) }
        RouteLayout(splits: splits, segmentStarts: segmentStarts).write(to: &w)
        w.append(contentsOf: pointBlock)
        return w.bytes
    }

    /// The payload's size in bytes, without encoding it.
    var payloadSize: Int {
        var layout = ByteWriter(capacity: 16 + splits.count * 8 + segmentStarts.count * 3)
        RouteLayout(splits: splits, segmentStarts: segmentStarts).write(to: &layout)
        return 8 + FormatConstants.routeShapeSize + metadataSize + layout.bytes.count + pointBlock.count
    }

    private var metadataSize: Int {
        if let metadataBytes { return metadataBytes.count }
        var meta = ByteWriter(capacity: 32)
        metadata.write(to: &meta)
        return meta.bytes.count
    }

    init(id: RouteID, shape: RouteShape, metadata: StoredMetadata, splits: [Split],
         segmentStarts: [Int], pointBlock: ArraySlice<UInt8>) {
        self.id = id
        self.shape = shape
        self.metadata = metadata
        var meta = ByteWriter(capacity: 96)
        metadata.write(to: &meta)
        metadataBytes = meta.bytes
        self.splits = splits
        self.segmentStarts = segmentStarts
        self.pointBlock = pointBlock
    }

    init(payload: ArraySlice<UInt8>) throws {
        try self.init(payload: payload) { try StoredMetadata(from: &$0) }
    }

    /// The payload read for its points, with `metadata` in place of the stored one: the
    /// metadata the index holds, which was read from these bytes when they came in. The
    /// stored metadata is checked as the whole read checks it (a record that breaks a
    /// rule is refused alike), but not decoded: a load took the index's and threw the
    /// decoded one away (its name, tags, stats, cells and preview made into values).
    init(payload: ArraySlice<UInt8>, metadata: StoredMetadata) throws {
        try self.init(payload: payload) { r in
            _ = try MetadataView(from: &r)
            return metadata
        }
    }

    /// The payload, its metadata read by `readMetadata` (which must step over it whole).
    private init(payload: ArraySlice<UInt8>, readMetadata: (inout ByteReader) throws -> StoredMetadata) throws {
        var r = ByteReader(payload)
        id = try RouteRecordID.read(&r)
        shape = try RouteShape(from: &r)
        metadata = try readMetadata(&r)
        let layout = try RouteLayout(from: &r, pointLimit: Int(shape.pointCount))
        splits = layout.splits
        segmentStarts = layout.segmentStarts
        pointBlock = try r.bytes(r.remaining)
    }

    /// The id, shape and metadata: all an index needs.
    static func header(_ r: inout ByteReader) throws -> (RouteID, RouteShape, StoredMetadata) {
        (try RouteRecordID.read(&r), try RouteShape(from: &r), try StoredMetadata(from: &r))
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
