import Dispatch
import Foundation

/// Records one route into a store while it grows, so that a crash or the app being
/// killed loses at most the points not flushed yet. Made by
/// ``RouteStore/startRecording(metadata:flushPolicy:)`` or
/// ``RouteStore/resumeRecording(_:flushPolicy:)``.
///
/// ```swift
/// let recorder = try store.startRecording(flushPolicy: .init(points: 10, interval: 10))
/// for await location in updates { try recorder.append(location) }
/// try recorder.addSplit(Split(unit: .kilometre, pointIndex: 612, elapsedTime: 731))
/// let id = try recorder.finish(metadata: RouteMetadata(name: "Morning walk"))
/// ```
///
/// Points wait in memory until the ``FlushPolicy`` says to flush (or ``flush()`` is
/// called): then they are encoded as one chunk and appended, durably with a
/// ``RouteStore/Durability/durable`` store. Safe to use from several threads; calls
/// on one recorder run one at a time. A recorder released without ``finish(metadata:)``
/// or ``discard()`` flushes what waits (best effort: not once the store is closed, so
/// flush before closing) and leaves the recording unfinished, for
/// ``RouteStore/resumeRecording(_:flushPolicy:)``.
public final class RouteRecorder: Sendable {
    /// Where a recording stands.
    public enum Status: Sendable, Equatable {
        /// Taking points.
        case recording
        /// Finished: now the route with this id.
        case finished(RouteID)
        /// Discarded.
        case discarded
    }

    /// The recording's id, and the id of the route it becomes.
    public let id: RouteID
    /// When this recorder flushes.
    public let flushPolicy: FlushPolicy

    let store: RouteStore
    private let state: StateLock<State>

    struct State: Sendable {
        var status = Status.recording
        var metadata: StoredMetadata
        var shape = RouteShapeBuilder()
        var flushedPoints = 0
        var chunkCount = 0
        /// Every split and segment start so far, flushed or not.
        var layout = RouteLayout()
        /// Points, splits and segment starts not flushed yet.
        var waiting: [TrackPoint] = []
        var waitingLayout = RouteLayout()
        var waitingSince: ContinuousClock.Instant?
        /// startSegment() was called: the next point starts a segment.
        var breakBeforeNext = false

        var pointCount: Int { flushedPoints + waiting.count }
        var hasWaiting: Bool { !waiting.isEmpty || !waitingLayout.isEmpty }
    }

    init(store: RouteStore, id: RouteID, flushPolicy: FlushPolicy, metadata: StoredMetadata, contents: RecordingContents) {
        self.store = store
        self.id = id
        self.flushPolicy = flushPolicy
        var state = State(metadata: metadata)
        let starts = Set(contents.layout.segmentStarts)
        for (i, point) in contents.points.enumerated() { state.shape.add(point, startsSegment: starts.contains(i)) }
        state.flushedPoints = contents.points.count
        state.chunkCount = contents.chunkCount
        state.layout = contents.layout
        self.state = StateLock(state)
    }

    deinit {
        state.withLock { s in
            guard s.status == .recording else { return }
            if s.hasWaiting { try? write(&s) }
            store.detachRecording(id)
        }
    }

    // MARK: Reading the state

    /// Points appended so far, flushed or waiting.
    public var pointCount: Int { state.withLock { $0.pointCount } }
    /// Points written to the store so far (what a crash now would keep).
    public var flushedPointCount: Int { state.withLock { $0.flushedPoints } }
    /// Recording, finished or discarded.
    public var status: Status { state.withLock { $0.status } }

    // MARK: Recording

    /// Appends one point, as the batch form does.
    /// - Throws: What the batch form throws.
    public func append(_ point: TrackPoint) throws {
        try append([point])
    }

    /// Appends points in order, and flushes when the policy says so. All or nothing:
    /// every point is validated first (the rules of ``RouteValidation``), and when this
    /// throws the recorder is as it was before the call, so the same points can be
    /// appended again.
    ///
    /// - Throws: `.invalidArgument` naming the bad point (its index in the recording);
    ///   `.io` when a flush the policy asked for failed.
    public func append(_ points: [TrackPoint]) throws {
        guard !points.isEmpty else { return }
        try state.withLock { s in
            try checkRecording(s)
            let base = s.pointCount
            guard base + points.count <= RouteValidation.maxPoints else {
                throw RouteLogError.invalid("the recording would hold \(base + points.count) points; a route may hold at most \(RouteValidation.maxPoints)")
            }
            for (i, point) in points.enumerated() { try RouteValidation.validate(point, index: base + i) }
            let before = s
            let startsSegment = s.breakBeforeNext && base > 0
            if startsSegment {
                s.layout.segmentStarts.append(base)
                s.waitingLayout.segmentStarts.append(base)
            }
            s.breakBeforeNext = false
            for (i, point) in points.enumerated() { s.shape.add(point, startsSegment: startsSegment && i == 0) }
            s.waiting += points
            startWaiting(&s)
            if isDue(s) {
                do {
                    try write(&s)
                } catch {
                    s = before
                    throw error
                }
            }
        }
    }

    /// Adds a split at a point already appended; it is flushed with the next chunk.
    /// - Throws: `.invalidArgument` for an index outside the points appended so far or
    ///   a negative or non-finite elapsed time.
    public func addSplit(_ split: Split) throws {
        try state.withLock { s in
            try checkRecording(s)
            guard (0..<s.pointCount).contains(split.pointIndex) else {
                throw RouteLogError.invalid("split: point index \(split.pointIndex) is outside the \(s.pointCount) points recorded so far")
            }
            guard split.elapsedTime.isFinite, split.elapsedTime >= 0, split.elapsedTime < 1e11 else {
                throw RouteLogError.invalid("split: elapsed time \(split.elapsedTime) s is not a finite, non-negative time")
            }
            s.layout.splits.append(split)
            s.waitingLayout.splits.append(split)
            startWaiting(&s)
        }
    }

