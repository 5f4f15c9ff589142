import Foundation

/// One live route as the in-memory index knows it.
///
/// A value type over one immutable heap object: the index holds 100,000 of these, and
/// an 8-byte reference moves through the dictionary (and its snapshots) far faster than
/// 200 bytes of fields. Changing a field makes a new object, so snapshots taken by
/// verify or compaction never see a later change.
struct IndexedRoute: Sendable {
    private final class Storage: Sendable {
        let shape: RouteShape
        let metadata: StoredMetadata
        let location: RecordLocation
        let editLocation: RecordLocation?
        /// Boxed: a recording's record list is 328 bytes inline, and nearly every route
        /// has none (an unboxed optional would cost every route those bytes).
        let recordedBox: RecordingBox?

        init(_ shape: RouteShape, _ metadata: StoredMetadata, _ location: RecordLocation,
             _ editLocation: RecordLocation?, _ recorded: IndexedRecording?) {
            self.shape = shape
            self.metadata = metadata
            self.location = location
            self.editLocation = editLocation
            recordedBox = recorded.map(RecordingBox.init)
        }

        var recorded: IndexedRecording? { recordedBox?.recording }
    }

    private final class RecordingBox: Sendable {
        let recording: IndexedRecording
        init(_ recording: IndexedRecording) { self.recording = recording }
    }

    private var storage: Storage

    init(shape: RouteShape, metadata: StoredMetadata, location: RecordLocation,
         editLocation: RecordLocation? = nil, recorded: IndexedRecording? = nil) {
        storage = Storage(shape, metadata, location, editLocation, recorded)
    }

    var shape: RouteShape {
        get { storage.shape }
        set { storage = Storage(newValue, metadata, location, editLocation, recorded) }
    }

    var metadata: StoredMetadata {
        get { storage.metadata }
        set { storage = Storage(shape, newValue, location, editLocation, recorded) }
    }

    /// The RoutePut, or for a recorded route not compacted yet its RecordingFinish.
    var location: RecordLocation {
        get { storage.location }
        set { storage = Storage(shape, metadata, newValue, editLocation, recorded) }
    }

    /// The latest MetadataEdit, if any (its bytes are live too).
    var editLocation: RecordLocation? {
        get { storage.editLocation }
        set { storage = Storage(shape, metadata, location, newValue, recorded) }
    }

    /// For a finished recording not yet merged by compaction: its start and chunks,
    /// which hold the points.
    var recorded: IndexedRecording? {
        get { storage.recorded }
        set { storage = Storage(shape, metadata, location, editLocation, newValue) }
    }

    /// Sets the metadata and the edit's location at once (one new object, not two).
    mutating func edited(_ metadata: StoredMetadata, at location: RecordLocation) {
        storage = Storage(shape, metadata, self.location, location, recorded)
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
