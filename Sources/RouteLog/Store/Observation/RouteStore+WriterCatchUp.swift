import Foundation

extension RouteStore {
    /// For a read-only handle: brings what it sees up to the store's files and hands the
    /// changes it finds to its subscribers (``changes``, the observations). A writer's
    /// handle already knows everything: nothing to do.
    ///
    /// While the manifest only grew (segments appended, by the writer's rolls) the new
    /// records are read in log order from where the handle stopped, so the changes come
    /// in commit order, one per record, as the writer's own subscribers hear them. When
    /// the files were replaced (a compaction, or a writer that rebuilt the index) the
    /// store is read again and the changes are the difference, then ``StoreChange/compacted``.
    ///
    /// - Throws: `.closed`; what opening the store throws.
    @discardableResult
    func catchUpWithWriter() throws -> [StoreChange] {
        guard isReadOnly else { return [] }
        return try following.catchingUp { try catchUpAlone() }
    }

    /// ``catchUpWithWriter()``, with no other catch-up running.
    private func catchUpAlone() throws -> [StoreChange] {
        try state.withLock { try $0.checkOpen() }
        let opener = StoreOpener(directory: directory, options: options, fileSystem: fileSystem, segmentFiles: segmentFiles)
        // The writer's mark first: a cut, or a new writer, after this shows at the next look.
        let mark = WriterMark.read(in: directory, fileSystem: fileSystem)
        let manifest = try opener.readOrCreateManifest()
        let (segments, indexFile, seen) = state.withLock { ($0.segments, $0.indexFileNumber, $0.followedMark) }
        var appended: [StoreChange]?
        do {
            if !WriterMark.moved(from: seen, to: mark), manifest.indexFile == indexFile,
               manifest.segments.starts(with: segments.numbers), !lastReplaced(segments),
               try !anyShrank(segments), try lastRecordStillThere(segments) {
                appended = try readAppended(manifest, segments: segments, opener: opener, mark: mark)
            }
        } catch let error as RouteLogError where error.code != .closed && manifestMoved(from: manifest) {
            // The writer switched files after the manifest was read (a compaction removed
            // a segment it lists before it was opened or read): no damage; the store is
            // read again from its new files.
        }
        let changes = try appended ?? readReplaced(opener, oldSegments: segments.numbers)
        changeHub.publish(changes)
        return changes
    }

    /// True when the MANIFEST is no longer the one `read` (unreadable counts as moved:
    /// reading the store again says what is wrong, if anything).
    private func manifestMoved(from read: Manifest) -> Bool {
        guard let now = try? Manifest.read(in: directory, fileSystem: fileSystem) else { return true }
        return now.generation != read.generation
    }

    /// True when a segment the handle has read is now shorter than what it read: the
    /// writer cut off records whose sync failed (refused changes, which the handle may
    /// have listed), so the handle reads the store again instead of appending.
    private func anyShrank(_ segments: SegmentSet) throws -> Bool {
        let last = segments.segments.last?.number
        return try segments.segments.contains { segment in
            guard !segment.isUnreadable else { return false }  // sealed: it changes no more
            // A sealed segment that can no longer be opened (its permissions changed
            // since) is not taken for a shrunk one; only the last can have been cut.
            guard segment.number == last else { return ((try? segment.file.size()) ?? segment.end) < segment.end }
            return try segment.file.size() < segment.end
        }
    }

    /// True when the last record the handle read in the last segment is still where it
    /// was: a writer may have cut records whose sync failed and appended others in their
    /// place, past the handle's end, so that no segment looks shrunk (``FollowedTail``).
    private func lastRecordStillThere(_ segments: SegmentSet) throws -> Bool {
        guard let last = segments.segments.last, let tail = state.withLock({ $0.followedTail }) else { return true }
        return try tail.isStillThere(in: last)
    }

    /// True when the last segment's name now leads to another file than the one the
    /// handle opened: a writer gave its store a copy of its own of a file another store
    /// shares (LinkedFiles), and the file the handle opened is the other store's now.
    /// Told from the identity taken when the handle opened it (``SegmentFile/identity``),
    /// not from its descriptor, which the segment file cache may have closed: opening
    /// the name again would be refused as a replaced file (``SegmentFileCache``), so this
    /// comes before any look at the last segment's bytes. A name that leads to the same
    /// device and inode has its birth compared too (``SegmentFile/birth``), looked up by
    /// name as the identity is, with nothing opened: the file there may have been given
    /// the number of the one the handle opened, removed since.
    private func lastReplaced(_ segments: SegmentSet) -> Bool {
        guard let last = segments.segments.last, let opened = last.handle.identity,
              let named = fileSystem.identityOfName(last.path) else { return false }
        guard named == opened else { return true }
        guard let birth = last.handle.birth, let namedBirth = fileSystem.birthOfName(last.path) else { return false }
        return namedBirth != birth
    }

