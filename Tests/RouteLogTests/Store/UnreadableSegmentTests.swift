import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// A sealed segment a reader may not open (its permissions changed, say, by a `sudo`
/// copy) costs only its own routes, as damage does: the reader opens, lists every
/// route from the index, loads the others, and says for each of that segment's routes
/// why it cannot be read; `verify` names the file. A writer is still refused, and a
/// reader is refused when the index does not hold every record of that segment (it
/// could not know what it would miss). Tests run as root, where permissions do not
/// stop a read, so the refusal is the file system's (a double that answers EACCES).
@Suite struct UnreadableSegmentTests {
    /// The real file system, but opening the files named in `names` (which a test may
    /// add to later) is refused as a permission error would be.
    struct Denied: ForwardingFileSystem {
        let base: any FileSystem = PosixFileSystem.shared
        let names: StateLock<Set<String>>

        init(name: String) { names = StateLock([name]) }

        func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef {
            if names.withLock({ $0.contains(URL(fileURLWithPath: path).lastPathComponent) }) { throw Errno(code: EACCES) }
            return try base.open(path, flags: flags, mode: mode)
        }
    }

    /// A store of three segments or more, each route in one; returns each route's segment.
    static func makeStore(at url: URL) throws -> [(id: RouteID, route: Route, segment: UInt32)] {
        let store = try RouteStore(at: url, options: .init(segmentSizeLimit: 4 << 10, compaction: .manual))
        var saved: [(RouteID, Route, UInt32)] = []
        for seed in 0..<12 {
            let route = Fixtures.sampleWalk(seed: UInt64(seed), points: 300)
            let id = try store.save(route)
            let segment = store.state.withLock { $0.index.routes[id]!.location.segment }
            saved.append((id, route, segment))
        }
        try store.close()
        return saved
    }

    static func readOnly(_ url: URL, denying name: String, fileLimit: Int = 32) throws -> RouteStore {
        try readOnly(url, Denied(name: name), fileLimit: fileLimit)
    }

    static func readOnly(_ url: URL, _ denied: Denied, fileLimit: Int = 32) throws -> RouteStore {
        var options = RouteStore.Options(mode: .readOnly)
        options.openSegmentFileLimit = fileLimit
        return try RouteStore(at: url, options: options, fileSystem: denied)
    }

