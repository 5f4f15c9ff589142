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
    /// Points the recording lost to damage (ranges in the numbering the recorder used):
    /// empty for a whole recording. ``points`` holds every other point, with splits
    /// and segment starts renumbered to match (those inside a lost range are dropped).
    /// A recording with lost points cannot be resumed: save its ``route`` as a new
    /// route, or discard it.
    public var missingPoints: [Range<Int>] = []

    /// The route the recording would become if finished now with its metadata.
    public var route: Route {
        Route(points: points, splits: splits, metadata: metadata, segmentStarts: segmentStarts)
    }

    init(id: RouteID, recording: IndexedRecording, contents: RecordingContents) {
        self.id = id
        startedAt = Quantization.date(milliseconds: recording.startedMs)
        metadata = recording.metadata.routeMetadata
        points = contents.points
        missingPoints = contents.missing
        // Indices of the recorder's numbering, moved down past the lost ranges.
        func renumbered(_ index: Int) -> Int? {
            var lostBefore = 0
            for range in contents.missing {
                if range.contains(index) { return nil }
                if range.upperBound <= index { lostBefore += range.count }
            }
            return index - lostBefore
        }
        splits = contents.layout.splits.compactMap { split in
            renumbered(split.pointIndex).map { Split(unit: split.unit, pointIndex: $0, elapsedTime: split.elapsedTime) }
        }
        segmentStarts = contents.layout.segmentStarts.compactMap(renumbered).filter { $0 > 0 }
    }
}
