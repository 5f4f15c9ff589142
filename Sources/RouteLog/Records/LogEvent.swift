/// One change to the store, as read from a segment record or its index record: what
/// the in-memory index applies, in log order.
enum LogEvent: Sendable, Equatable {
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

    var id: RouteID {
        switch self {
        case .put(let id, _, _, _), .delete(let id, _), .edit(let id, _, _),
             .recordingStart(let id, _, _, _), .recordingChunk(let id, _, _, _),
             .recordingFinish(let id, _, _, _), .recordingDiscard(let id, _):
            return id
        }
    }

    /// The event of a segment record found at `location`; nil for a type this version
    /// does not know (skipped, format-spec.md "Segment records"). Point blocks and
    /// layouts are not decoded here: only what the index holds.
    static func fromSegment(type: UInt8, payload: ArraySlice<UInt8>, at location: RecordLocation) throws -> LogEvent? {
        switch FormatConstants.RecordType(rawValue: type) {
        case .routePut:
            var r = ByteReader(payload)
            let (id, shape, metadata) = try RouteRecord.header(&r)
            return .put(id, shape, metadata, location)
        case .routeDelete:
            return .delete(try RouteDeleteRecord(payload: payload).id, location)
        case .metadataEdit:
            let edit = try MetadataEditRecord(payload: payload)
            return .edit(edit.id, edit.metadata, location)
        case .recordingStart:
            let start = try RecordingStartRecord(payload: payload)
            return .recordingStart(start.id, startedMs: start.startedMs, start.metadata, location)
        case .recordingChunk:
            var r = ByteReader(payload)
            let (id, first, count) = try RecordingChunkRecord.header(&r)
            return .recordingChunk(id, firstPoint: first, pointCount: count, location)
        case .recordingFinish:
            var r = ByteReader(payload)
            let (id, _, shape, metadata) = try RecordingFinishRecord.header(&r)
            return .recordingFinish(id, shape, metadata, location)
        case .recordingDiscard:
            return .recordingDiscard(try RecordingDiscardRecord(payload: payload).id, location)
        default:
            return nil
        }
    }

    static func fromSegment(_ record: ScannedRecord, segment: UInt32) throws -> LogEvent? {
        try fromSegment(type: record.type, payload: record.payload,
                        at: RecordLocation(segment: segment, offset: record.offset, length: record.frameLength))
    }

    /// ``fromSegment(_:segment:)``, and with a RoutePut's or a MetadataEdit's event the
    /// bytes of its metadata as stored (nil for the other records), which a replay keeps
    /// as they are.
    static func fromSegmentKeepingMetadata(_ record: ScannedRecord, segment: UInt32) throws
        -> (event: LogEvent, metadata: ArraySlice<UInt8>?)?
    {
        let location = RecordLocation(segment: segment, offset: record.offset, length: record.frameLength)
        if record.type == FormatConstants.RecordType.metadataEdit.rawValue {
            // The record is the route's id and then its metadata, nothing after (checked).
            let edit = try MetadataEditRecord(payload: record.payload)
            return (.edit(edit.id, edit.metadata, location), Array(record.payload.dropFirst(8))[...])
        }
        guard record.type == FormatConstants.RecordType.routePut.rawValue else {
            return try fromSegment(type: record.type, payload: record.payload, at: location).map { ($0, nil) }
        }
        var r = ByteReader(record.payload)
        let id = try RouteRecordID.read(&r), shape = try RouteShape(from: &r)
        let start = r.position
        let metadata = try StoredMetadata(from: &r)
        // Copied out: a slice would keep the scanner's whole read buffer alive for as
        // long as the event is kept (a replay keeps every event of a store).
        return (.put(id, shape, metadata, location), Array(record.payload[start..<r.position])[...])
    }
}
