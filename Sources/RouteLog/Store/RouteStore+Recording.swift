import Foundation

/// What reading a recorded route needs, taken under the lock and used outside it.
struct RecordedRouteFiles {
    var finish: RecordLocation
    var recording: IndexedRecording
    var files: [UInt32: DurableFile]

    init(route: IndexedRoute, files: [UInt32: DurableFile]) {
        finish = route.location
        recording = route.recorded!
        self.files = files
    }
}

/// The points and layout read back from a recording's chunks.
struct RecordingContents {
    var points: [TrackPoint] = []
    var layout = RouteLayout()
    var chunkCount = 0
}

extension RouteStore {
    // MARK: Public API

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
    /// - Throws: `.invalidArgument` for bad metadata or policy, or a read-only store; `.io`.
    public func startRecording(metadata: RouteMetadata = RouteMetadata(),
                               flushPolicy: RouteRecorder.FlushPolicy = RouteRecorder.FlushPolicy()) throws -> RouteRecorder {
        try RouteValidation.validate(metadata)
        try flushPolicy.validate()
        let stored = StoredMetadata(metadata)
        let startedMs = Quantization.milliseconds(Date())
        let id = try core.withLock { core -> RouteID in
            try core.checkWritable()
            let id = RouteID(core.nextRouteID)
            let record = RecordingStartRecord(id: id, startedMs: startedMs, metadata: stored)
            _ = try core.append([RecordFrame.encode(type: .recordingStart, payload: record.payload())],
                                events: { _, location in .recordingStart(id, startedMs: startedMs, stored, location) },
                                durable: options.durability == .durable, segmentLimit: options.segmentSizeLimit)
            core.attachedRecordings.insert(id)
            return id
        }
        return RouteRecorder(store: self, id: id, flushPolicy: flushPolicy, metadata: stored, contents: RecordingContents())
    }

    /// A recorder that goes on with an unfinished recording (one left by a crash, or by
    /// a recorder released without finishing), after the points it had flushed.
    ///
    /// - Throws: `.notFound` when `id` is no unfinished recording; `.invalidArgument`
    ///   when a recorder of this handle is still recording it; `.corrupted` when its
    ///   chunks are damaged (``discardRecording(_:)`` drops it).
    public func resumeRecording(_ id: RouteID,
                                flushPolicy: RouteRecorder.FlushPolicy = RouteRecorder.FlushPolicy()) throws -> RouteRecorder {
        try flushPolicy.validate()
        let (recording, files) = try core.withLock { core -> (IndexedRecording, [UInt32: DurableFile]) in
            try core.checkWritable()
            let recording = try Self.unfinished(id, core)
            guard !core.attachedRecordings.contains(id) else {
                throw RouteLogError.invalid("recording \(id) is being recorded by a RouteRecorder of this store already; use that one")
            }
            core.attachedRecordings.insert(id)
            return (recording, core.segments)
        }
        do {
            let contents = try Self.readRecording(id, recording, files: files)
            return RouteRecorder(store: self, id: id, flushPolicy: flushPolicy, metadata: recording.metadata, contents: contents)
        } catch {
            detachRecording(id)
            throw error
        }
    }

    /// Every recording neither finished nor discarded, oldest first, with the points
    /// and splits flushed so far: after a crash, what the app was recording. Includes
    /// recordings a ``RouteRecorder`` of this handle is appending to.
    ///
    /// - Throws: `.corrupted` naming a recording whose chunks are damaged; `.io`.
    public func unfinishedRecordings() throws -> [UnfinishedRecording] {
        let (recordings, files) = try core.withLock { core in
            guard !core.closed else { throw RouteLogError(.invalidArgument, "the store is closed", path: core.directory) }
            return (core.state.recordings.sorted { $0.key < $1.key }, core.segments)
        }
        return try recordings.map { id, recording in
            UnfinishedRecording(id: id, recording: recording, contents: try Self.readRecording(id, recording, files: files))
        }
    }