    /// Edits and deletes stored in the unreadable segment are no mismatch of the index
    /// with the segments, and its routes are not called damaged: verify reports the
    /// file once, naming the routes that cannot be read, and nothing else.
    @Test func verifyReportsTheFileOnceAndNoMismatch() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let saved = try Self.makeStore(at: url)
        let writer = try RouteStore(at: url, options: .init(segmentSizeLimit: 4 << 10, compaction: .manual))
        _ = try writer.edit(saved[0].id, RouteEdit(name: "renamed"))
        try writer.delete(saved[1].id)
        var later: [RouteID] = []
        for seed in 200..<204 { later.append(try writer.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 300))) }
        let editSegment = writer.state.withLock { $0.index.routes[saved[0].id]!.location.segment }
        try writer.close()
        let segments = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".rlseg") }.sorted()
        let denied = FormatConstants.segmentName(editSegment)
        #expect(segments.last != denied, "the edit is in a sealed segment")
        let reader = try Self.readOnly(url, denying: denied)
        #expect(try reader.summary(saved[0].id).name == "renamed")
        let report = try reader.verify()
        #expect(report.problems.count == 1 && report.problems.allSatisfy(\.isUnopenedSegment), "\(report.problems)")
        #expect(report.problems.first?.path == url.appendingPathComponent(denied).path)
        let inDenied = try reader.summaries().map(\.id).filter { id in
            reader.state.withLock { $0.index.routes[id]!.location.segment } == editSegment
        }
        #expect(!inDenied.isEmpty)
        for id in inDenied { #expect(report.problems.first?.message.contains("\(id)") == true, "\(report.problems)") }
    }

    /// A segment that becomes unreadable after a reader's open (its descriptor closed by
    /// the file limit, its permissions changed), or a new sealed segment the reader may
    /// not open, does not stop a following reader: it reads what it can, and the store
    /// again from its index when it must.
    @Test func aFollowingReaderGetsPastSegmentsThatBecomeUnreadable() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let saved = try Self.makeStore(at: url)
        let denied = Denied(name: "none")
        let reader = try Self.readOnly(url, denied, fileLimit: 1)
        let sealed = FormatConstants.segmentName(Set(saved.map(\.segment)).sorted()[1])
        denied.names.withLock { $0.insert(sealed) }
        let writer = try RouteStore(at: url, options: .init(segmentSizeLimit: 4 << 10, compaction: .manual))
        var added: [RouteID] = []
        for seed in 300..<306 { added.append(try writer.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 300))) }
        _ = try reader.catchUpWithWriter()
        #expect(try reader.count == saved.count + added.count)
        // A sealed segment made after the reader's open, denied before it first looks.
        let newSealed = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".rlseg") }.sorted()
        for seed in 400..<406 { added.append(try writer.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 300))) }
        let fresh = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".rlseg") }.sorted()
        let made = fresh.filter { !newSealed.contains($0) }
        #expect(made.count >= 2, "\(made)")
        denied.names.withLock { $0.insert(made[0]) }
        _ = try reader.catchUpWithWriter()
        #expect(try reader.count == saved.count + added.count)
        for id in added.suffix(2) { #expect(try reader.route(id).points.count == 300) }
        try writer.close()
        try reader.close()
    }

    @Test func aReaderListsEveryRouteAndLoadsAllButTheUnreadableSegments() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let saved = try Self.makeStore(at: url)
        let segments = Set(saved.map(\.segment)).sorted()
        #expect(segments.count >= 3, "\(segments)")
        let denied = segments[1], name = FormatConstants.segmentName(denied)
        let reader = try Self.readOnly(url, denying: name)
        #expect(try reader.summaries().map(\.id).sorted() == saved.map(\.id).sorted(), "every route is listed")
        for (id, route, segment) in saved {
            if segment == denied {
                do {
                    _ = try reader.route(id)
                    Issue.record("route \(id) in the unreadable segment loaded")
                } catch let error as RouteLogError {
                    #expect(error.code == .io && error.errno == EACCES, "\(error)")
                    #expect(error.path == url.appendingPathComponent(name).path, "\(error)")
                }
            } else {
                #expect(try reader.route(id).withoutUUID == RouteCodec.quantize(route))
            }
        }
        let report = try reader.verify()
        #expect(report.problems.contains { $0.path == url.appendingPathComponent(name).path && $0.message.contains("could not be opened") },
                "\(report.problems)")
        #expect(report.problems.allSatisfy { $0.path == url.appendingPathComponent(name).path }, "\(report.problems)")
        #expect(try reader.statistics().segments.count == segments.count)
        try reader.close()
    }

    /// A reader that follows a writer reads what the writer appends, past the segment
    /// it may not open, and through a compaction of the others.
    /// With a segment unopened, verify still compares the index with the segments for
    /// every route with no record there: an index that disagrees about one of those is
    /// reported, and the routes of the unopened segment are not.
    @Test func verifyStillComparesTheRoutesOutsideTheUnopenedSegment() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let saved = try Self.makeStore(at: url)
        let segments = Set(saved.map(\.segment)).sorted()
        let denied = segments[1], name = FormatConstants.segmentName(denied)
        let reader = try Self.readOnly(url, denying: name)
        let elsewhere = try #require(saved.first { $0.segment == segments[0] })
        // The index (in memory) says the route was renamed by a record the segments lack.
        reader.state.withLock { state in
            var metadata = state.index.routes[elsewhere.id]!.metadata
            metadata.name = "not in any segment"
            state.index.apply(.edit(elsewhere.id, metadata, RecordLocation(segment: segments[0], offset: 1 << 20, length: 64)))
        }
        let report = try reader.verify()
        let mismatches = report.problems.filter { $0.kind == .indexMismatch }
        #expect(mismatches.map(\.routeID) == [elsewhere.id], "\(report.problems)")
        #expect(report.problems.filter(\.isUnopenedSegment).count == 1, "\(report.problems)")
        #expect(report.problems.count == 2, "\(report.problems)")
    }

    /// An export goes past the routes of a segment it may not open: each is named with
    /// the segment's path and its record's offset (from the index), and every other
    /// route is exported.
    @Test func anExportNamesEachRouteOfTheUnopenedSegmentWithItsOffset() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let saved = try Self.makeStore(at: url)
        let denied = Set(saved.map(\.segment)).sorted()[1], name = FormatConstants.segmentName(denied)
        let reader = try Self.readOnly(url, denying: name)
        let report = try ParquetExporter.export(reader, to: dir.url.appendingPathComponent("out"))
        let inDenied = saved.filter { $0.segment == denied }.map(\.id)
        #expect(report.unreadableRoutes.map(\.id).sorted() == inDenied.sorted())
        #expect(report.routeCount == saved.count - inDenied.count)
        for route in report.unreadableRoutes {
            let location = reader.state.withLock { $0.index.routes[route.id]!.location }
            #expect(route.error.errno == EACCES && route.error.path == url.appendingPathComponent(name).path, "\(route.error)")
            #expect(route.error.offset == location.offset, "\(route.error)")
        }
    }

    /// Every kind of record inside the unopened segment (edits, a move in time, a delete,
    /// a recording's chunk, a discard, a finish), with later edits, chunks and a finish
    /// outside it: verify compares the rest and reports no false mismatch.
    @Test func verifyFindsNoFalseMismatchWithEveryKindOfRecordInTheUnopenedSegment() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url, options: .init(segmentSizeLimit: 4 << 10, compaction: .manual))
        func last() throws -> UInt32 { try writer.statistics().segments.last!.number }
        let ids = try (0..<4).map { try writer.save(Fixtures.sampleWalk(seed: UInt64($0), points: 300)) }
        let walk = Fixtures.sampleWalk(seed: 77, points: 400)
        let kept = try writer.startRecording(), discarded = try writer.startRecording(), finished = try writer.startRecording()
        for recording in [kept, discarded, finished] {
            try recording.append(Array(walk.points.prefix(10)))
            try recording.flush()
        }
        _ = try writer.save(Fixtures.sampleWalk(seed: 50, points: 300))
        let before = try last()
        _ = try writer.save(Fixtures.sampleWalk(seed: 51, points: 300))
        let denied = try last()
        #expect(denied != before)
        _ = try writer.edit(ids[0], RouteEdit(name: "renamed"))
        _ = try writer.edit(ids[1], RouteEdit(shift: 40 * 86_400))
        try writer.delete(ids[2])
        try kept.append(Array(walk.points[10..<20]))
        try kept.flush()
        try discarded.discard()
        let finishedID = try finished.finish()
        #expect(try last() == denied, "every one of those records is in one segment")
        for seed in 52..<54 { _ = try writer.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 300)) }
        #expect(try last() != denied)
        _ = try writer.edit(ids[0], RouteEdit(calories: 12))
        _ = try writer.edit(ids[1], RouteEdit(name: "later"))
        _ = try writer.edit(finishedID, RouteEdit(name: "finished"))
        try kept.append(Array(walk.points[20..<30]))
        try kept.flush()
        _ = try kept.finish()
        #expect(try writer.verify().problems.isEmpty)
        try writer.close()
        let reader = try Self.readOnly(url, denying: FormatConstants.segmentName(denied))
        let report = try reader.verify()
        #expect(report.problems.count == 1 && report.problems.allSatisfy(\.isUnopenedSegment), "\(report.problems.map(\.message))")
        try reader.close()
    }

    /// Once the segment's permissions are restored, the open reader reads its routes
    /// and verifies it whole, with no reopen; while they are not, each read says why.
    @Test func aSegmentWhosePermissionsAreRestoredIsReadWithoutReopening() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let saved = try Self.makeStore(at: url)
        let denied = Set(saved.map(\.segment)).sorted()[1], name = FormatConstants.segmentName(denied)
        let files = Denied(name: name)
        let reader = try Self.readOnly(url, files)
        let inDenied = saved.filter { $0.segment == denied }
        #expect(!inDenied.isEmpty)
        for _ in 0..<2 {  // still refused on a second try: nothing was kept of the failed open
            do {
                _ = try reader.route(inDenied[0].id)
                Issue.record("a route of the unreadable segment was read")
            } catch let error as RouteLogError {
                #expect(error.errno == EACCES && error.path?.hasSuffix(name) == true, "\(error)")
            }
        }
        #expect(try reader.verify().problems.contains(where: \.isUnopenedSegment))
        files.names.withLock { $0.removeAll() }
        for (id, route, _) in saved {
            #expect(try reader.route(id).withoutUUID == RouteCodec.quantize(route))
        }
        let report = try reader.verify()
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(reader.state.withLock { $0.segments.segments.allSatisfy { !$0.isUnreadable } })
    }

    /// A file put in the segment's place while it could not be opened is never read as
    /// its records: another segment's header is refused, and the reader goes on
    /// refusing that segment's routes while the rest of the store reads as before.
    @Test func aFilePutInTheUnreadableSegmentsPlaceIsNotRead() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let saved = try Self.makeStore(at: url)
        let segments = Set(saved.map(\.segment)).sorted()
        let denied = segments[1], name = FormatConstants.segmentName(denied)
        let files = Denied(name: name)
        let reader = try Self.readOnly(url, files)
        let deniedPath = url.appendingPathComponent(name).path
        try FileManager.default.removeItem(atPath: deniedPath)
        try FileManager.default.copyItem(atPath: url.appendingPathComponent(FormatConstants.segmentName(segments[0])).path,
                                         toPath: deniedPath)
        files.names.withLock { $0.removeAll() }
        for (id, route, segment) in saved {
            if segment == denied {
                do {
                    _ = try reader.route(id)
                    Issue.record("route \(id) was read from another segment's file")
                } catch let error as RouteLogError {
                    #expect(error.code == .corrupted && error.path == deniedPath, "\(error)")
                }
            } else {
                #expect(try reader.route(id).withoutUUID == RouteCodec.quantize(route))
            }
        }
    }

    @Test func aReaderFollowsAWriterPastTheUnreadableSegment() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let saved = try Self.makeStore(at: url)
        let denied = Set(saved.map(\.segment)).sorted()[1]
        let reader = try Self.readOnly(url, denying: FormatConstants.segmentName(denied))
        let writer = try RouteStore(at: url, options: .init(segmentSizeLimit: 4 << 10, compaction: .manual))
        var added: [RouteID] = []
        for seed in 100..<104 { added.append(try writer.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 300))) }
        let changes = try reader.catchUpWithWriter()
        #expect(!changes.isEmpty)
        #expect(try reader.count == saved.count + added.count)
        for id in added { #expect(try reader.route(id).points.count == 300) }
        // A compaction that rewrites another segment (the one the deleted route was in)
        // leaves the unreadable one as it is: the reader reads the store again from
        // the new index and files, and still reads all but that segment's routes.
        try writer.delete(saved[0].id)
        let report = try writer.compact()
        #expect(report.segmentsSkipped.map(\.name).contains(FormatConstants.segmentName(denied)), "\(report)")
        _ = try reader.catchUpWithWriter()
        #expect(try reader.count == saved.count - 1 + added.count)
        for (id, _, segment) in saved.dropFirst() {
            if segment == denied {
                #expect(throws: RouteLogError.self) { try reader.route(id) }
            } else {
                #expect(try reader.route(id).points.count == 300)
            }
        }
        try writer.close()
        try reader.close()
    }

    @Test func theLastSegmentOrAWriterIsStillRefused() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let saved = try Self.makeStore(at: url)
        let last = FormatConstants.segmentName(saved.map(\.segment).max()!)
        #expect(throws: RouteLogError.self) { try Self.readOnly(url, denying: last) }
        let sealed = FormatConstants.segmentName(saved.map(\.segment).min()!)
        do {
            _ = try RouteStore(at: url, options: .init(compaction: .manual), fileSystem: Denied(name: sealed))
            Issue.record("a writer opened a store it cannot read all of")
        } catch let error as RouteLogError {
            #expect(error.errno == EACCES, "\(error)")
        }
        // Nothing was changed: the store opens whole as it was.
        let whole = try RouteStore(readOnlyAt: url)
        #expect(try whole.count == saved.count)
        #expect(try whole.verify().isClean)
    }

    /// Without an index that holds every record of the unreadable segment, the reader
    /// cannot know what it would leave out: it is refused, as before.
    @Test func aReaderWithoutTheWholeIndexIsRefused() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let saved = try Self.makeStore(at: url)
        let sealed = FormatConstants.segmentName(Set(saved.map(\.segment)).sorted()[1])
        for index in try FileManager.default.contentsOfDirectory(atPath: url.path) where index.hasSuffix(".rlidx") {
            try FileManager.default.removeItem(at: url.appendingPathComponent(index))
        }
        do {
            _ = try Self.readOnly(url, denying: sealed)
            Issue.record("a reader opened without knowing what the unreadable segment holds")
        } catch let error as RouteLogError {
            #expect(error.errno == EACCES && error.path?.hasSuffix(sealed) == true, "\(error)")
        }
    }
}

