import Foundation

extension RouteStore {
    /// Starts recording a route that survives the app being killed: points appended to
    /// the returned recorder are written to the store in chunks, as `flushPolicy` says,
    /// and ``RouteRecorder/finish(metadata:)`` turns them into an ordinary route.
    ///
    /// ```swift
    /// let recorder = try store.startRecording(metadata: RouteMetadata(name: "Hike"),
    ///                                         flushPolicy: .init(points: 10, interval: 10))
    /// try recorder.append(point)            // as each location update arrives
    /// try recorder.flush()                  // when the app goes to the background
    /// let id = try recorder.finish()        // now a route in summaries()
    /// ```
    ///
    /// Writes a durable RecordingStart, so the recording is listed by
    /// ``unfinishedRecordings()`` from now until it is finished or discarded. Several
    /// recordings may run at once. The recording's id is the id its route will have.
    ///
    /// - Throws: `.invalidArgument` for bad metadata or policy, or a read-only store;
    ///   `.io`; `.closed`.
    public func startRecording(metadata: RouteMetadata = RouteMetadata(),
                               flushPolicy: RouteRecorder.FlushPolicy = RouteRecorder.FlushPolicy()) throws -> RouteRecorder {
        try RouteValidation.validate(metadata)
        try flushPolicy.validate()
        let stored = StoredMetadata(metadata.withUUID())
        let startedMs = Quantization.milliseconds(Date())
        let events = try commit { view in
            let id = RouteID(try view.allocateIDs(1))
            view.attach(id)
            let record = RecordingStartRecord(id: id, startedMs: startedMs, metadata: stored)
            return [PreparedRecord(type: .recordingStart, payload: record.payload()) {
                .recordingStart(id, startedMs: startedMs, stored, $0)
            }]
        }
        return RouteRecorder(store: self, id: events[0].id, flushPolicy: flushPolicy, metadata: stored, contents: RecordingContents())
    }

    /// A recorder that goes on with an unfinished recording (one left by a crash, or by
    /// a recorder released without finishing), after the points it had flushed.
    ///
    /// - Throws: `.notFound` when `id` is no unfinished recording; `.invalidArgument`
    ///   when a recorder of this handle is still recording it; `.corrupted` when its
    ///   chunks are damaged (``discardRecording(_:)`` drops it); `.closed`.
    public func resumeRecording(_ id: RouteID,
                                flushPolicy: RouteRecorder.FlushPolicy = RouteRecorder.FlushPolicy()) throws -> RouteRecorder {
        try flushPolicy.validate()
        let found = PreparedValue<IndexedRecording>()
        // Attaching is a change of the writer's state (no record): it goes through the
        // writer like the changes, so it is ordered with them.
        try commit { view in
            found.value = try self.unfinished(id, &view)
            guard !view.attachedRecordings.contains(id) else {
                throw RouteLogError.invalid("recording \(id) is being recorded by a RouteRecorder of this store already; use that one")
            }
            view.attach(id)
            return []
        }
        do {
            // Read outside every lock: the writer's compaction (compact() on another
            // thread, or the background one) may move the chunks meanwhile, and switch
            // files before the segments are taken. The recording's entry is taken with
            // the segments it locates chunks in, again when a move removed what it read.
            // (Attached, it stays unfinished: only this recorder can end it.)
            let contents = try followingMoves {
                let (recording, segments) = try state.withLock { s in
                    try s.checkOpen()
                    return (s.index.recordings[id] ?? found.value!, s.segments)
                }
                return try RecordReader(segments: segments).recording(id, recording)
            }
            return RouteRecorder(store: self, id: id, flushPolicy: flushPolicy, metadata: found.value!.metadata, contents: contents)
        } catch {
            detachRecording(id)
            throw error
        }
    }

