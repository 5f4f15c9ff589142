/// The points and layout read back from a recording's chunks.
struct RecordingContents {
    var points: [TrackPoint] = []
    var layout = RouteLayout()
    var chunkCount = 0
    /// Point ranges (in the recording's numbering) that no chunk holds any more: a
    /// damaged chunk, or one lost before the index saw it. Empty for a whole recording.
    var missing: [Range<Int>] = []
}

/// Reads routes and recordings from the segments by the locations the index holds,
/// each record checked by ``SegmentSet/read(at:type:what:)`` and then by its codec.
/// Used outside every lock, on a segment set taken under the state lock.
struct RecordReader {
    let segments: SegmentSet

    /// The RoutePut of route `id` at `location`, parsed; with `metadata` (the index's
    /// for the route), the stored metadata is checked but not decoded, and `metadata`
    /// stands in its place (``RouteRecord/init(payload:metadata:)``).
    func routeRecord(_ id: RouteID, at location: RecordLocation, metadata: StoredMetadata? = nil) throws -> RouteRecord {
        let payload = try segments.read(at: location, type: .routePut, what: "route \(id)")
        return try parse(id, at: location, what: "route \(id)'s record") {
            let record = try metadata.map { try RouteRecord(payload: payload, metadata: $0) } ?? RouteRecord(payload: payload)
            guard record.id == id else { throw ByteReader.Malformed(reason: "it holds route \(record.id)", offset: 0) }
            return record
        }
    }

    /// Route `id` as the app sees it, from a RoutePut or from a recording's chunks.
    func route(_ id: RouteID, _ indexed: IndexedRoute) throws -> Route {
        if indexed.recorded != nil {
            let (finish, points) = try recordedRoute(id, indexed)
            return indexed.metadata.route(points: points, splits: finish.layout.splits, segmentStarts: finish.layout.segmentStarts)
        }
        let record = try routeRecord(id, at: indexed.location, metadata: indexed.metadata)
        return try parse(id, at: indexed.location, what: "the point block of route \(id)") { try record.route() }
    }

    /// Route `id`'s coordinates in stored units (1e-7 degree), decoding nothing else
    /// when its block allows: what a pass-through test reads.
    func coordinates(_ id: RouteID, _ indexed: IndexedRoute) throws -> (latitudes: [Int64], longitudes: [Int64]) {
        let record = indexed.recorded == nil ? try routeRecord(id, at: indexed.location, metadata: indexed.metadata) : nil
        if let block = record?.pointBlock, block.first == FormatConstants.Compression.columnsV2.rawValue {
            let columns = try parse(id, at: indexed.location, what: "the point block of route \(id)") {
                try PointBlockV2.decodeCoordinates(block)
            }
            guard columns.latitudes.count == Int(indexed.shape.pointCount) else {
                throw RouteLogError.corrupted("route \(id)'s point block holds \(columns.latitudes.count) points, its record says \(indexed.shape.pointCount)",
                                              path: path(of: indexed.location), offset: indexed.location.offset)
            }
            return (columns.latitudes.values, columns.longitudes.values)
        }
        let points = try route(id, indexed).points
        return (points.map { Quantization.degrees($0.latitude) }, points.map { Quantization.degrees($0.longitude) })
    }

    /// The points and layout of a recording's chunks, each checked against the index.
    /// With `skippingDamage`, a chunk that does not read back (or a gap between chunks)
    /// is noted in `missing` instead of failing the whole recording.
    func recording(_ id: RouteID, _ recording: IndexedRecording, skippingDamage: Bool = false) throws -> RecordingContents {
        var contents = RecordingContents()
        contents.points.reserveCapacity(recording.pointCount)
        var expected = 0
        for chunk in recording.chunks {
            if chunk.firstPoint > expected {
                guard skippingDamage else {
                    throw RouteLogError.corrupted("recording \(id) lacks points \(expected)..<\(chunk.firstPoint): a chunk of it was lost",
                                                  path: path(of: chunk.location), offset: chunk.location.offset)
                }
                contents.missing.append(expected..<chunk.firstPoint)
            }
            expected = chunk.firstPoint + chunk.pointCount
            do {
                let (points, layout) = try readChunk(id, chunk)
                contents.points += points
                contents.layout.splits += layout.splits
                contents.layout.segmentStarts += layout.segmentStarts
            } catch let error as RouteLogError where skippingDamage && (error.code == .corrupted || isUnreadable(chunk.location)) {
                // Damage, or a sealed segment this reader may not open: the points are
                // missing from what it can list, and every other chunk still reads.
                if chunk.pointCount > 0 { contents.missing.append(chunk.firstPoint..<(chunk.firstPoint + chunk.pointCount)) }
            }
        }
        contents.chunkCount = recording.chunks.count
        return contents
    }