/// An unfinished recording with a chunk in a sealed segment a reader may not open is
/// still listed by that reader, with the chunk's points missing, instead of making
/// `unfinishedRecordings()` fail for every recording.
@Suite struct UnreadableSegmentRecordingTests {
    @Test func aRecordingWithAChunkInAnUnreadableSegmentIsListedWithItsPointsMissing() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url, options: .init(segmentSizeLimit: 4 << 10, compaction: .manual))
        let walk = Fixtures.sampleWalk(seed: 5, points: 900)
        let recorder = try writer.startRecording()
        let other = try writer.startRecording()
        try other.append(Array(walk.points.prefix(10)))
        try other.flush()
        var chunkSegments: [UInt32] = []
        for part in 0..<3 {
            try recorder.append(Array(walk.points[(part * 300)..<((part + 1) * 300)]))
            try recorder.flush()
            chunkSegments.append(try writer.statistics().segments.last!.number)
            // Fill the segment so that the next chunk goes to a new one.
            try writer.save(Fixtures.sampleWalk(seed: UInt64(100 + part), points: 300))
        }
        try writer.close()
        #expect(Set(chunkSegments).count == 3, "\(chunkSegments)")
        let deniedNumber = chunkSegments[1]
        let reader = try UnreadableSegmentTests.readOnly(url, denying: FormatConstants.segmentName(deniedNumber))
        let unfinished = try reader.unfinishedRecordings()
        #expect(unfinished.count == 2)
        let recording = try #require(unfinished.first { $0.id == recorder.id })
        #expect(recording.missingPoints == [300..<600])
        #expect(recording.points.count == 600)
        #expect(unfinished.first { $0.id == other.id }?.points.count == 10)
        try reader.close()
    }
}
