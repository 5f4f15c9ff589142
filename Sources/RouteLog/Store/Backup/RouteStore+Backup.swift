#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension RouteStore {
    /// Writes a consistent copy of the store into the directory `destination` while
    /// saves go on: every route acknowledged before the call began is in it. The copy
    /// is a store of its own (open it like any other). Segments are copied up to their
    /// committed end, the index and the manifest after them, and the manifest is
    /// switched in last, so an interrupted backup leaves the earlier one behind.
    /// Incremental: segment files an earlier backup left in `destination` are compared
    /// byte for byte with the store's and kept when equal; only the others are written.
    /// Files of the earlier backup the new one does not need are removed. At the end
    /// the backup is opened read-only and verified.
    ///
    /// ```swift
    /// let report = try store.backup(to: URL(fileURLWithPath: "/Volumes/Backup/Routes.routelog"))
    /// ```
    ///
    /// - Parameter destination: A missing path (it is made), an empty directory, or an
    ///   earlier backup. Never a symbolic link, a file, the store itself or a place
    ///   inside the store's directory (compared by real path, so a link or `..` that
    ///   leads there is refused too), or a directory holding anything but a store's files.
    /// - Returns: What was copied and kept, and the verification report.
    /// - Throws: `.invalidArgument` for a destination it refuses (nothing is written),
    ///   among them another store that is not an earlier backup of this one (a route or
    ///   unfinished recording this store never made), and a directory without a MANIFEST
    ///   whose segments hold another store's routes or recordings;
    ///   `.locked` when a process has the destination open for writing; `.closed` when
    ///   the store is closed before or while it runs (the destination keeps the earlier
    ///   backup); `.corrupted` when the written backup does not verify clean; `.io`,
    ///   among them a destination moved or replaced while the backup writes (the
    ///   backup goes on into the directory it checked, held open, never where the path
    ///   leads after; it stops at its next change there).
    @discardableResult
    public func backup(to destination: URL) throws -> BackupReport {
        try state.withLock { try $0.checkOpen() }
        // Not standardized: `..` after a symbolic link goes where the kernel says.
        // From here on the destination is locked, read, written and verified through the
        // checked directory `prepare` holds open, never by a path that may lead elsewhere.
        let anchored = try BackupDestination.prepare(destination.path, source: directory, fileSystem: fileSystem)
        let target = anchored.path
        // The destination's lock: no app writes it and no other backup runs into it meanwhile.
        let lock: StoreLock
        do {
            lock = try StoreLock.acquire(in: anchored.lockingPath, fileSystem: fileSystem, protection: options.fileProtection)
        } catch let error as RouteLogError {
            throw anchored.displayed(error)
        }
        let snapshot: BackupSnapshot
        let written: (copied: Int, reused: Int, bytes: Int64)
        do {
            defer { lock.release() }
            try anchored.checkUnmoved()
            snapshot = try BackupSnapshot.take(self)
            do {
                try checkIsBackup(of: snapshot, at: target, reading: anchored.readingPath)
            } catch let error as RouteLogError {
                throw anchored.displayed(error)
            }
            written = try BackupWriter(snapshot: snapshot, destination: anchored) {
                try self.state.withLock { try $0.checkOpen() }
            }.run()
        }
        let copy: RouteStore, verification: VerificationReport
        do {
            copy = try RouteStore(at: URL(fileURLWithPath: anchored.readingPath), options: Options(mode: .readOnly))
        } catch let error as RouteLogError {
            throw anchored.displayed(error)
        }
        defer { try? copy.close() }
        do {
            verification = try copy.verify()
        } catch let error as RouteLogError {
            throw anchored.displayed(error)
        }
        guard verification.isClean else {
            let first = anchored.displayed(RouteLogError(.corrupted, "\(verification.problems[0])")).message
            throw RouteLogError(.corrupted, "the backup does not verify clean: \(verification.problems.count) problem(s), the first: \(first)", path: target)
        }
        return BackupReport(segmentsCopied: written.copied, segmentsReused: written.reused, bytesCopied: written.bytes,
                            routeCount: try copy.count, verification: verification)
    }
}

extension AsyncRouteStore {
    /// Backs the store up without blocking the caller; see ``RouteStore/backup(to:)``.
    /// - Throws: `CancellationError` when the task was cancelled before the backup
    ///   began; otherwise what ``RouteStore/backup(to:)`` throws.
    @discardableResult
    public func backup(to destination: URL) async throws -> BackupReport {
        try await store.work.run { try store.backup(to: destination) }
    }
}

