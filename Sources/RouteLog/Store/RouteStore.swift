import Foundation

/// A store of GPS routes in one directory: append-only segments of compressed,
/// checksummed routes, a small index of their summaries, and a lock that admits one
/// writer process at a time.
///
/// ```swift
/// let store = try RouteStore(at: URL(fileURLWithPath: "Routes.routelog"))
/// let id = try store.save(route)            // durable when it returns
/// let list = try store.summaries()          // from the index, no coordinates read
/// let walk = try store.route(id)            // the points, exactly as saved
/// try store.edit(id, RouteEdit(shift: 7 * 86_400))
/// try store.delete(id)
/// ```
///
/// A `RouteStore` is safe to use from many threads at once. Saves cost the same
/// however many routes the store holds: nothing already written is rewritten.
/// Saves from several threads are written together and share one sync (group commit);
/// reads never wait for a sync.
///
/// Locks, always taken in this order, never the other way: the writer lock (held
/// across a group's write and sync, a roll, a compaction's plan and switch), then the
/// state lock (held for microseconds, by readers and by the writer publishing what it
/// made durable). The write queue's lock is never held while taking either.
public final class RouteStore: Sendable {
    /// The store's directory.
    public let url: URL
    /// True for a handle opened with ``OpenMode/readOnly``: it never writes.
    public let isReadOnly: Bool
    /// The options the store was opened with.
    public let options: Options

    let state: StateLock<StoreState>
    /// nil for a read-only handle.
    let writer: StateLock<StoreWriter?>
    let queue = WriteQueue()
    let compaction = CompactionScheduler()
    /// Syncs buffered saves once the store goes quiet.
    let quietSync = QuietSync()
    /// Where the async API runs its blocking work (Store/Async).
    let work = StoreWorkQueue(label: "RouteLog.RouteStore")
    /// The subscribers of `changes` and of observations (Store/Observation).
    let changeHub = ChangeHub()
    /// A read-only handle's watch on the writer process's files (Store/Observation).
    let following = WriterFollowing()
    /// The first close(), which a second one waits for.
    let closing = StoreClosing()
    /// The directory a read-only handle opened, taken before its files were read: the
    /// watch tells it from another one put at the same path later.
    let directoryIdentity: DirectoryIdentity?
    let lock: StoreLock?
    /// The process that opened the handle (RouteStore+Process).
    let openedBy: pid_t = getpid()
    let fileSystem: any FileSystem
    /// The open segment descriptors, at most ``Options/openSegmentFileLimit`` unused.
    let segmentFiles: SegmentFileCache

    var directory: String { url.path }
    var files: LogFiles {
        LogFiles(directory: directory, fileSystem: fileSystem, protection: options.fileProtection, segmentFiles: segmentFiles,
                 held: lock?.heldDirectory, opened: directoryIdentity)
    }

    /// Opens the store at `url`. With the default ``OpenMode/createIfMissing`` it is
    /// created when the directory is missing or empty (or its creation was cut short);
    /// ``OpenMode/mustExist`` refuses a path without a store; ``OpenMode/readOnly``
    /// never writes. A writer recovers from a crash as it opens: a torn last record is
    /// cut, and the index is caught up or rebuilt from the segments.
    ///
    /// - Parameters:
    ///   - url: A directory (by convention named `*.routelog`).
    ///   - options: Open mode, durability, segment size and compaction policy.
    /// - Throws: ``RouteLogError`` `.locked` when another process has it open for
    ///   writing, `.notFound` when there is no store and the mode does not create one,
    ///   `.unsupportedVersion` for a store from a newer RouteLog, `.invalidArgument` for
    ///   a directory that is not a store or bad options, `.corrupted` or `.io`.
    public convenience init(at url: URL, options: Options = Options()) throws {
        try self.init(at: url, options: options, fileSystem: PosixFileSystem.shared)
    }

