import Foundation

/// What verify checks against, taken under the state lock.
struct VerificationSnapshot {
    var index: RouteIndex
    var segments: SegmentSet
    var indexFile: DurableFile?
    var indexEnd: Int64
    var tornTails: [DamagedRange]
    var indexDamaged: Bool
    var lost = LostAndFound.Listing()

    init(state: StoreState, indexFile: DurableFile?) {
        index = state.index
        segments = state.segments
        self.indexFile = indexFile
        indexEnd = state.indexBytes
        tornTails = state.tornTails
        indexDamaged = state.indexDamaged
    }
}

/// Reads a whole store back (``RouteStore/verify(progress:)``): every record's frame
/// and checksum, the index against a replay of the segments, every live route decoded.
struct StoreVerifier {
    let snapshot: VerificationSnapshot
    let directory: String
    let progress: (@Sendable (Double) -> Void)?

    func run() -> VerificationReport {
        var report = VerificationReport()
        var unopened: [String: String] = [:]
        let fromSegments = scanSegments(into: &report, unopened: &unopened)
        verifyIndexFile(into: &report)
        var unreadable: [String: [RouteID]] = [:]
        let damagedIDs = decodeRoutes(into: &report, unopened: unopened, unreadable: &unreadable)
        let unopenedNumbers = Set(snapshot.segments.segments.filter { unopened[$0.path] != nil }.map(\.number))
        compare(fromSegments, damagedIDs: damagedIDs, unopened: unopenedNumbers, into: &report)
        for (path, reason) in unopened.sorted(by: { $0.key < $1.key }) {
            let routes = unreadable[path, default: []].sorted()
            let held = routes.isEmpty ? "" : "; route\(routes.count == 1 ? "" : "s") \(routes.map { "\($0)" }.joined(separator: ", ")) in it cannot be read"
            report.problems.append(.init(kind: .damagedBytes, path: path, offset: 0, length: nil, routeID: nil,
                                         message: VerificationReport.Problem.unopenedPrefix + reason + held
                                             + "; the index was checked against the segments only for the routes with no record in it"))
        }
        report.lostFiles = snapshot.lost.entries.map { .init(name: $0.name, bytes: $0.bytes, note: $0.note) }
        report.lostFilesNotListed = snapshot.lost.notListed
        progress?(1)
        return report
    }

