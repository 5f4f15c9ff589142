import Foundation
import Testing
@testable import RouteLog

/// Ways a read-only handle that read a refused change could keep listing it: a refused
/// batch whose last record a later writer writes back byte for byte (only the writer's
/// mark in LOCK tells), and a cut that lands while a catch-up is under way.
@Suite struct FollowedCutRaceTests {
    static func route(_ seed: UInt64, points: Int, name: String, uuid: UUID? = nil) -> Route {
        var route = Fixtures.sampleWalk(seed: seed, points: points)
        route.metadata.name = name
        route.metadata.uuid = uuid
        return route
    }

    /// A store at `url` holding one route ("kept", saved and closed), and a read-only
    /// handle on it that will follow the next writer.
    static func keptRouteAndReader(_ url: URL) throws -> (kept: RouteID, reader: RouteStore) {
        let first = try RouteStore(at: url)
        let kept = try first.save(route(1, points: 200, name: "kept"))
        try first.close()
        return (kept, try RouteStore(at: url, options: .init(mode: .readOnly)))
    }

    /// A batch of two routes to be refused, and the batch saved in its place: the first
    /// route differs only in its name (the same encoded length), the second is the same
    /// route with the same uuid, so its record comes back byte for byte.
    static func refusedAndRetried(seed: UInt64, second: String) -> (refused: [Route], retried: [Route]) {
        let shared = UUID()
        return ([route(seed, points: 300, name: "refused"), route(seed + 1, points: 100, name: second, uuid: shared)],
                [route(seed, points: 300, name: "retried"), route(seed + 1, points: 100, name: second, uuid: shared)])
    }

    /// A writer whose first segment sync after open fails, and whose segment writes
    /// run `onWrite` first (after the write, before the sync).
    static func failingWriter(_ url: URL, onWrite: @escaping @Sendable () -> Void) throws -> (RouteStore, InterceptingFileSystem) {
        let probe = InterceptingFileSystem()
        try RouteStore(at: url, options: .init(), fileSystem: probe).close()
        let fs = InterceptingFileSystem(fault: .init(.kind(.syncData, probe.count(.syncData) + 1), errno: EIO))
        fs.observe { operation in
            guard case .write(let ref, _, _) = operation, ref.path.contains(FormatConstants.segmentPrefix) else { return }
            onWrite()
        }
        return (try RouteStore(at: url, options: .init(), fileSystem: fs), fs)
    }

    /// A refused batch of two saves, read by the handle before the cut. A later writer
    /// saves a batch whose first route differs (same encoded length) and whose last one
    /// is byte for byte the refused last one (a route with its own uuid, given the same
    /// id again): the header of the handle's last record is back in its place, but the
    /// record before it is another one. The later writer's mark makes the handle read
    /// the store again.
    @Test func aRefusedBatchWhoseLastRecordComesBackIdentical() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let (kept, reader) = try Self.keptRouteAndReader(url)
        let (refused, retried) = Self.refusedAndRetried(seed: 2, second: "second")

        let heard = StateLock<[StoreChange]>([])
        let (writer, fs) = try Self.failingWriter(url) {
            if let changes = try? reader.catchUpWithWriter() { heard.withLock { $0 += changes } }
        }
        #expect(throws: RouteLogError.self) { try writer.save(refused) }
        #expect(fs.failures.map(\.kind) == [.syncData])
        try? writer.close()
        #expect(heard.withLock { $0 }.count == 2, "the reader read the refused batch before the cut")
        #expect(try reader.summaries().compactMap(\.name).sorted() == ["kept", "refused", "second"])
        let readerEnd = reader.state.withLock { $0.segments.last!.end }

        let later = try RouteStore(at: url)
        let ids = try later.save(retried)
        let stored = try ids.map { try later.route($0) }
        let bytes = try #require(later.statistics().segments.last).bytes
        try later.close()
        #expect(bytes == readerEnd, "the retried batch is as long as the refused one")