    /// Drops an unfinished recording without a recorder (for one whose chunks are
    /// damaged, say): appends a RecordingDiscard; compaction reclaims its bytes.
    ///
    /// - Throws: `.notFound`; `.invalidArgument` when a recorder of this handle is
    ///   recording it (call its ``RouteRecorder/discard()``).
    public func discardRecording(_ id: RouteID) throws {
        try core.withLock { core in
            guard !core.attachedRecordings.contains(id) else {
                throw RouteLogError.invalid("recording \(id) is being recorded by a RouteRecorder of this store; discard it there")
            }
        }
        try appendRecordingDiscard(id)
    }

    // MARK: Writing, for RouteRecorder

    /// Appends `chunks` and then `finish` (either may be empty) to recording `id` as
    /// one all-or-nothing batch, after checking they follow what the store holds.
    func appendRecording(_ id: RouteID, chunks: [RecordingChunkRecord], finish: RecordingFinishRecord?) throws {
        var records: [(FormatConstants.RecordType, [UInt8])] = chunks.map { (.recordingChunk, $0.payload()) }
        if let finish { records.append((.recordingFinish, finish.payload())) }
        guard !records.isEmpty else { return }
        for (_, payload) in records where payload.count > FormatConstants.maxPayloadLength {
            throw RouteLogError.invalid("a chunk of recording \(id) encodes to \(payload.count) bytes; one record may take at most 64 MiB")
        }
        let frames = records.enumerated().map { i, record in
            RecordFrame.encode(type: record.0, payload: record.1,
                               flags: i < records.count - 1 ? RecordFrame.batchContinues : 0)
        }
        try core.withLock { core in
            try core.checkWritable()
            let recording = try Self.unfinished(id, core)
            guard chunks.first.map({ $0.firstPoint == recording.pointCount }) ?? true,
                  finish.map({ $0.chunkCount == recording.chunks.count + chunks.count }) ?? true
            else {
                throw RouteLogError.invalid("recording \(id) holds \(recording.pointCount) points in \(recording.chunks.count) chunks, not what this recorder wrote; resume it again")
            }
            _ = try core.append(frames, events: { i, location in
                if i < chunks.count {
                    return .recordingChunk(id, firstPoint: chunks[i].firstPoint, pointCount: chunks[i].pointCount, location)
                }
                return .recordingFinish(id, finish!.shape, finish!.metadata, location)
            }, durable: options.durability == .durable, segmentLimit: options.segmentSizeLimit)
            if finish != nil { core.attachedRecordings.remove(id) }
        }
        if finish != nil { compactIfDue() }
    }

    func appendRecordingDiscard(_ id: RouteID) throws {
        try core.withLock { core in
            try core.checkWritable()
            _ = try Self.unfinished(id, core)
            var payload = ByteWriter(capacity: 8)
            payload.u64(id.rawValue)
            _ = try core.append([RecordFrame.encode(type: .recordingDiscard, payload: payload.bytes)],
                                events: { _, location in .recordingDiscard(id, location) },
                                durable: options.durability == .durable, segmentLimit: options.segmentSizeLimit)
            core.attachedRecordings.remove(id)
        }
        compactIfDue()
    }

    /// Lets another recorder resume `id` (a recorder going away without finishing).
    func detachRecording(_ id: RouteID) {
        core.withLock { _ = $0.attachedRecordings.remove(id) }
    }

    private static func unfinished(_ id: RouteID, _ core: StoreCore) throws -> IndexedRecording {
        if let recording = core.state.recordings[id] { return recording }
        if core.state.routes[id] != nil {
            throw RouteLogError(.notFound, "recording \(id) is finished already: it is route \(id)", path: core.directory)
        }
        throw RouteLogError(.notFound, "no unfinished recording with id \(id) in this store (it may have been finished or discarded)", path: core.directory)
    }

    // MARK: Reading

