/// The payloads of the recording records (format-spec.md, "Recordings").

/// RecordingStart: a recording is opened.
struct RecordingStartRecord: Equatable {
    var id: RouteID
    var startedMs: Int64
    var metadata: StoredMetadata

    func payload() -> [UInt8] {
        var w = ByteWriter(capacity: 64)
        w.u64(id.rawValue)
        w.i64(startedMs)
        metadata.write(to: &w)
        return w.bytes
    }

    init(id: RouteID, startedMs: Int64, metadata: StoredMetadata) {
        self.id = id
        self.startedMs = startedMs
        self.metadata = metadata
    }

    init(payload: ArraySlice<UInt8>) throws {
        var r = ByteReader(payload)
        id = try RouteRecordID.read(&r)
        startedMs = try r.i64()
        metadata = try StoredMetadata(from: &r)
        guard r.isAtEnd else { throw r.fail("recording start has trailing bytes") }
    }
}

/// RecordingChunk: the points (and splits) of one flush.
struct RecordingChunkRecord {
    var id: RouteID
    var firstPoint: Int
    var pointCount: Int
    /// Splits and segment starts added since the previous chunk, indices from the
    /// recording's first point.
    var layout: RouteLayout
    /// An independent point block; empty when `pointCount` is 0.
    var pointBlock: ArraySlice<UInt8>

    func payload() -> [UInt8] {
        var w = ByteWriter(capacity: 32 + layout.splits.count * 6 + pointBlock.count)
        w.u64(id.rawValue)
        w.u32(UInt32(firstPoint))
        w.u32(UInt32(pointCount))
        layout.write(to: &w)
        w.append(contentsOf: pointBlock)
        return w.bytes
    }

    init(id: RouteID, firstPoint: Int, pointCount: Int, layout: RouteLayout, pointBlock: ArraySlice<UInt8>) {
        self.id = id
        self.firstPoint = firstPoint
        self.pointCount = pointCount
        self.layout = layout
        self.pointBlock = pointBlock
    }

    init(payload: ArraySlice<UInt8>) throws {
        var r = ByteReader(payload)
        (id, firstPoint, pointCount) = try Self.header(&r)
        layout = try RouteLayout(from: &r, pointLimit: firstPoint + pointCount)
        pointBlock = try r.bytes(r.remaining)
        guard pointCount > 0 || pointBlock.isEmpty else { throw r.fail("a chunk of no points has a point block") }
    }

    /// The fixed fields, which are all an index needs.
    static func header(_ r: inout ByteReader) throws -> (RouteID, Int, Int) {
        let id = try RouteRecordID.read(&r)
        let first = Int(try r.u32()), count = Int(try r.u32())
        guard first + count <= RouteValidation.maxPoints else {
            throw r.fail("chunk of points \(first)..<\(first + count) passes the \(RouteValidation.maxPoints)-point limit")
        }
        return (id, first, count)
    }

    /// The chunk's points, exactly `pointCount` of them.
    func points() throws -> [TrackPoint] {
        guard pointCount > 0 else { return [] }
        let points = try RouteCodec.decodePoints(pointBlock)
        guard points.count == pointCount else {
            throw ByteReader.Malformed(reason: "chunk block holds \(points.count) points, the record says \(pointCount)", offset: 0)
        }
        return points
    }
}

/// RecordingFinish: the recording becomes a route.
struct RecordingFinishRecord {
    var id: RouteID
    var chunkCount: Int
    var shape: RouteShape
    var metadata: StoredMetadata
    var layout: RouteLayout

    func payload() -> [UInt8] {
        var w = ByteWriter(capacity: 96 + layout.splits.count * 6)
        w.u64(id.rawValue)
        w.u32(UInt32(chunkCount))
        shape.write(to: &w)
        metadata.write(to: &w)
        layout.write(to: &w)
        return w.bytes
    }

    init(id: RouteID, chunkCount: Int, shape: RouteShape, metadata: StoredMetadata, layout: RouteLayout) {
        self.id = id
        self.chunkCount = chunkCount
        self.shape = shape
        self.metadata = metadata
        self.layout = layout
    }

    init(payload: ArraySlice<UInt8>) throws {
        var r = ByteReader(payload)
        (id, chunkCount, shape, metadata) = try Self.header(&r)
        layout = try RouteLayout(from: &r, pointLimit: Int(shape.pointCount))
        guard r.isAtEnd else { throw r.fail("recording finish has trailing bytes") }
    }

    /// Everything but the layout: what an index holds.
    static func header(_ r: inout ByteReader) throws -> (RouteID, Int, RouteShape, StoredMetadata) {
        let id = try RouteRecordID.read(&r)
        let chunks = Int(try r.u32())
        return (id, chunks, try RouteShape(from: &r), try StoredMetadata(from: &r))
    }
}