        try reader.catchUpWithWriter()
        let listed = try reader.summaries().sorted { $0.id < $1.id }
        #expect(listed.map(\.id) == [kept] + ids)
        #expect(listed.map(\.name) == ["kept", "retried", "second"], "the refused route is still listed")
        #expect(try reader.route(ids[0]) == stored[0])
        #expect(try reader.summary(ids[0]).uuid == stored[0].metadata.uuid)
        try reader.close()
    }

    /// The cut lands while a catch-up is under way: after the handle found its last
    /// record still there, before `readAppended` reads the file's size. That catch-up
    /// sets the segment's end to the shrunk size (or, when a later writer appended in
    /// the meantime, scans from the middle of its record). It must see the cut after its
    /// scans (a shorter segment, a new mark, its last record gone) and read the store
    /// again, so that its followed tail always names a record.
    @Test(arguments: [false, true])
    func aCutDuringACatchUpLeavesTheRefusedSaveListed(laterWriterInTheWindow: Bool) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let first = try RouteStore(at: url)
        let kept = try first.save(Self.route(1, points: 200, name: "kept"))
        try first.close()

        let armed = StateLock(false)
        let reached = DispatchSemaphore(value: 0), resume = DispatchSemaphore(value: 0)
        let readerFS = InterceptingFileSystem()
        readerFS.observe { operation in
            // The first read of the segment in an armed catch-up is the tail check's:
            // the writer's cut (and a later writer's save) happen right after it.
            guard case .read(let ref, _, _) = operation, ref.path.contains(FormatConstants.segmentPrefix),
                  armed.withLock({ let was = $0; $0 = false; return was }) else { return }
            reached.signal()
            _ = resume.wait(timeout: .now() + 20)
        }
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly), fileSystem: readerFS)

        let heard = StateLock<[StoreChange]>([])
        let done = DispatchSemaphore(value: 0)
        let (writer, _) = try Self.failingWriter(url) {
            if let changes = try? reader.catchUpWithWriter() { heard.withLock { $0 += changes } }
            // A second catch-up (a file event's) is under way when the sync fails.
            armed.withLock { $0 = true }
            Thread {
                _ = try? reader.catchUpWithWriter()
                done.signal()
            }.start()
            _ = reached.wait(timeout: .now() + 20)
        }
        #expect(throws: RouteLogError.self) { try writer.save(Self.route(2, points: 400, name: "refused")) }
        try? writer.close()
        #expect(heard.withLock { $0 }.count == 1, "the reader read the refused save before the cut")
        var laterIDs: [RouteID] = []
        if laterWriterInTheWindow {
            let later = try RouteStore(at: url)
            laterIDs.append(try later.save(Self.route(3, points: 1_500, name: "later")))
            try later.close()
        }
        resume.signal()
        #expect(done.wait(timeout: .now() + 20) == .success)
        let tail = reader.state.withLock { $0.followedTail }
        #expect(tail?.lastRecord != nil, "the racing catch-up left a followed tail without a record: \(String(describing: tail))")

        try reader.catchUpWithWriter()
        let expected = laterWriterInTheWindow ? ["kept", "later"] : ["kept"]
        let listedNow = try reader.summaries().sorted { $0.id < $1.id }.map(\.name)
        #expect(listedNow == expected, "the refused save is listed still: \(listedNow)")
        #expect(try reader.summaries().map(\.id).sorted() == ([kept] + laterIDs).sorted())

        // A later writer's change, appended after: the refused save is listed still.
        let last = try RouteStore(at: url)
        try last.edit(kept, RouteEdit(name: "kept, renamed"))
        try last.close()
        try reader.catchUpWithWriter()
        let listedLast = try reader.summaries().sorted { $0.id < $1.id }.map(\.name)
        #expect(listedLast == ["kept, renamed"] + expected.dropFirst(), "the refused save is listed still: \(listedLast)")
        let problems = try reader.verify().problems
        #expect(problems.isEmpty, "\(problems)")
        try reader.close()
    }
}

/// What the checks cost: following one writer reads what it appended (never the whole
/// store again, even across rolls), and a huge last record is not read again.
@Suite struct FollowedTailCostTests {
    static func segmentBytesRead(_ fs: InterceptingFileSystem, during body: () throws -> Void) rethrows -> (bytes: Int, indexOpens: Int) {
        let bytes = StateLock(0), opens = StateLock(0), on = StateLock(true)
        fs.observe { operation in
            guard on.withLock({ $0 }) else { return }
            switch operation {
            case .read(let ref, _, let count) where ref.path.contains(FormatConstants.segmentPrefix):
                bytes.withLock { $0 += count }
            case .open(let ref, _) where ref.path.contains(FormatConstants.indexPrefix): opens.withLock { $0 += 1 }
            default: break
            }
        }
        defer { on.withLock { $0 = false } }
        try body()
        return (bytes.withLock { $0 }, opens.withLock { $0 })
    }

