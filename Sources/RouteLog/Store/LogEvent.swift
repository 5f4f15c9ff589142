/// One change to the store, as read from a segment record or its index record.
enum LogEvent: Sendable {
    case put(RouteID, RouteShape, StoredMetadata, RecordLocation)
    case delete(RouteID, RecordLocation)
    case edit(RouteID, StoredMetadata, RecordLocation)

    var location: RecordLocation {
        switch self {
        case .put(_, _, _, let l), .delete(_, let l), .edit(_, _, let l): return l
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
        default: throw r.fail("record type \(record.type) does not belong in an index")
        }
        guard r.isAtEnd else { throw r.fail("index record has trailing bytes") }
        return event
    }

    /// Parses a segment record found at `location`; nil for a type this version does
    /// not know (skipped, format-spec.md "Segment records").
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
        default:
            return nil
        }
    }

    private static func readID(_ r: inout ByteReader) throws -> RouteID {
        let raw = try r.u64()
        guard raw > 0 else { throw r.fail("route id 0 is reserved") }
        return RouteID(raw)
    }
}
