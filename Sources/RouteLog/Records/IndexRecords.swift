/// The index records (format-spec.md, "Index records"): one per segment record, each
/// naming the record's location and what the in-memory index needs of it. An index
/// record's type is its segment record's type plus 15.
extension LogEvent {
    /// The index record that stands for this event: its type and payload.
    func indexRecord() -> (type: FormatConstants.RecordType, payload: [UInt8]) {
        var w = ByteWriter(capacity: 128)
        let type: FormatConstants.RecordType
        switch self {
        case .put(let id, let shape, let metadata, let location):
            type = .indexPut
            Self.writeHead(&w, id, location)
            shape.write(to: &w)
            metadata.write(to: &w)
        case .delete(let id, let location):
            type = .indexDelete
            Self.writeHead(&w, id, location)
        case .edit(let id, let metadata, let location):
            type = .indexEdit
            Self.writeHead(&w, id, location)
            metadata.write(to: &w)
        case .recordingStart(let id, let startedMs, let metadata, let location):
            type = .indexRecordingStart
            Self.writeHead(&w, id, location)
            w.i64(startedMs)
            metadata.write(to: &w)
        case .recordingChunk(let id, let firstPoint, let pointCount, let location):
            type = .indexRecordingChunk
            Self.writeHead(&w, id, location)
            w.u32(UInt32(firstPoint))
            w.u32(UInt32(pointCount))
        case .recordingFinish(let id, let shape, let metadata, let location):
            type = .indexRecordingFinish
            Self.writeHead(&w, id, location)
            shape.write(to: &w)
            metadata.write(to: &w)
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
        var r = ByteReader(payload)
        let id = try RouteRecordID.read(&r)
        let location = try RecordLocation(from: &r)
        let event: LogEvent
        switch FormatConstants.RecordType(rawValue: rawType) {
        case .indexPut: event = .put(id, try RouteShape(from: &r), try StoredMetadata(from: &r), location)
        case .indexDelete: event = .delete(id, location)
        case .indexEdit: event = .edit(id, try StoredMetadata(from: &r), location)
        case .indexRecordingStart:
            event = .recordingStart(id, startedMs: try r.i64(), try StoredMetadata(from: &r), location)
        case .indexRecordingChunk:
            let first = Int(try r.u32()), count = Int(try r.u32())
            guard first + count <= RouteValidation.maxPoints else { throw r.fail("chunk past the point limit") }
            event = .recordingChunk(id, firstPoint: first, pointCount: count, location)
        case .indexRecordingFinish:
            event = .recordingFinish(id, try RouteShape(from: &r), try StoredMetadata(from: &r), location)
        case .indexRecordingDiscard: event = .recordingDiscard(id, location)
        default: throw r.fail("record type \(rawType) does not belong in an index")
        }
        guard r.isAtEnd else { throw r.fail("index record has trailing bytes") }
        return event
    }

    static func fromIndex(_ record: ScannedRecord) throws -> LogEvent {
        try fromIndex(type: record.type, payload: record.payload)
    }
}