    /// Every recording neither finished nor discarded, oldest first, with the points
    /// and splits flushed so far: after a crash, what the app was recording. Includes
    /// recordings a ``RouteRecorder`` of this handle is appending to. A recording whose
    /// chunks are partly damaged (or, for a read-only handle, in a segment this process
    /// may not open) is listed with every point that reads back and the lost ranges in
    /// ``UnfinishedRecording/missingPoints``.
    ///
    /// - Throws: `.io`; `.closed`.
    public func unfinishedRecordings() throws -> [UnfinishedRecording] {
        // Taken again from the index when a compaction moved chunks it was reading.
        try followingMoves {
            let (recordings, segments) = try state.withLock { s in
                try s.checkOpen()
                return (s.index.recordings.sorted { $0.key < $1.key }, s.segments)
            }
            let reader = RecordReader(segments: segments)
            return try recordings.map { id, recording in
                UnfinishedRecording(id: id, recording: recording, contents: try reader.recording(id, recording, skippingDamage: true))
            }
        }
    }

    /// Drops an unfinished recording without a recorder (for one whose chunks are
    /// damaged, say): appends a RecordingDiscard; compaction reclaims its bytes.
    ///
    /// - Throws: `.notFound`; `.invalidArgument` when a recorder of this handle is
    ///   recording it (call its ``RouteRecorder/discard()``); `.io`; `.closed`.
    public func discardRecording(_ id: RouteID) throws {
        try appendRecordingDiscard(id, byRecorder: false)
    }

    // MARK: Writing, for RouteRecorder

    /// Appends `chunks` and then `finish` (either may be empty) to recording `id` as
    /// one all-or-nothing batch, after checking they follow what the store holds.
    func appendRecording(_ id: RouteID, chunks: [RecordingChunkRecord], finish: RecordingFinishRecord?) throws {
        var records: [PreparedRecord] = chunks.map { chunk in
            PreparedRecord(type: .recordingChunk, payload: chunk.payload()) {
                .recordingChunk(id, firstPoint: chunk.firstPoint, pointCount: chunk.pointCount, $0)
            }
        }
        if let finish {
            records.append(PreparedRecord(type: .recordingFinish, payload: finish.payload()) {
                .recordingFinish(id, finish.shape, finish.metadata, $0)
            })
        }
        guard !records.isEmpty else { return }
        for record in records where !RecordFrame.fitsOnceEscaped(size: record.payload.count, payload: { record.payload }) {
            throw RouteLogError.invalid("a chunk of recording \(id) encodes to \(RecordFrame.storedSize(of: record.payload)) bytes; one record may take at most 64 MiB")
        }
        try commit { view in
            let recording = try self.unfinished(id, &view)
            guard chunks.first.map({ $0.firstPoint == recording.pointCount }) ?? true,
                  finish.map({ $0.chunkCount == recording.chunks.count + chunks.count }) ?? true
            else {
                throw RouteLogError.invalid("recording \(id) holds \(recording.pointCount) points in \(recording.chunks.count) chunks, not what this recorder wrote; resume it again")
            }
            if finish != nil { view.detach(id) }
            return records
        }
        if finish != nil { compaction.compactIfDue(self) }
    }

    func appendRecordingDiscard(_ id: RouteID, byRecorder: Bool) throws {
        try commit { view in
            _ = try self.unfinished(id, &view)
            if !byRecorder && view.attachedRecordings.contains(id) {
                throw RouteLogError.invalid("recording \(id) is being recorded by a RouteRecorder of this store; discard it there")
            }
            view.detach(id)
            return [PreparedRecord(type: .recordingDiscard, payload: RecordingDiscardRecord(id: id).payload()) {
                .recordingDiscard(id, $0)
            }]
        }
        compaction.compactIfDue(self)
    }

    /// Lets another recorder resume `id` (a recorder going away without finishing).
    func detachRecording(_ id: RouteID) {
        writer.withLock { _ = $0?.attachedRecordings.remove(id) }
    }

    private func unfinished(_ id: RouteID, _ view: inout WriteView) throws -> IndexedRecording {
        if let recording = view.recording(id) { return recording }
        if view.route(id) != nil {
            throw RouteLogError(.notFound, "recording \(id) is finished already: it is route \(id)", path: directory)
        }
        throw RouteLogError(.notFound, "no unfinished recording with id \(id) in this store (it may have been finished or discarded)", path: directory)
    }
}