    init(at url: URL, options: Options, fileSystem: any FileSystem) throws {
        guard options.segmentSizeLimit >= 4096 else {
            throw RouteLogError.invalid("segmentSizeLimit must be at least 4096 bytes, not \(options.segmentSizeLimit)")
        }
        guard options.openSegmentFileLimit >= 1 else {
            throw RouteLogError.invalid("openSegmentFileLimit must be at least 1, not \(options.openSegmentFileLimit)")
        }
        guard (0...1).contains(options.compactionRewriteThreshold) else {
            throw RouteLogError.invalid("compactionRewriteThreshold must be within 0...1, not \(options.compactionRewriteThreshold)")
        }
        if let delay = options.bufferedQuietSyncDelay, !(delay >= 0) {
            throw RouteLogError.invalid("bufferedQuietSyncDelay must be at least 0 seconds (or nil), not \(delay)")
        }
        DispatchEventLoop.start()
        let path = url.standardizedFileURL.path
        var opener = StoreOpener(directory: path, options: options, fileSystem: fileSystem)
        try opener.prepareDirectory()
        try opener.checkStoreExists()
        let lock = opener.writable ? try StoreLock.acquire(in: path, fileSystem: fileSystem, protection: options.fileProtection) : nil
        var fileSystem = fileSystem
        // From here on a writer's paths lead into the directory it locked, or fail.
        if let locked = lock?.lockedDirectory, fileSystem is PosixFileSystem {
            fileSystem = StoreDirectoryGuard(base: fileSystem, directory: path, identity: locked)
        }
        let identity = opener.writable ? nil : DirectoryIdentity(of: path)
        // A writer's uses of lost/, and its segments opened again, go through the
        // directory it locked, held open; a reader's segments are opened again only in
        // the directory it opened. (Nothing has used the first opener's segment cache.)
        opener = StoreOpener(directory: path, options: options, fileSystem: fileSystem, held: lock?.heldDirectory, opened: identity)
        let (state, writer): (StoreState, StoreWriter?)
        do {
            (state, writer) = opener.writable ? try opener.open() : try Self.openForReading(opener)
        } catch {
            lock?.release(files: opener.files)  // a failed open leaves the store to the next writer at once
            throw error
        }
        self.url = URL(fileURLWithPath: path, isDirectory: true)
        self.isReadOnly = !opener.writable
        self.options = options
        self.lock = lock
        self.fileSystem = fileSystem
        self.segmentFiles = opener.segmentFiles
        self.directoryIdentity = identity
        self.state = StateLock(state)
        self.writer = StateLock(writer)
        if isReadOnly {
            changeHub.onFirstSubscriber.withLock { $0 = { [weak self] in self?.startFollowingWriter() } }
        }
        ScratchMemory.storeOpened()
    }

    /// A compaction in the writer's process may replace the files between reading the
    /// manifest and opening them: try again with the new manifest. Besides a damaged
    /// look (which a file switch can give), any failure is tried again, up to
    /// ``routeMovesFollowed`` times, while the MANIFEST moves on during each attempt:
    /// with a small segment file cache, a segment measured and closed again is opened
    /// by name to be read, and a compaction may have removed it (ENOENT). An error that
    /// comes back with the MANIFEST unchanged is the store's, and is thrown.
    static func openForReading(_ opener: StoreOpener) throws -> (StoreState, StoreWriter?) {
        var attempt = 0
        var moves = 0
        while true {
            let generation = manifestGeneration(opener)
            do {
                let opened = try opener.open()
                // The index the MANIFEST named may be gone for a newer one (a writer's
                // close() rewrites the index alone, and removes the old one): read again
                // with the new MANIFEST, rather than replay the segments and report the
                // index missing.
                if opened.0.indexDamaged, attempt < 5,
                   let manifest = try? Manifest.read(in: opener.directory, fileSystem: opener.fileSystem),
                   manifest.generation != opened.0.generation {
                    attempt += 1
                    continue
                }
                return opened
            } catch let error as RouteLogError where error.code == .corrupted && attempt < 5 {
                attempt += 1
                usleep(20_000)
            } catch let error as RouteLogError where error.code != .closed && moves < routeMovesFollowed
                && manifestGeneration(opener) != generation {
                moves += 1
            }
        }
    }

    /// The generation of the MANIFEST `opener` reads, or nil when it cannot be read.
    private static func manifestGeneration(_ opener: StoreOpener) -> UInt64? {
        (try? Manifest.read(in: opener.directory, fileSystem: opener.fileSystem))??.generation
    }

    /// The pid of the process that holds the store at `url` for writing, or nil; -1 when
    /// one holds it but its pid cannot be read from `LOCK` (deleted, replaced, or given
    /// another name, as `cp -al` does, until the writer puts `LOCK` back at its next cut).
    public static func writerProcess(at url: URL) -> Int32? {
        StoreLock.holder(in: url.standardizedFileURL.path, fileSystem: PosixFileSystem.shared)
    }

    // MARK: Writing, for the public calls

    /// Runs `body` under the writer lock, on the writer's state.
    /// - Throws: `.closed` once the handle is closed; `.invalidArgument` for a
    ///   read-only handle; what `body` throws.
    func withWriter<T>(_ body: (inout StoreWriter) throws -> T) throws -> T {
        try checkOpenedInThisProcess()
        // A close() from `body` (a change of settings) must not wait for a close() that
        // waits for this lock.
        return try closing.threads.run {
            try writer.withLock { writer in
                guard writer != nil else {
                    try state.withLock { try $0.checkOpen() }
                    throw RouteLogError(.invalidArgument, "the store was opened read-only", path: directory)
                }
                return try body(&writer!)
            }
        }
    }