    /// The records appended since the handle last looked, applied in log order.
    private func readAppended(_ manifest: Manifest, segments known: SegmentSet, opener: StoreOpener,
                              mark: String?) throws -> [StoreChange] {
        var added = manifest
        added.segments = Array(manifest.segments.dropFirst(known.numbers.count))
        var (segments, fresh) = (known, try opener.openSegments(added).0)
        // A new sealed segment this handle may not open holds records only an index can
        // vouch for: the store is read again, from its index, which may hold them all.
        if fresh.segments.contains(where: \.isUnreadable) { return try readReplaced(opener, oldSegments: known.numbers) }
        let lastKnown = known.segments.last?.number
        var events: [LogEvent] = []
        var lastRecords: [UInt32: Int64] = [:]
        for number in manifest.segments {
            let isNew = !segments.contains(number)
            guard var segment = segments.segment(number) ?? fresh.segment(number) else { continue }
            // A segment that was sealed when the handle last looked changes no more
            // (a compaction, which replaces it, is read as a new store).
            if !isNew && number != lastKnown { continue }
            let from = isNew ? Int64(FormatConstants.fileHeaderSize) : segment.end
            segment.end = try segment.file.size()
            // Cut since the checks above: what the handle read there may be refused.
            if !isNew && segment.end < from { return try readReplaced(opener, oldSegments: known.numbers) }
            // A record being written shows as a torn tail: the scan stops before it, and
            // the write's own file event brings the handle back for it.
            var end = min(segment.end, from)
            if segment.end > from {
                let scan = try IndexRecovery.scan(segment, from: from)
                events += scan.events
                end = scan.validEnd
                lastRecords[number] = scan.lastRecord
            }
            if isNew {
                segment.end = end
                segments.append(segment)
                fresh.setEnd(end, of: number)
            } else {
                segments.setEnd(end, of: number)
            }
        }
        // A cut (and a new writer's appends over it) while the scans read: what they read
        // after the handle's end is no append to what it had read.
        let previous = state.withLock { $0.followedTail }
        let markAfter = WriterMark.read(in: directory, fileSystem: fileSystem)
        if WriterMark.moved(from: mark, to: markAfter) {
            return try readReplaced(opener, oldSegments: known.numbers)
        }
        if let previous, let knownLast = known.segments.last, try !previous.isStillThere(in: knownLast) {
            return try readReplaced(opener, oldSegments: known.numbers)
        }
        let last = segments.segments.last!
        let tail = try FollowedTail.take(of: last, from: lastRecords[last.number] ?? (previous?.segment == last.number ? previous?.lastRecord : nil))
        let adopted = state.withLock { s -> Bool in
            guard s.lifecycle == .open else { return false }
            for event in events { s.index.apply(event) }
            (s.segments, s.generation, s.settings) = (segments, manifest.generation, manifest.settings)
            s.followedTail = tail
            s.followedMark = markAfter
            return true
        }
        guard adopted else { throw RouteLogError.closed(directory) }
        return StoreChange.of(events)
    }

    /// The store read again from its new files; the changes are the difference.
    private func readReplaced(_ opener: StoreOpener, oldSegments: [UInt32]) throws -> [StoreChange] {
        let (fresh, _) = try Self.openForReading(opener)
        let old = try state.withLock { s -> RouteIndex in
            try s.checkOpen()
            defer { s = fresh }
            return s.index
        }
        var changes = StoreChange.between(old, fresh.index)
        if !Set(oldSegments).isSubset(of: fresh.segments.numbers) { changes.append(.compacted) }
        return changes
    }

    /// Follows the writer process from now on (called when a read-only handle gets its
    /// first subscriber).
    func startFollowingWriter() {
        let directory = self.directory
        following.start(directory: directory, identity: directoryIdentity, catchUp: { [weak self] in
            guard let self else { return nil }
            do {
                try self.catchUpWithWriter()
                return nil
            } catch let error as RouteLogError where error.code == .closed {
                return nil
            } catch let error as RouteLogError {
                return error
            } catch {
                return RouteLogError(.io, "catching up with the writer failed: \(error)", path: directory)
            }
        }, onEnd: { [weak self] failure in
            // Nothing more can come: the subscribers hear why, instead of waiting.
            guard let failure else {
                self?.changeHub.finish(throwing: RouteLogError(.notFound,
                    "the store's directory was deleted or moved away while it was followed; open the store again where it is now",
                    path: directory))
                return
            }
            self?.changeHub.finish(throwing: RouteLogError(failure.code,
                "the store could not be followed (\(failure.message)); open the store again to see its changes",
                path: failure.path ?? directory, offset: failure.offset, errno: failure.errno))
        })
    }
}
