import Foundation
import Testing
@testable import RouteLog

/// A read-only handle measures the segments, then reads the index: a writer that
/// commits in between leaves the index naming records past the ends the handle
/// measured. Those changes are part of what the handle opened to (it lists them), so
/// its subscribers must never hear them; each later change is heard once.
@Suite struct ReaderOpenAppendRaceTests {
    /// A file system for the reader that runs `change` (once, when armed) right after
    /// the reader opens an index file: its segments are measured, its index not yet read.
    static func readerFileSystem(armed: StateLock<Bool>, change: @escaping @Sendable () -> Void) -> InterceptingFileSystem {
        let fs = InterceptingFileSystem()
        fs.observe { operation in
            guard case .open(let ref, _) = operation, ref.path.hasSuffix(FormatConstants.indexSuffix),
                  armed.withLock({ let was = $0; $0 = false; return was }) else { return }
            change()
        }
        return fs
    }

    @Test func changesCommittedWhileTheHandleOpensAreNotHeardAgain() async throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        var routes = RandomRoutes(seed: 129)
        let early = try writer.save(routes.next())
        let kept = try writer.save(routes.next())
        let late = StateLock<RouteID?>(nil)
        let armed = StateLock(true)
        let fs = Self.readerFileSystem(armed: armed) { [route = routes.next()] in
            late.withLock { $0 = try? writer.save(route) }
            try? writer.delete(early)
        }
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly), fileSystem: fs)
        let saved = try #require(late.withLock { $0 }, "the writer saved while the handle opened")
        #expect(Set(try reader.summaries().map(\.id)) == [kept, saved], "the handle opened to both changes")

        let changes = reader.changes
        #expect(try reader.catchUpWithWriter() == [], "nothing was committed after the handle opened")
        let after = try writer.save(routes.next())
        try reader.refresh()
        try reader.refresh()
        try reader.close()
        var heard: [StoreChange] = []
        for try await change in changes { heard.append(change) }
        #expect(heard == [.saved(after)])
        try writer.close()
    }

    /// The same race when a catch-up reads the store again after a compaction: the
    /// difference it hears includes the change committed meanwhile, and the next
    /// catch-up does not hear it again.
    @Test func aChangeCommittedWhileACompactionIsReadIsHeardOnce() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url, options: .smallSegmentsRewrittenEveryTime)
        var ids: [RouteID] = []
        for seed in 1...6 { ids.append(try writer.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 150))) }
        let late = StateLock<RouteID?>(nil)
        let armed = StateLock(false)
        let fs = Self.readerFileSystem(armed: armed) {
            late.withLock { $0 = try? writer.save(Fixtures.sampleWalk(seed: 50, points: 150)) }
        }
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly), fileSystem: fs)
        try writer.delete(ids[0])
        #expect(try writer.compact().segmentsCompacted > 0)

        armed.withLock { $0 = true }
        let first = try reader.catchUpWithWriter()
        let saved = try #require(late.withLock { $0 }, "the writer saved while the handle read the compacted store")
        #expect(Set(first) == [.deleted(ids[0]), .saved(saved), .compacted])
        #expect(try reader.catchUpWithWriter() == [], "the save was heard already")
        #expect(Set(try reader.summaries().map(\.id)) == Set(try writer.summaries().map(\.id)))
        try reader.close()
        try writer.close()
    }
}