    @Test func followingReadsAppendedNotTheWholeStore() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        var options = RouteStore.Options()
        options.segmentSizeLimit = 8192
        options.compaction = .manual
        let writer = try RouteStore(at: url, options: options)
        var ids = [try writer.save(FollowedCutRaceTests.route(1, points: 200, name: "a"))]
        let fs = InterceptingFileSystem()
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly), fileSystem: fs)
        for round in 0..<40 {
            let (_, opens) = try Self.segmentBytesRead(fs) {
                switch round % 4 {
                case 0: ids.append(try writer.save(FollowedCutRaceTests.route(UInt64(round + 2), points: 600, name: "r\(round)")))
                case 1: ids += try writer.save([FollowedCutRaceTests.route(UInt64(round + 2), points: 300, name: "b\(round)"),
                                                FollowedCutRaceTests.route(UInt64(round + 3), points: 300, name: "c\(round)")])
                case 2: try writer.edit(ids.last!, RouteEdit(name: "edited \(round)"))
                default: try writer.delete(ids.removeFirst())
                }
                let changes = try reader.catchUpWithWriter()
                #expect(!changes.isEmpty && !changes.contains(.compacted))
                #expect(try reader.catchUpWithWriter() == [])
            }
            #expect(opens == 0, "round \(round): the catch-up read the whole store again")
        }
        #expect(try writer.statistics().segments.count > 2, "the writer rolled")
        #expect(try reader.summaries().map(\.id).sorted() == ids.sorted())
        try writer.close()
        try reader.close()
    }

    /// Writers that come and go (an app's launches, `routelog` commands), each closing
    /// cleanly: each keeps the last one's mark, and the follower reads on.
    @Test func followingWriterSessionsReadsAppended() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        try RouteStore(at: url).close()
        let fs = InterceptingFileSystem()
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly), fileSystem: fs)
        var expected: [StoreChange] = []
        for session in 0..<6 {
            let (_, opens) = try Self.segmentBytesRead(fs) {
                let writer = try RouteStore(at: url)
                let id = try writer.save(FollowedCutRaceTests.route(UInt64(session + 1), points: 100, name: "s\(session)"))
                try writer.close()
                expected = [.saved(id)]
                #expect(try reader.catchUpWithWriter() == expected)
            }
            #expect(opens == 0, "session \(session): the catch-up read the whole store again")
        }
        try reader.close()
    }

    @Test func aHugeLastRouteIsNotReadAgain() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        try writer.save(Fixtures.sampleWalk(seed: 1, points: 200))
        try writer.save(Fixtures.sampleWalk(seed: 2, points: 1_000_000))
        let size = try #require(writer.statistics().segments.last).bytes
        #expect(size > 2_000_000)
        let fs = InterceptingFileSystem()
        var reader: RouteStore?
        let atOpen = try Self.segmentBytesRead(fs) { reader = try RouteStore(at: url, options: .init(mode: .readOnly), fileSystem: fs) }
        // An open reads the last record of each segment the index vouches for, whole
        // (IndexRecovery.vouchedDamage): the followed tail adds only its 16-byte header,
        // not a second read of the route.
        #expect(atOpen.bytes < Int(size) + 100_000, "open read \(atOpen.bytes) bytes of segments")
        var idleChanges: [StoreChange] = []
        let idle = try Self.segmentBytesRead(fs) { idleChanges = try reader!.catchUpWithWriter() }
        #expect(idleChanges == [])
        #expect(idle.bytes < 100_000, "an idle catch-up read \(idle.bytes) bytes")
        let id = try writer.save(Fixtures.sampleWalk(seed: 3, points: 100))
        var smallChanges: [StoreChange] = []
        let small = try Self.segmentBytesRead(fs) { smallChanges = try reader!.catchUpWithWriter() }
        #expect(smallChanges == [.saved(id)])
        #expect(small.bytes < 100_000, "a catch-up read \(small.bytes) bytes")
        try writer.close()
        try reader!.close()
    }
}

/// Opening read-only still works on last segments of odd shapes (FollowedTail.take at open).
@Suite struct FollowedTailOpenShapeTests {
    @Test(arguments: [0, 10, 40, 60, 200, -7, -1])
    func aReaderOpensWhateverTheLastSegmentEndsIn(cutTo: Int) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        try writer.save(Fixtures.sampleWalk(seed: 1, points: 300))
        try writer.save(Fixtures.sampleWalk(seed: 2, points: 300))
        let size = try #require(writer.statistics().segments.last).bytes
        try writer.close()
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: url.path)
            .first { $0.hasPrefix(FormatConstants.segmentPrefix) })
        let path = url.appendingPathComponent(segment).path
        #expect(truncate(path, cutTo >= 0 ? off_t(cutTo) : off_t(size) + off_t(cutTo)) == 0)
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        _ = try reader.summaries()
        try reader.catchUpWithWriter()
        try reader.close()
    }

    @Test func aReaderOpensWhenTheLastRecordsHeaderIsDamaged() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        try writer.save(Fixtures.sampleWalk(seed: 1, points: 300))
        let second = try writer.save(Fixtures.sampleWalk(seed: 2, points: 300))
        let location = try #require(writer.state.withLock { $0.index.routes[second]?.location })
        try writer.close()
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: url.path)
            .first { $0.hasPrefix(FormatConstants.segmentPrefix) })
        let handle = try #require(FileHandle(forUpdatingAtPath: url.appendingPathComponent(segment).path))
        try handle.seek(toOffset: UInt64(location.offset))
        try handle.write(contentsOf: Data([0, 0, 0, 0]))
        try handle.close()
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        _ = try reader.summaries()
        #expect(try reader.catchUpWithWriter() == [])
        let later = try RouteStore(at: url)
        let id = try later.save(Fixtures.sampleWalk(seed: 3, points: 100))
        try later.close()
        let changes = try reader.catchUpWithWriter()
        #expect(changes.contains(.saved(id)), "\(changes)")
        try reader.close()
    }
}