    /// Queues a change for the writer and returns its events once they are durable (as
    /// the durability option says). `prepare` runs when the change's turn comes, against
    /// the state as it is then; it returns the change's records (one all-or-nothing
    /// batch) or throws to refuse the change alone.
    @discardableResult
    func commit(_ prepare: @escaping (inout WriteView) throws -> [PreparedRecord]) throws -> [LogEvent] {
        try checkOpenedInThisProcess()
        guard !isReadOnly else {
            try state.withLock { try $0.checkOpen() }
            throw RouteLogError(.invalidArgument, "the store was opened read-only; open it with mode .createIfMissing or .mustExist to change it", path: directory)
        }
        return try queue.submit(WriteTicket(prepare)) { group in commitGroup(group) }
    }

    /// Records a reader may have read were cut off: a new mark in `LOCK` makes a
    /// following reader read the store again (``WriterMark``). A writer that cannot say
    /// so writes nothing more until the store is opened again (which draws a new mark).
    private func tellReadersOfACut(_ writer: inout StoreWriter) {
        do {
            try lock?.renewMark(files: files)
        } catch {
            lock?.noteUnannouncedCut()
            let cause = (error as? RouteLogError).map { " (\($0.message))" } ?? ""
            writer.log.stop(RouteLogError(.io, "records were cut off after a failed write and LOCK could not say so to readers\(cause); reopen the store to go on",
                                          path: directory, errno: (error as? RouteLogError)?.errno))
        }
    }

    /// The leader's work for one group: prepare each change in order, write them all in
    /// one write and one sync, then publish them to readers.
    private func commitGroup(_ group: [WriteTicket]) -> [Result<[LogEvent], any Error>] {
        writer.withLock { writer -> [Result<[LogEvent], any Error>] in
            var results = [Result<[LogEvent], any Error>?](repeating: nil, count: group.count)
            do {
                try state.withLock { try $0.checkOpen() }
                guard writer != nil else { throw RouteLogError.closed(directory) }
                try writer!.checkWritable()
            } catch {
                return group.map { _ in .failure(error) }
            }
            var view = WriteView(nextRouteID: writer!.nextRouteID, attachedRecordings: writer!.attachedRecordings) { id in
                self.state.withLock { ($0.index.routes[id], $0.index.recordings[id]) }
            }
            var accepted: [(ticket: Int, records: [PreparedRecord])] = []
            // Changes without records (a recorder attaching) keep their effect even when
            // the group's write fails.
            var attachedWithoutWrite = writer!.attachedRecordings
            for (i, ticket) in group.enumerated() {
                var trial = view  // a refused change leaves no trace in the view
                do {
                    let records = try ticket.prepare(&trial)
                    trial.apply(records)
                    if records.isEmpty {
                        attachedWithoutWrite.formUnion(trial.attachedRecordings.subtracting(view.attachedRecordings))
                        attachedWithoutWrite.subtract(view.attachedRecordings.subtracting(trial.attachedRecordings))
                        results[i] = .success([])
                    } else {
                        accepted.append((i, records))
                    }
                    view = trial
                } catch {
                    results[i] = .failure(error)
                }
            }
            guard !accepted.isEmpty else {
                writer!.attachedRecordings = view.attachedRecordings
                return results.map { $0! }
            }
            let cutsBefore = writer!.log.cuts
            do {
                let events = try writer!.append(accepted.map(\.records))
                writer!.nextRouteID = max(writer!.nextRouteID, view.nextRouteID)
                writer!.attachedRecordings = view.attachedRecordings
                publish(events.flatMap { $0 }, encodedMetadata: accepted.flatMap { $0.records.map(\.encodedMetadata) },
                        writer: writer!)
                quietSync.noteChange(self)
                for (k, entry) in accepted.enumerated() { results[entry.ticket] = .success(events[k]) }
            } catch {
                writer!.attachedRecordings = attachedWithoutWrite
                for entry in accepted { results[entry.ticket] = .failure(error) }
                if writer!.log.cuts != cutsBefore { tellReadersOfACut(&writer!) }
            }
            return results.map { $0! }
        }
    }

    /// Makes durable changes visible to readers; `encodedMetadata` holds each event's
    /// metadata as its record does, where known.
    private func publish(_ events: [LogEvent], encodedMetadata: [ArraySlice<UInt8>?], writer: StoreWriter) {
        precondition(encodedMetadata.count == events.count, "one metadata entry for each event")
        let (segments, generation, indexNumber, indexBytes) = (writer.log.segments, writer.manifest.current.generation,
                                                               writer.index.number, writer.index.end)
        let indexSingleRecords = writer.index.singleRecords
        let writes = StoreStatistics.Writes(changes: writer.changes, groups: writer.groups, dataSyncs: writer.log.dataSyncs)
        state.withLock { s in
            for (event, metadata) in zip(events, encodedMetadata) { s.index.apply(event, encodedMetadata: metadata) }
            (s.segments, s.generation, s.indexFileNumber, s.indexBytes) = (segments, generation, indexNumber, indexBytes)
            s.indexSingleRecords = indexSingleRecords
            s.writes = writes
        }
        // Still under the writer lock: subscribers hear of commits in commit order.
        changeHub.publish(StoreChange.of(events))
    }

