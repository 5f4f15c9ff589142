import Foundation

/// A recording neither finished nor discarded, as ``RouteStore/unfinishedRecordings()``
/// finds it: after a crash, what the app was recording, with every point and split it
/// had flushed. Resume it with ``RouteStore/resumeRecording(_:flushPolicy:)``, then
/// append, finish or discard.
public struct UnfinishedRecording: Sendable, Equatable, Identifiable {
    /// The recording's id; the route it becomes when finished keeps it.
    public var id: RouteID
    /// When ``RouteStore/startRecording(metadata:flushPolicy:)`` was called (the
    /// writer's clock, to the millisecond).
    public var startedAt: Date
    /// The metadata given at the start.
    public var metadata: RouteMetadata
    /// The points flushed so far, at stored precision.
    public var points: [TrackPoint]
    /// The splits flushed so far.
    public var splits: [Split]
    /// The segment starts flushed so far (see ``Route/segmentStarts``).
    public var segmentStarts: [Int]

    /// The route the recording would become if finished now with its metadata.
    public var route: Route {
        Route(points: points, splits: splits, metadata: metadata, segmentStarts: segmentStarts)
    }

    init(id: RouteID, recording: IndexedRecording, contents: RecordingContents) {
        self.id = id
        startedAt = Quantization.date(milliseconds: recording.startedMs)
        metadata = recording.metadata.routeMetadata
        points = contents.points
        splits = contents.layout.splits
        segmentStarts = contents.layout.segmentStarts
    }
}