    /// Every segment's records replayed into an index of their own; a segment that could
    /// not be opened (its permissions) goes into `unopened`, path to reason.
    private func scanSegments(into report: inout VerificationReport, unopened: inout [String: String]) -> RouteIndex {
        var replay = RouteIndex()
        let vouched = locatedOffsets()
        let totalBytes = max(1, snapshot.segments.totalBytes)
        var done: Int64 = 0
        for segment in snapshot.segments.segments {
            let file: DurableFile
            do {
                file = try segment.file
            } catch {
                unopened[segment.path] = (error as? RouteLogError)?.message ?? "\(error)"
                continue
            }
            do {
                _ = try FileHeader.decode(try file.read(at: 0, count: FormatConstants.fileHeaderSize), path: segment.path, expecting: .segment)
            } catch {
                report.problems.append(.init(kind: .damagedBytes, path: segment.path, offset: 0,
                                             length: Int64(FormatConstants.fileHeaderSize), routeID: nil,
                                             message: "the segment's file header is damaged: \((error as? RouteLogError)?.message ?? "\(error)")"))
            }
            // An older segment is read to the end of its file: bytes after its last whole
            // record are damage (only the last segment can end in a torn tail, and its
            // end is where this snapshot's appends end).
            let isLast = segment.number == snapshot.segments.segments.last?.number
            let end = isLast ? segment.end : max(segment.end, (try? file.size()) ?? segment.end)
            var scanner = LogScanner(file: file, from: Int64(FormatConstants.fileHeaderSize), fileSize: end,
                                     version: segment.version, vouched: vouched[segment.number] ?? [])
            do {
                while let record = try scanner.next() {
                    report.recordsChecked += 1
                    do {
                        if let event = try LogEvent.fromSegment(record, segment: segment.number) { replay.apply(event) }
                    } catch let error as ByteReader.Malformed {
                        report.problems.append(.init(kind: .damagedBytes, path: segment.path, offset: record.offset,
                                                     length: Int64(record.frameLength), routeID: nil,
                                                     message: "a record passes its checksum but makes no sense: \(error.reason)"))
                    }
                }
            } catch {
                report.problems.append(.init(kind: .damagedBytes, path: segment.path, offset: scanner.validEnd, length: nil,
                                             routeID: nil, message: "the segment could not be read: \(error)"))
            }
            for range in scanner.damage {
                let hit = snapshot.index.routes.firstID {
                    $0.segment == segment.number && $0.offset < range.offset + range.length && $0.end > range.offset
                }
                report.problems.append(.init(kind: .damagedBytes, path: range.path, offset: range.offset, length: range.length,
                                             routeID: hit,
                                             message: "\(range.length) bytes are no valid record" + (hit.map { "; they held route \($0)" } ?? "")))
            }
            if scanner.tailLength > 0 && isLast {
                report.tornTails.append(.init(kind: .damagedBytes, path: segment.path, offset: scanner.validEnd,
                                              length: scanner.tailLength, routeID: nil,
                                              message: "\(scanner.tailLength) bytes of an unfinished append at the end"))
            } else if scanner.tailLength > 0 {
                report.problems.append(.init(kind: .damagedBytes, path: segment.path, offset: scanner.validEnd,
                                             length: scanner.tailLength, routeID: nil,
                                             message: "\(scanner.tailLength) bytes after the last whole record of a sealed segment are no valid record"))
            }
            report.bytesChecked += segment.end
            done += segment.end
            progress?(0.5 * Double(done) / Double(totalBytes))
        }
        // What the open met and this scan cannot see any more: the tails it left out
        // (or a writer cut), and a damaged index a reader did without; not those of files
        // a compaction has removed since.
        let current = Set(snapshot.segments.segments.map(\.path) + (snapshot.indexFile.map { [$0.path] } ?? []))
        for tail in snapshot.tornTails where current.contains(tail.path)
            && !report.tornTails.contains(where: { $0.path == tail.path && $0.offset == tail.offset }) {
            report.tornTails.append(.init(kind: .damagedBytes, path: tail.path, offset: tail.offset, length: tail.length, routeID: nil,
                                          message: "\(tail.length) bytes at the end were no whole record when the store was opened (an unfinished append, or damage to the last record)"))
        }
        return replay
    }

    /// Offsets of every record the index locates, per segment: a tail holding one is
    /// damage, not a torn append.
    private func locatedOffsets() -> [UInt32: Set<Int64>] {
        var offsets: [UInt32: Set<Int64>] = [:]
        for event in snapshot.index.liveEvents(segmentOrder: snapshot.segments.numbers) {
            offsets[event.location.segment, default: []].insert(event.location.offset)
        }
        return offsets
    }