    /// Marks a pause: the next point appended starts a new segment, and the step into
    /// it is not counted as travelled distance (see ``Route/segmentStarts``).
    /// - Throws: ``RouteLogError`` `.invalidArgument` when the recording is finished or discarded.
    public func startSegment() throws {
        try state.withLock { s in
            try checkRecording(s)
            s.breakBeforeNext = true
        }
    }

    /// Writes every waiting point and split now, durably with a durable store. Call it
    /// when the app goes to the background. Does nothing when nothing waits (or the
    /// recording has ended).
    /// - Throws: `.io`; the points then keep waiting, and a later flush retries.
    public func flush() throws {
        try state.withLock { s in
            guard s.status == .recording, s.hasWaiting else { return }
            try write(&s)
        }
    }

    /// Flushes what waits and turns the recording into an ordinary route, in one
    /// durable append that neither reads nor rewrites the chunks already written. The
    /// route then reads back exactly like the same points saved in one go, and is in
    /// ``RouteStore/summaries()``; compaction later stores it as one record.
    ///
    /// - Parameter metadata: the route's metadata; nil keeps the one given at the start.
    ///   Metadata without a uuid keeps the recording's.
    /// - Returns: the route's id (the recording's).
    /// - Throws: `.invalidArgument` for bad metadata or a recording without points
    ///   (discard it instead); `.io` (the recording then stays as it was).
    @discardableResult
    public func finish(metadata: RouteMetadata? = nil) throws -> RouteID {
        try state.withLock { s in
            try checkRecording(s)
            if let metadata { try RouteValidation.validate(metadata) }
            guard let shape = s.shape.shape else {
                throw RouteLogError.invalid("recording \(id) has no points; a route needs at least one: discard it instead")
            }
            let chunks = waitingChunks(s)
            let finish = RecordingFinishRecord(id: id, chunkCount: s.chunkCount + chunks.count, shape: shape,
                                               metadata: metadata.map { StoredMetadata($0.withUUID(s.metadata.uuid)) } ?? s.metadata, layout: s.layout)
            try write(&s, chunks: chunks, finish: finish)
            s.status = .finished(id)
            return id
        }
    }

    /// Drops the recording: it is no longer listed, and compaction reclaims its bytes.
    /// - Throws: `.io` (the recording then stays as it was).
    public func discard() throws {
        try state.withLock { s in
            try checkRecording(s)
            try store.appendRecordingDiscard(id, byRecorder: true)
            s.waiting = []
            s.waitingLayout = RouteLayout()
            s.waitingSince = nil
            s.status = .discarded
        }
    }

    // MARK: Flushing

    private func checkRecording(_ s: State) throws {
        switch s.status {
        case .recording: return
        case .finished(let route): throw RouteLogError.invalid("recording \(id) is finished (it is route \(route)); start a new recording")
        case .discarded: throw RouteLogError.invalid("recording \(id) was discarded; start a new recording")
        }
    }

    /// The waiting points as chunks of at most `FormatConstants.maxRecordingChunkPoints`;
    /// the waiting splits and segment starts go in the last, whose end is past every
    /// index they name.
    private func waitingChunks(_ s: State) -> [RecordingChunkRecord] {
        guard s.hasWaiting else { return [] }
        var chunks: [RecordingChunkRecord] = []
        var first = s.flushedPoints
        var rest = s.waiting[...]
        repeat {
            let part = Array(rest.prefix(FormatConstants.maxRecordingChunkPoints))
            rest = rest.dropFirst(part.count)
            chunks.append(RecordingChunkRecord(
                id: id, firstPoint: first, pointCount: part.count,
                layout: rest.isEmpty ? s.waitingLayout : RouteLayout(),
                pointBlock: part.isEmpty ? [] : RouteCodec.encodePoints(part)[...]))
            first += part.count
        } while !rest.isEmpty
        return chunks
    }

    /// Appends the waiting points as chunks (then `finish`, in the same batch); on
    /// success nothing waits any more.
    private func write(_ s: inout State, chunks: [RecordingChunkRecord]? = nil, finish: RecordingFinishRecord? = nil) throws {
        let chunks = chunks ?? waitingChunks(s)
        try store.appendRecording(id, chunks: chunks, finish: finish)
        s.flushedPoints = s.pointCount
        s.chunkCount += chunks.count
        s.waiting = []
        s.waitingLayout = RouteLayout()
        s.waitingSince = nil
    }

    private func isDue(_ s: State) -> Bool {
        if let limit = flushPolicy.points, s.waiting.count >= limit { return true }
        if let interval = flushPolicy.interval, let since = s.waitingSince,
           since.duration(to: .now) >= .seconds(interval) { return true }
        return false
    }

    /// Notes when something started waiting, and sets the timer that flushes it.
    private func startWaiting(_ s: inout State) {
        guard s.waitingSince == nil else { return }
        let since = ContinuousClock.now
        s.waitingSince = since
        guard let interval = flushPolicy.interval else { return }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + interval) { [weak self] in
            self?.flushByTimer(waitingSince: since)
        }
    }

    /// The timer's flush: only if what waits is still what started the timer (a later
    /// wait has a timer of its own). A failure leaves the points waiting; the next
    /// append or flush retries.
    private func flushByTimer(waitingSince since: ContinuousClock.Instant) {
        state.withLock { s in
            guard s.status == .recording, s.waitingSince == since, s.hasWaiting else { return }
            try? write(&s)
        }
    }
}
