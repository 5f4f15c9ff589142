/// The index records (format-spec.md, "Index records"): one per segment record, each
/// naming the record's location and what the in-memory index needs of it. An index
/// record's type is its segment record's type plus 15.
extension LogEvent {
    /// The index record that stands for this event: its type and payload. With
    /// `encodedMetadata` (the event's metadata as stored), those bytes are written as
    /// they are instead of the metadata encoded again.
    func indexRecord(encodedMetadata: ArraySlice<UInt8>? = nil) -> (type: FormatConstants.RecordType, payload: [UInt8]) {
        var w = ByteWriter(capacity: 128 + (encodedMetadata?.count ?? 0))
        func write(_ metadata: StoredMetadata) {
            if let encodedMetadata { w.append(contentsOf: encodedMetadata) } else { metadata.write(to: &w) }
        }
        let type: FormatConstants.RecordType
        switch self {
        case .put(let id, let shape, let metadata, let location):
            type = .indexPut
            Self.writeHead(&w, id, location)
            shape.write(to: &w)
            write(metadata)
        case .delete(let id, let location):
            type = .indexDelete
            Self.writeHead(&w, id, location)
        case .edit(let id, let metadata, let location):
            type = .indexEdit
            Self.writeHead(&w, id, location)
            write(metadata)
        case .recordingStart(let id, let startedMs, let metadata, let location):
            type = .indexRecordingStart
            Self.writeHead(&w, id, location)
            w.i64(startedMs)
            write(metadata)
        case .recordingChunk(let id, let firstPoint, let pointCount, let location):
            type = .indexRecordingChunk
            Self.writeHead(&w, id, location)
            w.u32(UInt32(firstPoint))
            w.u32(UInt32(pointCount))
        case .recordingFinish(let id, let shape, let metadata, let location):
            type = .indexRecordingFinish
            Self.writeHead(&w, id, location)
            shape.write(to: &w)
            write(metadata)
        case .recordingDiscard(let id, let location):
            type = .indexRecordingDiscard
            Self.writeHead(&w, id, location)
        }
        return (type, w.bytes)
    }

    private static func writeHead(_ w: inout ByteWriter, _ id: RouteID, _ location: RecordLocation) {
        w.u64(id.rawValue)
        location.write(to: &w)
    }

    /// Parses an index record. Throws ByteReader.Malformed for anything that is not one.
    static func fromIndex(type rawType: UInt8, payload: ArraySlice<UInt8>) throws -> LogEvent {
        try fromIndexKeepingMetadata(type: rawType, payload: payload).event
    }

    /// Parses an index record, and returns with its event the bytes of the metadata it
    /// holds (a put's, an edit's or a finish's; nil for the others), which the index
    /// keeps as they are.
    static func fromIndexKeepingMetadata(type rawType: UInt8, payload: ArraySlice<UInt8>) throws
        -> (event: LogEvent, metadata: ArraySlice<UInt8>?)
    {
        var r = ByteReader(payload)
        let id = try RouteRecordID.read(&r)
        let location = try RecordLocation(from: &r)
        // The metadata runs to the payload's end in every record that has one.
        func metadata() throws -> (StoredMetadata, ArraySlice<UInt8>) {
            let start = r.position
            let metadata = try StoredMetadata(from: &r)
            return (metadata, payload[start..<r.position])
        }
        let event: LogEvent
        var bytes: ArraySlice<UInt8>?
        switch FormatConstants.RecordType(rawValue: rawType) {
        case .indexPut:
            let shape = try RouteShape(from: &r)
            let (stored, encoded) = try metadata()
            event = .put(id, shape, stored, location)
            bytes = encoded
        case .indexDelete: event = .delete(id, location)
        case .indexEdit:
            let (stored, encoded) = try metadata()
            event = .edit(id, stored, location)
            bytes = encoded
        case .indexRecordingStart:
            event = .recordingStart(id, startedMs: try r.i64(), try StoredMetadata(from: &r), location)
        case .indexRecordingChunk:
            let first = Int(try r.u32()), count = Int(try r.u32())
            guard first + count <= RouteValidation.maxPoints else { throw r.fail("chunk past the point limit") }
            event = .recordingChunk(id, firstPoint: first, pointCount: count, location)
        case .indexRecordingFinish:
            let shape = try RouteShape(from: &r)
            let (stored, encoded) = try metadata()
            event = .recordingFinish(id, shape, stored, location)
            bytes = encoded
        case .indexRecordingDiscard: event = .recordingDiscard(id, location)
        default: throw r.fail("record type \(rawType) does not belong in an index")
        }
        guard r.isAtEnd else { throw r.fail("index record has trailing bytes") }
        return (event, bytes)
    }

    /// An IndexPut read without decoding its metadata (checked, left as bytes): what
    /// opening a store reads for nearly every route.
    struct IndexedPut {
        var id: RouteID
        var location: RecordLocation
        var shape: RouteShape
        var metadata: MetadataView
        /// The metadata's bytes as stored.
        var encodedMetadata: ArraySlice<UInt8>
    }

    /// Reads the payload of an IndexPut with the same checks as ``fromIndex(type:payload:)``.
    static func indexedPut(payload: ArraySlice<UInt8>) throws -> IndexedPut {
        var r = ByteReader(payload)
        let id = try RouteRecordID.read(&r)
        let location = try RecordLocation(from: &r)
        let shape = try RouteShape(from: &r)
        let start = r.position
        let metadata = try MetadataView(from: &r)
        guard r.isAtEnd else { throw r.fail("index record has trailing bytes") }
        return IndexedPut(id: id, location: location, shape: shape, metadata: metadata, encodedMetadata: payload[start..<r.position])
    }

    static func fromIndex(_ record: ScannedRecord) throws -> LogEvent {
        try fromIndex(type: record.type, payload: record.payload)
    }
}