    private func verifyIndexFile(into report: inout VerificationReport) {
        if snapshot.indexDamaged {
            report.problems.append(.init(kind: .damagedIndex, path: snapshot.indexFile?.path ?? directory, offset: 0, length: nil, routeID: nil,
                                         message: "the index is damaged or missing; this read-only handle read the segments instead, and the next writable open rewrites it"))
            return
        }
        guard let index = snapshot.indexFile else { return }
        var scanner = LogScanner(file: index, from: Int64(FormatConstants.fileHeaderSize), fileSize: snapshot.indexEnd)
        var current: ScannedRecord?
        do {
            while let record = try scanner.next() {
                current = record
                report.recordsChecked += 1
                if record.type == FormatConstants.RecordType.indexPutRun.rawValue {
                    // An open checks a run's metadata for its layout; this, against every
                    // rule (format-spec.md, "Index records": IndexPutRun).
                    do {
                        try IndexPutRun.forEachPut(in: record.payload, everyRule: true) { _ in }
                    } catch let error as ByteReader.Malformed where (try? IndexPutRun.forEachPut(in: record.payload) { _ in }) != nil {
                        report.problems.append(.init(kind: .damagedIndex, path: index.path, offset: record.offset,
                                                     length: Int64(record.frameLength), routeID: nil,
                                                     message: "a route's metadata in the index breaks a rule an open does not check (\(error.reason)); "
                                                         + "remove the index file and the next writable open rebuilds it from the segments"))
                    }
                } else {
                    _ = try LogEvent.fromIndex(record)
                }
                current = nil
            }
        } catch {
            let reason = (error as? ByteReader.Malformed).map { ": \($0.reason)" } ?? ""
            report.problems.append(.init(kind: .damagedIndex, path: index.path, offset: current?.offset ?? scanner.validEnd,
                                         length: current.map { Int64($0.frameLength) }, routeID: nil,
                                         message: "an index record makes no sense\(reason); the index will be rebuilt"))
        }
        for range in scanner.damage {
            report.problems.append(.init(kind: .damagedIndex, path: range.path, offset: range.offset, length: range.length,
                                         routeID: nil, message: "\(range.length) bytes of the index are damaged; it will be rebuilt"))
        }
        report.bytesChecked += snapshot.indexEnd
    }

    /// Decodes every live route and unfinished recording; returns the ids that failed.
    /// One that fails because a segment it is in could not be opened is no damage: it
    /// goes into `unreadable`, under that segment's path.
    private func decodeRoutes(into report: inout VerificationReport, unopened: [String: String],
                              unreadable: inout [String: [RouteID]]) -> Set<RouteID> {
        func unopenedPath(_ error: Error) -> String? {
            guard let path = (error as? RouteLogError)?.path, unopened[path] != nil else { return nil }
            return path
        }
        let reader = RecordReader(segments: snapshot.segments)
        var damagedIDs = Set<RouteID>()
        var checked = 0
        let routes = snapshot.index.routes
        for (id, route) in routes.sorted(by: { $0.key < $1.key }) {
            checked += 1
            if checked % 256 == 0 { progress?(0.5 + 0.5 * Double(checked) / Double(max(1, routes.count))) }
            let path = snapshot.segments.segment(route.location.segment)?.path ?? directory
            do {
                let stored: (shape: RouteShape, points: [TrackPoint], segmentStarts: [Int])
                if route.recorded != nil {
                    let (finish, points) = try reader.recordedRoute(id, route)
                    stored = (finish.shape, points, finish.layout.segmentStarts)
                } else {
                    let record = try reader.routeRecord(id, at: route.location)
                    _ = try record.route()
                    stored = (record.shape, try RouteCodec.decodePoints(record.pointBlock), record.segmentStarts)
                }
                // The record's shape against its points: all but the distance, which was
                // measured on the app's points before they were quantized (the index's
                // copy of the shape is compared with the record's by `compare`).
                let shape = RouteShape(points: stored.points, segmentStarts: stored.segmentStarts)
                guard shape.firstMs == stored.shape.firstMs, shape.durationMs == stored.shape.durationMs,
                      shape.pointCount == stored.shape.pointCount,
                      shape.south == stored.shape.south, shape.north == stored.shape.north,
                      shape.west == stored.shape.west, shape.east == stored.shape.east,
                      shape.startLat == stored.shape.startLat, shape.startLon == stored.shape.startLon,
                      shape.endLat == stored.shape.endLat, shape.endLon == stored.shape.endLon,
                      stored.points.count == route.shape.pointCount
                else {
                    throw RouteLogError.corrupted("route \(id)'s summary does not match its points", path: path, offset: route.location.offset)
                }
                report.routesChecked += 1
            } catch {
                if let path = unopenedPath(error) {
                    unreadable[path, default: []].append(id)
                    continue
                }
                damagedIDs.insert(id)
                // A block that makes no sense says why in words (its offset is inside the
                // block, which the problem's file offset, the record's, already places).
                let message = (error as? RouteLogError)?.message
                    ?? (error as? ByteReader.Malformed).map { "the point block of route \(id) makes no sense: \($0.reason)" }
                    ?? "route \(id)'s points do not decode: \(error)"
                report.problems.append(.init(kind: .damagedRoute, path: path, offset: route.location.offset,
                                             length: Int64(route.location.length), routeID: id, message: message))
            }
        }
        for (id, recording) in snapshot.index.recordings.sorted(by: { $0.key < $1.key }) {
            do {
                _ = try reader.recording(id, recording)
                report.recordingsChecked += 1
            } catch {
                if let path = unopenedPath(error) {
                    unreadable[path, default: []].append(id)
                    continue
                }
                damagedIDs.insert(id)
                let location = recording.chunks.first?.location ?? recording.start
                report.problems.append(.init(kind: .damagedRoute, path: snapshot.segments.segment(location.segment)?.path ?? directory,
                                             offset: location.offset, length: nil, routeID: id,
                                             message: "unfinished recording \(id): \((error as? RouteLogError)?.message ?? "\(error)")"))
            }
        }
        return damagedIDs
    }