    /// The points and layout of a recording's chunks, each checked against the index.
    static func readRecording(_ id: RouteID, _ recording: IndexedRecording,
                              files: [UInt32: DurableFile]) throws -> RecordingContents {
        var contents = RecordingContents()
        contents.points.reserveCapacity(recording.pointCount)
        for chunk in recording.chunks {
            guard let file = files[chunk.location.segment] else {
                throw RouteLogError.corrupted("recording \(id)'s chunk is in a segment the store does not list",
                                              path: FormatConstants.segmentName(chunk.location.segment))
            }
            let payload = try readPayload(file, at: chunk.location, type: .recordingChunk, what: "recording \(id)'s chunk")
            do {
                let record = try RecordingChunkRecord(payload: payload[...])
                guard record.id == id, record.firstPoint == chunk.firstPoint, record.pointCount == chunk.pointCount else {
                    throw ByteReader.Malformed(reason: "the chunk holds recording \(record.id)'s points \(record.firstPoint)..<\(record.firstPoint + record.pointCount)", offset: 0)
                }
                contents.points += try record.points()
                contents.layout.splits += record.layout.splits
                contents.layout.segmentStarts += record.layout.segmentStarts
            } catch let error as ByteReader.Malformed {
                throw RouteLogError.corrupted("recording \(id)'s chunk makes no sense: \(error.reason)", path: file.path, offset: chunk.location.offset)
            }
        }
        contents.chunkCount = recording.chunks.count
        return contents
    }

    /// A finished recording's RecordingFinish and points (format-spec.md, "Recordings").
    static func readRecordedRoute(_ id: RouteID, _ recorded: RecordedRouteFiles) throws -> (RecordingFinishRecord, [TrackPoint]) {
        guard let file = recorded.files[recorded.finish.segment] else {
            throw RouteLogError.corrupted("route \(id)'s record is in a segment the store does not list",
                                          path: FormatConstants.segmentName(recorded.finish.segment))
        }
        let payload = try readPayload(file, at: recorded.finish, type: .recordingFinish, what: "route \(id)'s record")
        let finish: RecordingFinishRecord
        do {
            finish = try RecordingFinishRecord(payload: payload[...])
            guard finish.id == id else { throw ByteReader.Malformed(reason: "the record holds route \(finish.id)", offset: 0) }
        } catch let error as ByteReader.Malformed {
            throw RouteLogError.corrupted("route \(id)'s record makes no sense: \(error.reason)", path: file.path, offset: recorded.finish.offset)
        }
        let contents = try readRecording(id, recorded.recording, files: recorded.files)
        guard contents.chunkCount == finish.chunkCount, contents.points.count == Int(finish.shape.pointCount) else {
            throw RouteLogError.corrupted("route \(id) was recorded in \(finish.chunkCount) chunks of \(finish.shape.pointCount) points; \(contents.chunkCount) chunks of \(contents.points.count) points are left",
                                          path: file.path, offset: recorded.finish.offset)
        }
        return (finish, contents.points)
    }

    /// Reads the frame at `location`, checks its type and checksum, and returns its payload.
    static func readPayload(_ file: DurableFile, at location: RecordLocation,
                            type: FormatConstants.RecordType, what: String) throws -> [UInt8] {
        let bytes = try file.read(at: location.offset, count: location.length)
        guard bytes.count == location.length,
              let header = bytes.withUnsafeBytes({ RecordFrame.header($0, at: 0) }),
              header.length + FormatConstants.recordHeaderSize == location.length,
              header.type == type.rawValue
        else {
            throw RouteLogError.corrupted("\(what)'s record header is damaged", path: file.path, offset: location.offset)
        }
        guard Checksum.masked(bytes, 8..<bytes.count) == header.checksum else {
            throw RouteLogError.corrupted("\(what)'s record fails its checksum", path: file.path, offset: location.offset)
        }
        return Array(bytes[FormatConstants.recordHeaderSize...])
    }
}
