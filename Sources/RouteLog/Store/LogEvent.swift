/// One change to the store, as read from a segment record or its index record.
enum LogEvent: Sendable {
    case put(RouteID, RouteShape, StoredMetadata, RecordLocation)
    case delete(RouteID, RecordLocation)
    case edit(RouteID, StoredMetadata, RecordLocation)
    // Recordings (format-spec.md, "Recordings").
    case recordingStart(RouteID, startedMs: Int64, StoredMetadata, RecordLocation)
    case recordingChunk(RouteID, firstPoint: Int, pointCount: Int, RecordLocation)
    case recordingFinish(RouteID, RouteShape, StoredMetadata, RecordLocation)
    case recordingDiscard(RouteID, RecordLocation)

    var location: RecordLocation {
        switch self {
        case .put(_, _, _, let l), .delete(_, let l), .edit(_, _, let l),
             .recordingStart(_, _, _, let l), .recordingChunk(_, _, _, let l),
             .recordingFinish(_, _, _, let l), .recordingDiscard(_, let l):
            return l
        }
    }

    /// The framed index record that stands for this event (format-spec.md, "Index records").
    func indexRecord() -> [UInt8] {
        var w = ByteWriter(capacity: 128)
        let type: FormatConstants.RecordType
        switch self {
        case .put(let id, let shape, let metadata, let location):
            type = .indexPut
            w.u64(id.rawValue)
            location.write(to: &w)
            shape.write(to: &w)
            metadata.write(to: &w)
        case .delete(let id, let location):
            type = .indexDelete
            w.u64(id.rawValue)
            location.write(to: &w)
        case .edit(let id, let metadata, let location):
            type = .indexEdit
            w.u64(id.rawValue)
            location.write(to: &w)
            metadata.write(to: &w)
        case .recordingStart(let id, let startedMs, let metadata, let location):
            type = .indexRecordingStart
            w.u64(id.rawValue)
            location.write(to: &w)
            w.i64(startedMs)
            metadata.write(to: &w)
        case .recordingChunk(let id, let firstPoint, let pointCount, let location):
            type = .indexRecordingChunk
            w.u64(id.rawValue)
            location.write(to: &w)
            w.u32(UInt32(firstPoint))
            w.u32(UInt32(pointCount))
        case .recordingFinish(let id, let shape, let metadata, let location):
            type = .indexRecordingFinish
            w.u64(id.rawValue)
            location.write(to: &w)
            shape.write(to: &w)
            metadata.write(to: &w)
        case .recordingDiscard(let id, let location):
            type = .indexRecordingDiscard
            w.u64(id.rawValue)
            location.write(to: &w)
        }
        return RecordFrame.encode(type: type, payload: w.bytes)
    }

    /// Parses an index record. Throws ByteReader.Malformed for anything that is not one.
    static func fromIndex(_ record: ScannedRecord) throws -> LogEvent {
        var r = ByteReader(record.payload)
        let type = FormatConstants.RecordType(rawValue: record.type)
        let id = try readID(&r)
        let location = try RecordLocation(from: &r)
        let event: LogEvent
        switch type {
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
        default: throw r.fail("record type \(record.type) does not belong in an index")
        }
        guard r.isAtEnd else { throw r.fail("index record has trailing bytes") }
        return event
    }

    /// Parses a segment record found at `location`; nil for a type this version does
    /// not know (skipped, format-spec.md "Segment records"). Point blocks and layouts
    /// are not read here: only what the index holds.
    static func fromSegment(_ record: ScannedRecord, segment: UInt32) throws -> LogEvent? {
        var r = ByteReader(record.payload)
        let location = RecordLocation(segment: segment, offset: record.offset, length: record.frameLength)
        switch FormatConstants.RecordType(rawValue: record.type) {
        case .routePut:
            let id = try readID(&r)
            return .put(id, try RouteShape(from: &r), try StoredMetadata(from: &r), location)
        case .routeDelete:
            let id = try readID(&r)
            guard r.isAtEnd else { throw r.fail("delete record has trailing bytes") }
            return .delete(id, location)
        case .metadataEdit:
            let id = try readID(&r)
            let metadata = try StoredMetadata(from: &r)
            guard r.isAtEnd else { throw r.fail("edit record has trailing bytes") }
            return .edit(id, metadata, location)
        case .recordingStart:
            let start = try RecordingStartRecord(payload: record.payload)
            return .recordingStart(start.id, startedMs: start.startedMs, start.metadata, location)
        case .recordingChunk:
            let (id, first, count) = try RecordingChunkRecord.header(&r)
            return .recordingChunk(id, firstPoint: first, pointCount: count, location)
        case .recordingFinish:
            let (id, _, shape, metadata) = try RecordingFinishRecord.header(&r)
            return .recordingFinish(id, shape, metadata, location)
        case .recordingDiscard:
            let id = try readID(&r)
            guard r.isAtEnd else { throw r.fail("discard record has trailing bytes") }
            return .recordingDiscard(id, location)
        default:
            return nil
        }
    }

    static func readID(_ r: inout ByteReader) throws -> RouteID {
        let raw = try r.u64()
        guard raw > 0 else { throw r.fail("route id 0 is reserved") }
        // Ids count up from 1; one past 2^62 is no writer's, and would overflow the next id.
        guard raw <= FormatConstants.maxRouteID else { throw r.fail("route id \(raw) is beyond any a writer assigns") }
        return RouteID(raw)
    }
}