    /// One chunk's points and layout, checked against what the index says of it.
    private func readChunk(_ id: RouteID, _ chunk: RecordedChunk) throws -> ([TrackPoint], RouteLayout) {
        let payload = try segments.read(at: chunk.location, type: .recordingChunk, what: "recording \(id)'s chunk")
        return try parse(id, at: chunk.location, what: "recording \(id)'s chunk") {
            let record = try RecordingChunkRecord(payload: payload)
            guard record.id == id, record.firstPoint == chunk.firstPoint, record.pointCount == chunk.pointCount else {
                throw ByteReader.Malformed(reason: "the chunk holds recording \(record.id)'s points \(record.firstPoint)..<\(record.firstPoint + record.pointCount)", offset: 0)
            }
            return (try record.points(), record.layout)
        }
    }

    /// A finished recording's RecordingFinish and points (format-spec.md, "Recordings").
    func recordedRoute(_ id: RouteID, _ indexed: IndexedRoute) throws -> (RecordingFinishRecord, [TrackPoint]) {
        let location = indexed.location
        let payload = try segments.read(at: location, type: .recordingFinish, what: "route \(id)")
        let finish = try parse(id, at: location, what: "route \(id)'s record") {
            let finish = try RecordingFinishRecord(payload: payload)
            guard finish.id == id else { throw ByteReader.Malformed(reason: "it holds route \(finish.id)", offset: 0) }
            return finish
        }
        let contents = try recording(id, indexed.recorded!)
        guard contents.chunkCount == finish.chunkCount, contents.points.count == Int(finish.shape.pointCount) else {
            throw RouteLogError.corrupted("route \(id) was recorded in \(finish.chunkCount) chunks of \(finish.shape.pointCount) points; \(contents.chunkCount) chunks of \(contents.points.count) points are left",
                                          path: path(of: location), offset: location.offset)
        }
        return (finish, contents.points)
    }

    /// The frame of a record at `location`, as stored (for a copy).
    func frame(at location: RecordLocation, type: FormatConstants.RecordType, what: String) throws -> [UInt8] {
        let payload = Array(try segments.read(at: location, type: type, what: what))
        // A version 1 file stores payloads unescaped: one of nearly 64 MiB may not fit
        // once escaped for a version 2 file.
        guard RecordFrame.fitsOnceEscaped(size: payload.count, payload: { payload }) else {
            throw RouteLogError.invalid("\(what)'s record takes \(RecordFrame.storedSize(of: payload)) bytes once escaped, "
                                        + "past the 64 MiB a record may take; it cannot be copied into a new segment")
        }
        return RecordFrame.encode(type: type, payload: payload)
    }

    /// Whether `location` is in a sealed segment this reader could not open.
    private func isUnreadable(_ location: RecordLocation) -> Bool {
        segments.segment(location.segment)?.isUnreadable == true
    }

    private func path(of location: RecordLocation) -> String {
        segments.segment(location.segment)?.path ?? FormatConstants.segmentName(location.segment)
    }

    /// Runs a codec step; a record that passed its checksum but makes no sense is damage.
    private func parse<T>(_ id: RouteID, at location: RecordLocation, what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as ByteReader.Malformed {
            throw RouteLogError.corrupted("\(what) makes no sense: \(error.reason)", path: path(of: location), offset: location.offset)
        }
    }
}