    /// The index against the replay of the segments.
    /// The index against the replay of the segments. With segments that could not be
    /// opened (`unopened`), the replay lacks their records, so only what has none there
    /// is compared: a route or recording the index places wholly in the others (a newer
    /// record of it in an unopened segment would be where the index places it), and an
    /// id the replay has that the index knows of by no record there (a delete, a finish
    /// or a discard stored there would explain the difference).
    private func compare(_ fromSegments: RouteIndex, damagedIDs: Set<RouteID>, unopened: Set<UInt32>,
                         into report: inout VerificationReport) {
        let index = snapshot.index
        func path(_ location: RecordLocation) -> String { snapshot.segments.segment(location.segment)?.path ?? directory }
        func seen(_ locations: [RecordLocation]) -> Bool { locations.allSatisfy { !unopened.contains($0.segment) } }
        func locations(of route: IndexedRoute) -> [RecordLocation] {
            [route.location] + (route.editLocation.map { [$0] } ?? []) + (route.recorded?.locations ?? [])
        }
        var hidden = Set<RouteID>()  // ids with a record in an unopened segment, by the index
        if !unopened.isEmpty {
            for (id, route) in index.routes where !seen(locations(of: route)) { hidden.insert(id) }
            for (id, recording) in index.recordings where !seen(recording.locations) { hidden.insert(id) }
            for (id, tombstone) in index.tombstones where !seen(tombstone.events.map(\.location)) { hidden.insert(id) }
        }
        for (id, recording) in index.recordings where !damagedIDs.contains(id) && !hidden.contains(id)
            && fromSegments.recordings[id] != recording {
            report.problems.append(.init(kind: .indexMismatch, path: path(recording.start), offset: recording.start.offset,
                                         length: nil, routeID: id, message: "the index and the segments disagree about recording \(id)"))
        }
        for id in fromSegments.recordings.keys where index.recordings[id] == nil && !hidden.contains(id) {
            report.problems.append(.init(kind: .indexMismatch, path: directory, offset: 0, length: nil, routeID: id,
                                         message: "recording \(id) is unfinished in the segments but not in the index"))
        }
        for (id, route) in index.routes where !damagedIDs.contains(id) && !hidden.contains(id) {
            let other = fromSegments.routes[id]
            // The shape too: listing, queries and totals read it from the index alone.
            if other?.location != route.location || other?.shape != route.shape || other?.metadata != route.metadata
                || other?.recorded != route.recorded {
                report.problems.append(.init(kind: .indexMismatch, path: path(route.location), offset: route.location.offset,
                                             length: nil, routeID: id, message: "the index and the segments disagree about route \(id)"))
            }
        }
        for id in fromSegments.routes.ids where !index.routes.contains(id) && !hidden.contains(id) {
            report.problems.append(.init(kind: .indexMismatch, path: directory, offset: 0, length: nil, routeID: id,
                                         message: "route \(id) is live in the segments but not in the index"))
        }
    }
}