extension RouteStore {
    /// Refuses a destination store that is not an earlier backup of this one: one holding
    /// a route or unfinished recording whose id this store never gave, or an id this
    /// store gave to another route or recording (its uuid differs). Such a store would
    /// be overwritten, losing what only it holds. A destination without a MANIFEST is
    /// judged by the records of its segments the same way.
    /// - Throws: `.invalidArgument` naming the route, recording or segment; what opening
    ///   the destination throws.
    /// `reading` is where to read the destination (its held directory); `target` is the
    /// path messages name.
    func checkIsBackup(of snapshot: BackupSnapshot, at target: String, reading: String) throws {
        guard fileSystem.isDirectory(reading + "/" + FormatConstants.manifestName) == false else {
            return try checkHoldsOnlyCopies(of: snapshot, at: target, reading: reading)
        }
        let earlier = try RouteStore(at: URL(fileURLWithPath: reading), options: Options(mode: .readOnly))
        defer { try? earlier.close() }
        let mine = Dictionary(uniqueKeysWithValues: try summaries().map { ($0.id, $0.uuid) })
        for route in try earlier.summaries() {
            if route.id.rawValue >= snapshot.manifest.nextRouteID {
                throw RouteLogError(.invalidArgument, "the backup destination is another store, not a backup of this one: it holds route \(route.id), which this store never saved; give a new path or an earlier backup of this store", path: target)
            }
            if let uuid = mine[route.id], uuid != route.uuid {
                throw RouteLogError(.invalidArgument, "the backup destination is another store, not a backup of this one: its route \(route.id) is not this store's route \(route.id); give a new path or an earlier backup of this store", path: target)
            }
        }
        let recording = try state.withLock { s in try s.checkOpen(); return s.index.recordings.mapValues(\.metadata.uuid) }
        let theirs = try earlier.state.withLock { s in try s.checkOpen(); return s.index.recordings }
        for (id, other) in theirs.sorted(by: { $0.key < $1.key }) {
            if id.rawValue >= snapshot.manifest.nextRouteID {
                throw RouteLogError(.invalidArgument, "the backup destination is another store, not a backup of this one: it holds recording \(id), which this store never started; give a new path or an earlier backup of this store", path: target)
            }
            // An earlier backup's recording is this store's recording of its id still,
            // or the route it was finished as.
            if let uuid = other.metadata.uuid, let known = recording[id] ?? mine[id], known != uuid {
                throw RouteLogError(.invalidArgument, "the backup destination is another store, not a backup of this one: its recording \(id) is not this store's recording or route \(id); give a new path or an earlier backup of this store", path: target)
            }
        }
    }

    /// For a destination without a MANIFEST (a backup interrupted before it wrote one,
    /// or a store that lost its own): every segment holding more than a header must read
    /// as this store's, each route and recording it makes having an id this store gave
    /// and, when this store still holds the id, this store's uuid for it. A segment that
    /// does not read as a segment is refused too.
    private func checkHoldsOnlyCopies(of snapshot: BackupSnapshot, at target: String, reading: String) throws {
        let names = try fileSystem.checked("list", reading) { try fileSystem.listDirectory(reading) }
        let segments = names.filter { $0.hasPrefix(FormatConstants.segmentPrefix) && $0.hasSuffix(FormatConstants.segmentSuffix) }
        guard !segments.isEmpty else { return }
        let mine = Dictionary(uniqueKeysWithValues: try summaries().map { ($0.id, $0.uuid) })
        let recording = try state.withLock { s in try s.checkOpen(); return s.index.recordings.mapValues(\.metadata.uuid) }
        for name in segments.sorted() {
            func refusal(_ what: String) -> RouteLogError {
                RouteLogError(.invalidArgument, "the backup destination has no MANIFEST and its \(name) \(what): a store that lost its MANIFEST (restore it from a backup) or another store's files; give a new path or an empty directory", path: target)
            }
            guard let file = try? DurableFile.open(reading + "/" + name, flags: O_RDONLY, fileSystem: fileSystem),
                  let size = try? file.size() else { throw refusal("cannot be read") }
            guard size > Int64(FormatConstants.fileHeaderSize) else { continue }
            guard let bytes = try? file.read(at: 0, count: FormatConstants.fileHeaderSize),
                  let header = try? FileHeader.decode(bytes, path: name, expecting: .segment) else { throw refusal("is no segment") }
            var scanner = LogScanner(file: file, from: Int64(FormatConstants.fileHeaderSize), fileSize: size, version: header.version)
            while let record = try scanner.next() {
                guard let event = try? LogEvent.fromSegment(record, segment: header.fileNumber) else { continue }
                let id = event.id
                if id.rawValue >= snapshot.manifest.nextRouteID { throw refusal("holds records of id \(id), which this store never gave") }
                let uuid: UUID?
                switch event {
                case .put(_, _, let metadata, _), .recordingStart(_, _, let metadata, _), .recordingFinish(_, _, let metadata, _):
                    uuid = metadata.uuid
                default:
                    uuid = nil
                }
                if let uuid, let known = recording[id] ?? mine[id], known != uuid {
                    throw refusal("holds a route or recording \(id) that is not this store's \(id)")
                }
            }
        }
    }
}
