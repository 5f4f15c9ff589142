import Foundation

extension RouteStore {
    /// Reads every record of every file, checks every checksum, checks that the index
    /// agrees with the segments, and decodes every live route. Never throws: what it
    /// cannot read is a problem in the report. Saves may go on meanwhile; it checks
    /// the store as it was when it started.
    ///
    /// - Parameter progress: called with the fraction done (0...1) as it goes.
    public func verify(progress: (@Sendable (Double) -> Void)? = nil) -> VerificationReport {
        let snapshot = core.withLock { core in
            (manifest: core.manifest, files: core.segments, ends: core.segmentEnds, routes: core.state.routes,
             recordings: core.state.recordings, index: core.index, indexEnd: core.indexEnd, tornTails: core.tornTails,
             indexDamaged: core.indexDamaged, indexFile: core.manifest.indexFile)
        }
        var report = VerificationReport()
        var fromSegments = StoreState()
        let totalBytes = max(1, snapshot.ends.values.reduce(0, +))
        var done: Int64 = 0
        for number in snapshot.manifest.segments {
            guard let file = snapshot.files[number], let end = snapshot.ends[number] else { continue }
            do {
                _ = try FileHeader.decode(try file.read(at: 0, count: FormatConstants.fileHeaderSize), path: file.path, expecting: .segment)
            } catch {
                report.problems.append(.init(kind: .damagedBytes, path: file.path, offset: 0,
                                             length: Int64(FormatConstants.fileHeaderSize), routeID: nil,
                                             message: "the segment's file header is damaged: \((error as? RouteLogError)?.message ?? "\(error)")"))
            }
            var scanner = LogScanner(file: file, from: Int64(FormatConstants.fileHeaderSize), fileSize: end)
            do {
                while let record = try scanner.next() {
                    report.recordsChecked += 1
                    do {
                        if let event = try LogEvent.fromSegment(record, segment: number) { fromSegments.apply(event) }
                    } catch let error as ByteReader.Malformed {
                        report.problems.append(.init(kind: .damagedBytes, path: file.path, offset: record.offset,
                                                     length: Int64(record.frameLength), routeID: nil,
                                                     message: "a record passes its checksum but makes no sense: \(error.reason)"))
                    }
                }
            } catch {
                report.problems.append(.init(kind: .damagedBytes, path: file.path, offset: scanner.validEnd, length: nil,
                                             routeID: nil, message: "the segment could not be read: \(error)"))
            }
            for range in scanner.damage {
                let hit = snapshot.routes.first { $0.value.location.segment == number
                    && $0.value.location.offset < range.offset + range.length && $0.value.location.end > range.offset }
                report.problems.append(.init(kind: .damagedBytes, path: range.path, offset: range.offset, length: range.length,
                                             routeID: hit?.key,
                                             message: "\(range.length) bytes are no valid record" + (hit.map { "; they held route \($0.key)" } ?? "")))
            }
            if scanner.tailLength > 0 {
                report.tornTails.append(.init(kind: .damagedBytes, path: file.path, offset: scanner.validEnd,
                                              length: scanner.tailLength, routeID: nil,
                                              message: "\(scanner.tailLength) bytes of an unfinished append at the end"))
            }
            report.bytesChecked += end
            done += end
            progress?(0.5 * Double(done) / Double(totalBytes))
        }
        // What the open met and this scan cannot see any more: the tails it left out
        // (or a writer cut), and a damaged index a reader did without.
        for tail in snapshot.tornTails where !report.tornTails.contains(where: { $0.path == tail.path && $0.offset == tail.offset }) {
            report.tornTails.append(.init(kind: .damagedBytes, path: tail.path, offset: tail.offset, length: tail.length, routeID: nil,
                                          message: "\(tail.length) bytes at the end were no whole record when the store was opened (an unfinished append, or damage to the last record)"))
        }
        if snapshot.indexDamaged {
            report.problems.append(.init(kind: .damagedIndex, path: directory + "/" + FormatConstants.indexName(snapshot.indexFile),
                                         offset: 0, length: nil, routeID: nil,
                                         message: "the index is damaged or missing; this read-only handle read the segments instead, and the next writable open rewrites it"))
        }
        verifyIndex(snapshot.index, end: snapshot.indexEnd, into: &report)

        var damagedIDs = Set<RouteID>()
        var checked = 0
        for (id, route) in snapshot.routes.sorted(by: { $0.key < $1.key }) {
            checked += 1
            if checked % 256 == 0 { progress?(0.5 + 0.5 * Double(checked) / Double(max(1, snapshot.routes.count))) }
            guard let file = snapshot.files[route.location.segment] else { continue }
            do {
                let stored: (shape: RouteShape, points: [TrackPoint], segmentStarts: [Int])
                if route.recorded != nil {
                    let (finish, points) = try Self.readRecordedRoute(id, RecordedRouteFiles(route: route, files: snapshot.files))
                    stored = (finish.shape, points, finish.layout.segmentStarts)
                } else {
                    let record = try Self.readRouteRecord(file, at: route.location, id: id)
                    _ = try record.route()
                    stored = (record.shape, try RouteCodec.decodePoints(record.pointBlock), record.segmentStarts)
                }
                let shape = RouteShape(points: stored.points, segmentStarts: stored.segmentStarts)
                guard shape.firstMs == stored.shape.firstMs, shape.pointCount == stored.shape.pointCount,
                      shape.south == stored.shape.south, shape.north == stored.shape.north,
                      shape.west == stored.shape.west, shape.east == stored.shape.east,
                      stored.points.count == route.shape.pointCount
                else {
                    throw RouteLogError.corrupted("route \(id)'s summary does not match its points", path: file.path, offset: route.location.offset)
                }
                report.routesChecked += 1
            } catch {
                damagedIDs.insert(id)
                let message = (error as? RouteLogError)?.message ?? "route \(id)'s points do not decode: \(error)"
                report.problems.append(.init(kind: .damagedRoute, path: file.path, offset: route.location.offset,
                                             length: Int64(route.location.length), routeID: id, message: message))
            }
        }
        for (id, recording) in snapshot.recordings.sorted(by: { $0.key < $1.key }) {
            do {
                _ = try Self.readRecording(id, recording, files: snapshot.files)
                report.recordingsChecked += 1
            } catch {
                damagedIDs.insert(id)
                let location = recording.chunks.first?.location ?? recording.start
                report.problems.append(.init(kind: .damagedRoute, path: snapshot.files[location.segment]?.path ?? directory,
                                             offset: location.offset, length: nil, routeID: id,
                                             message: "unfinished recording \(id): \((error as? RouteLogError)?.message ?? "\(error)")"))
            }
            if !damagedIDs.contains(id), fromSegments.recordings[id] != recording {
                report.problems.append(.init(kind: .indexMismatch, path: snapshot.files[recording.start.segment]?.path ?? directory,
                                             offset: recording.start.offset, length: nil, routeID: id,
                                             message: "the index and the segments disagree about recording \(id)"))
            }
        }
        for id in fromSegments.recordings.keys where snapshot.recordings[id] == nil {
            report.problems.append(.init(kind: .indexMismatch, path: directory, offset: 0, length: nil, routeID: id,
                                         message: "recording \(id) is unfinished in the segments but not in the index"))
        }
        for (id, route) in snapshot.routes where !damagedIDs.contains(id) {
            let other = fromSegments.routes[id]
            if other?.location != route.location || other?.metadata != route.metadata || other?.recorded != route.recorded {
                report.problems.append(.init(kind: .indexMismatch, path: snapshot.files[route.location.segment]?.path ?? directory,
                                             offset: route.location.offset, length: nil, routeID: id,
                                             message: "the index and the segments disagree about route \(id)"))
            }
        }
        for id in fromSegments.routes.keys where snapshot.routes[id] == nil {
            report.problems.append(.init(kind: .indexMismatch, path: directory, offset: 0, length: nil, routeID: id,
                                         message: "route \(id) is live in the segments but not in the index"))
        }
        progress?(1)
        return report
    }

    private func verifyIndex(_ index: DurableFile?, end: Int64, into report: inout VerificationReport) {
        guard let index else { return }
        var scanner = LogScanner(file: index, from: Int64(FormatConstants.fileHeaderSize), fileSize: end)
        do {
            while let record = try scanner.next() {
                report.recordsChecked += 1
                _ = try LogEvent.fromIndex(record)
            }
        } catch {
            report.problems.append(.init(kind: .damagedIndex, path: index.path, offset: scanner.validEnd, length: nil,
                                         routeID: nil, message: "an index record makes no sense; the index will be rebuilt"))
        }
        for range in scanner.damage {
            report.problems.append(.init(kind: .damagedIndex, path: range.path, offset: range.offset, length: range.length,
                                         routeID: nil, message: "\(range.length) bytes of the index are damaged; it will be rebuilt"))
        }
        report.bytesChecked += end
    }
}
