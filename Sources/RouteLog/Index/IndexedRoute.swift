import Foundation

/// One live route as the in-memory index knows it: made on demand from the index's
/// packed rows (``RouteTable``), so changing a copy changes nothing stored.
struct IndexedRoute: Equatable, Sendable {
    var shape: RouteShape
    var metadata: StoredMetadata
    /// The RoutePut, or for a recorded route not compacted yet its RecordingFinish.
    var location: RecordLocation
    /// The latest MetadataEdit, if any (its bytes are live too).
    var editLocation: RecordLocation?
    /// For a finished recording not yet merged by compaction: its start and chunks,
    /// which hold the points.
    var recorded: IndexedRecording?

    init(shape: RouteShape, metadata: StoredMetadata, location: RecordLocation,
         editLocation: RecordLocation? = nil, recorded: IndexedRecording? = nil) {
        self.shape = shape
        self.metadata = metadata
        self.location = location
        self.editLocation = editLocation
        self.recorded = recorded
    }

    /// Sets the metadata and the edit's location at once.
    mutating func edited(_ metadata: StoredMetadata, at location: RecordLocation) {
        self.metadata = metadata
        editLocation = location
    }

    func summary(_ id: RouteID) -> RouteSummary { shape.summary(id: id, metadata: metadata) }
}

/// One accepted chunk of a recording.
struct RecordedChunk: Equatable, Sendable {
    var location: RecordLocation
    var firstPoint: Int
    var pointCount: Int
}

/// A recording's records as the in-memory index knows them (format-spec.md, "Recordings").
struct IndexedRecording: Equatable, Sendable {
    var start: RecordLocation
    var startedMs: Int64
    var metadata: StoredMetadata
    var chunks: [RecordedChunk] = []

    /// Points in the accepted chunks.
    var pointCount: Int { chunks.last.map { $0.firstPoint + $0.pointCount } ?? 0 }
    /// Every location holding this recording's bytes.
    var locations: [RecordLocation] { [start] + chunks.map(\.location) }
}