    // MARK: Lifecycle

    /// For a read-only handle: picks up what the writer saved, deleted or compacted
    /// since the handle opened (or last refreshed), and tells the handle's subscribers
    /// (``changes``, the observations) what changed. A no-op for a writer's handle.
    /// A handle with subscribers does this by itself when the files change.
    /// - Throws: `.closed` after ``close()``; what opening throws.
    public func refresh() throws {
        try state.withLock { try $0.checkOpen() }
        try catchUpWithWriter()
    }

    /// Syncs the index (and, with buffered durability, the segment being appended to),
    /// waits for a running compaction to finish or give up, then releases the files and
    /// the writer's lock: every descriptor the handle opened is closed, though the object
    /// lives on (a read still under way keeps the segment it reads until it ends).
    /// Every later call on this handle throws `.closed`. Dropping the last reference
    /// closes it too.
    ///
    /// A close() called while another is under way (on another thread) returns once that
    /// one has released everything, so that the store may be opened again at once; it
    /// throws nothing, the first one reports what went wrong. Calling close() again
    /// afterwards does nothing. One called on a thread that the close() under way waits
    /// for returns at once instead, as that wait would never end: from inside
    /// ``updateSettings(_:)``'s change, which holds the writer's lock the close() needs.
    /// - Throws: `.io` when the final sync of buffered saves fails, or an earlier sync or
    ///   write of them failed (the lock is released all the same). `.invalidArgument`,
    ///   with the store left open, for the first close() called from inside
    ///   ``updateSettings(_:)``'s change: it would wait for the writer's lock its own
    ///   thread holds.
    ///
    /// In a child process made with fork(), close() does nothing: the handle still
    /// belongs to the parent (RouteStore+Process).
    public func close() throws {
        // A forked child's copy of the handle lets nothing go: its parent still holds the store.
        guard !isInheritedAcrossFork else { return }
        if closeMayWaitForThisThread, state.withLock({ $0.lifecycle == .open }) {
            throw RouteLogError(.invalidArgument, "close() was called from inside work that it waits for (a change of updateSettings, which holds the writer's lock); the store is still open: close it once that returns",
                                path: directory)
        }
        let first = state.withLock { s -> Bool in
            guard s.lifecycle == .open else { return false }
            s.lifecycle = .closing
            closing.begin()
            return true
        }
        guard first else {
            // Nor on the thread of a catch-up under way, which the first close() waits for
            // (a first close() from there is not refused: it does not wait for itself).
            if !closing.hasEnded && !closeMayWaitForThisThread && !following.isCatchingUpOnThisThread {
                closing.waitForTheFirst()
            }
            return
        }
        // Last of all, once everything is let go: the close() calls waiting for this one return.
        defer { closing.end() }
        try closing.threads.run { try letGo() }
    }

    /// Whether the close() under way may be waiting for this thread: its own (a
    /// subscriber told of the end), one holding the writer lock, one compacting, one
    /// delivering changes (``StoreClosing``).
    private var closeMayWaitForThisThread: Bool {
        closing.threads.includesThisThread || compaction.threads.includesThisThread || changeHub.delivering.includesThisThread
    }

    /// The first close()'s work, once the handle is marked closing.
    private func letGo() throws {
        // From here no compaction can start, and a running one gives up at its next step.
        compaction.waitUntilIdle()
        following.stop()
        // A catch-up under way has files of the store open: it ends first (it then
        // finds the handle closed at its next look).
        following.waitForCatchUp()
        defer {
            state.withLock { s in
                s.lifecycle = .closed
                s.segments = SegmentSet()
            }
            lock?.release(files: files)
            // The segments' descriptors go too: a closed handle holds nothing open.
            segmentFiles.close()
            changeHub.finish()
            // The codec's working memory is kept for the next save or load while a store
            // is open; the last store to close hands it back to the system.
            ScratchMemory.storeClosed()
        }
        try writer.withLock { w in
            // The writer goes, and its files close, even when the last sync failed.
            defer { w = nil }
            // Saves append one index record each: when many have piled up, the index is
            // written again as runs, which the next open reads fastest.
            try w?.closeFiles(rewriting: state.withLock { $0.index })
        }
    }

    deinit {
        try? close()
    }
}
