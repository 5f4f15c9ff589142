import Foundation
import Testing
@testable import RouteLog

/// A read-only handle that followed the writer may have read a save whose sync then
/// failed: the writer cut its record off again and refused the save. A writer opened
/// later appends where that record was, and may have written past where the handle
/// stopped before it looks again, so the file's size no longer shows the cut. The
/// handle must still see that what it read there is gone (the last record it read is
/// no longer at its place) and read the store again, instead of listing the refused
/// save and reading on from the middle of another record.
@Suite struct FollowedCutTests {
    static func route(_ seed: UInt64, points: Int, name: String) -> Route {
        var route = Fixtures.sampleWalk(seed: seed, points: points)
        route.metadata.name = name
        return route
    }

    /// The writer's save of `refused` is read by `reader` between its write and its
    /// failing sync (an observer of the write catches the reader up), then cut.
    static func refuseAfterTheReaderSawIt(_ url: URL, reader: RouteStore, refused: Route) throws -> RouteID? {
        let probe = InterceptingFileSystem()
        let opened = try RouteStore(at: url, options: .init(), fileSystem: probe)
        try opened.close()
        let syncsAtOpen = probe.count(.syncData)
        let fs = InterceptingFileSystem(fault: .init(.kind(.syncData, syncsAtOpen + 1), errno: EIO))
        let seen = StateLock<[StoreChange]>([])
        fs.observe { operation in
            guard case .write(let ref, _, _) = operation, ref.path.contains(FormatConstants.segmentPrefix) else { return }
            if let changes = try? reader.catchUpWithWriter() { seen.withLock { $0 += changes } }
        }
        let writer = try RouteStore(at: url, options: .init(), fileSystem: fs)
        #expect(throws: RouteLogError.self, "the save's sync failed") { try writer.save(refused) }
        #expect(fs.failures.map(\.kind) == [.syncData])
        try? writer.close()
        let heard = seen.withLock { $0 }
        #expect(heard.count == 1, "the reader read the refused save before its sync failed")
        if case .saved(let id) = heard.first { return id }
        return nil
    }

    @Test(arguments: [(1_200, 2), (60, 1), (300, 3)])
    func aReaderForgetsARefusedSaveAWriterWroteOver(laterPoints: Int, laterCount: Int) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let (kept, reader) = try FollowedCutRaceTests.keptRouteAndReader(url)
        let refusedID = try #require(try Self.refuseAfterTheReaderSawIt(url, reader: reader,
                                                                       refused: Self.route(2, points: 400, name: "refused")))
        #expect(try reader.summary(refusedID).name == "refused", "what the reader listed before the cut")

        // A new writer appends over the place of the refused record, past where the
        // reader stopped, before the reader looks again.
        let refusedEnd = reader.state.withLock { $0.segments.last!.end }
        let later = try RouteStore(at: url)
        let laterRoutes = (0..<laterCount).map { Self.route(UInt64(10 + $0), points: laterPoints, name: "later \($0)") }
        let laterIDs = try laterRoutes.map { try later.save($0) }
        let stored = try laterIDs.map { try later.route($0) }
        let segment = try #require(later.statistics().segments.last)
        try later.close()
        if laterPoints * laterCount > 400 {
            #expect(segment.bytes >= refusedEnd, "the file grew past where the reader stopped")
        }

        try reader.catchUpWithWriter()
        var expected: [(RouteID, String?)] = [(kept, "kept")]
        for (id, route) in zip(laterIDs, laterRoutes) { expected.append((id, route.metadata.name!)) }
        let listed = try reader.summaries().sorted { $0.id < $1.id }
        #expect(listed.map(\.id) == expected.map(\.0))
        #expect(listed.map(\.name) == expected.map(\.1))
        for (id, route) in zip(laterIDs, stored) { #expect(try reader.route(id) == route) }
        let report = try reader.verify()
        #expect(report.problems.isEmpty, "\(report.problems)")
        try reader.close()
    }

    /// The same when the handle opened between the write and the failed sync: what it
    /// read at open is its last record.
    @Test func aReaderOpenedBeforeTheCutForgetsTheRefusedSave() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let first = try RouteStore(at: url)
        let kept = try first.save(Self.route(1, points: 200, name: "kept"))
        try first.close()
        let probe = InterceptingFileSystem()
        try RouteStore(at: url, options: .init(), fileSystem: probe).close()
        let fs = InterceptingFileSystem(fault: .init(.kind(.syncData, probe.count(.syncData) + 1), errno: EIO))
        let reader = StateLock<RouteStore?>(nil)
        fs.observe { operation in
            guard case .write(let ref, _, _) = operation, ref.path.contains(FormatConstants.segmentPrefix) else { return }
            let opened = try? RouteStore(at: url, options: .init(mode: .readOnly))
            reader.withLock { $0 = opened }
        }
        let writer = try RouteStore(at: url, options: .init(), fileSystem: fs)
        #expect(throws: RouteLogError.self) { try writer.save(Self.route(2, points: 400, name: "refused")) }
        try? writer.close()
        let handle = try #require(reader.withLock { $0 })
        #expect(try handle.summaries().map(\.name) == ["kept", "refused"], "what the handle read at open")
        let later = try RouteStore(at: url)
        let laterID = try later.save(Self.route(3, points: 1_500, name: "later"))
        let stored = try later.route(laterID)
        try later.close()
        try handle.catchUpWithWriter()
        #expect(try handle.summaries().sorted { $0.id < $1.id }.map(\.name) == ["kept", "later"])
        #expect(try handle.summaries().map(\.id).sorted() == [kept, laterID].sorted())
        #expect(try handle.route(laterID) == stored)
        #expect(try handle.verify().problems.isEmpty)
        try handle.close()
    }

    /// Nothing was cut: a catch-up that finds the last record it read where it was
    /// reads on from there, and the writer's later saves come as saves, in order.
    @Test func aReaderReadsOnWhenItsLastRecordIsStillThere() async throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        let a = try writer.save(Self.route(1, points: 200, name: "a"))
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        let b = try writer.save(Self.route(2, points: 300, name: "b"))
        #expect(try reader.catchUpWithWriter() == [.saved(b)])
        let c = try writer.save(Self.route(3, points: 100, name: "c"))
        try writer.delete(a)
        #expect(try reader.catchUpWithWriter() == [.saved(c), .deleted(a)])
        #expect(try reader.catchUpWithWriter() == [])
        try writer.close()
        try reader.close()
    }
}
