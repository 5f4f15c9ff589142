/// The payloads of the small change records (format-spec.md, "Segment records"):
/// RouteDelete, MetadataEdit and RecordingDiscard.

/// RouteDelete: route `id` is gone from here on.
struct RouteDeleteRecord: Equatable {
    var id: RouteID

    func payload() -> [UInt8] {
        var w = ByteWriter(capacity: 8)
        w.u64(id.rawValue)
        return w.bytes
    }

    init(id: RouteID) { self.id = id }

    init(payload: ArraySlice<UInt8>) throws {
        var r = ByteReader(payload)
        id = try RouteRecordID.read(&r)
        guard r.isAtEnd else { throw r.fail("delete record has trailing bytes") }
    }
}

/// MetadataEdit: route `id`'s whole new metadata (not a difference).
struct MetadataEditRecord: Equatable {
    var id: RouteID
    var metadata: StoredMetadata

    func payload() -> [UInt8] {
        var w = ByteWriter(capacity: 32)
        w.u64(id.rawValue)
        metadata.write(to: &w)
        return w.bytes
    }

    init(id: RouteID, metadata: StoredMetadata) {
        self.id = id
        self.metadata = metadata
    }

    init(payload: ArraySlice<UInt8>) throws {
        var r = ByteReader(payload)
        id = try RouteRecordID.read(&r)
        metadata = try StoredMetadata(from: &r)
        guard r.isAtEnd else { throw r.fail("edit record has trailing bytes") }
    }
}

/// RecordingDiscard: recording `id` is dropped, with all its records.
struct RecordingDiscardRecord: Equatable {
    var id: RouteID

    func payload() -> [UInt8] { RouteDeleteRecord(id: id).payload() }

    init(id: RouteID) { self.id = id }

    init(payload: ArraySlice<UInt8>) throws {
        var r = ByteReader(payload)
        id = try RouteRecordID.read(&r)
        guard r.isAtEnd else { throw r.fail("discard record has trailing bytes") }
    }
}

/// The route id that starts every record payload.
enum RouteRecordID {
    static func read(_ r: inout ByteReader) throws -> RouteID {
        let raw = try r.u64()
        guard let id = checked(raw) else { throw r.fail(problem(raw)) }
        return id
    }

    /// The id `raw` names, or nil for one no writer assigns.
    static func checked(_ raw: UInt64) -> RouteID? {
        // Ids count up from 1; one past 2^62 is no writer's, and would overflow the next id.
        raw > 0 && raw <= FormatConstants.maxRouteID ? RouteID(raw) : nil
    }

    /// Why `raw` is no route id.
    static func problem(_ raw: UInt64) -> String {
        raw == 0 ? "route id 0 is reserved" : "route id \(raw) is beyond any a writer assigns"
    }
}
