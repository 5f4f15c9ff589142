import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// `deleteRoutes(matching:)`: one all-or-nothing batch, even when the disk fails in
/// the middle of it.
@Suite struct RouteBatchDeleteTests {
    @Test func deletesWhatTheQuerySelectsInOneBatch() throws {
        let dir = TemporaryDirectory()
        let store = try RouteQueryTests.makeStore(dir)
        var q = RouteQuery()
        q.tags = ["morning"]
        q.sort = .name
        q.ascending = false
        #expect(try store.deleteRoutes(matching: q) == [RouteID(2), RouteID(1)])
        #expect(try store.summaries().map(\.id.rawValue) == [3, 4])
        #expect(try store.deleteRoutes(matching: q).isEmpty)
        // Limit and offset apply: the oldest remaining one only.
        var oldest = RouteQuery()
        oldest.limit = 1
        #expect(try store.deleteRoutes(matching: oldest) == [RouteID(3)])
        try store.close()
        let reopened = try RouteStore(at: dir.store())
        #expect(try reopened.summaries().map(\.id.rawValue) == [4])
        #expect(try reopened.verify().isClean)
        try reopened.close()
    }

    /// Every changing file-system call of the batch delete fails in turn (with EIO,
    /// once): the call throws and, reopened, the store holds either every route (the
    /// usual case) or, when the failure hit a sync after the whole batch was written,
    /// none of the selected ones: never some.
    @Test func aFailureMidwayDeletesNothing() throws {
        let template = TemporaryDirectory()
        let seeded = try RouteQueryTests.makeStore(template)
        try seeded.save((10..<40).map { Fixtures.sampleWalk(seed: UInt64($0), points: 40) })
        try seeded.close()
        var q = RouteQuery()
        q.boundingBoxIntersects = RouteQueryTests.box(-90, -180, 90, 180)
        q.activities = nil
        // Count the batch delete's changing calls on a copy first.
        let probe = TemporaryDirectory()
        try FileManager.default.copyItem(at: template.store(), to: probe.store())
        let counting = InterceptingFileSystem()
        let probeStore = try RouteStore(at: probe.store(), options: .init(compaction: .manual), fileSystem: counting)
        let before = counting.changes
        let all = try probeStore.deleteRoutes(matching: q)
        let changes = counting.changes - before
        try probeStore.close()
        #expect(all.count == 34 && changes >= 2)
        var failedAll = 0, keptAll = 0
        for n in 1...changes {
            let work = TemporaryDirectory()
            try FileManager.default.copyItem(at: template.store(), to: work.store())
            // The fault counts from the batch delete's first changing call: an open makes
            // changes of its own (counted on a second open, the same as the faulty one's).
            _ = try Self.openChanges(work.store())
            let opening = try Self.openChanges(work.store())
            let fs = InterceptingFileSystem(fault: .init(.change(n + opening), errno: EIO, .once))
            let faulty = try RouteStore(at: work.store(), options: .init(compaction: .manual), fileSystem: fs)
            do {
                _ = try faulty.deleteRoutes(matching: q)
                // A fault in a call whose failure the store absorbs (it retries or it was
                // not needed) still leaves the batch whole.
            } catch let error as RouteLogError {
                #expect(error.code == .io, "\(error)")
            }
            try? faulty.close()
            let reopened = try RouteStore(at: work.store())
            let left = try reopened.count
            #expect(left == 34 || left == 0, "fault at change \(n): \(left) routes left")
            if left == 34 { keptAll += 1 } else { failedAll += 1 }
            try reopened.close()
        }
        #expect(keptAll >= 1, "some fault must have stopped the batch")
    }

    /// Changing calls an open and close make, so the fault lands in the delete.
    static func openChanges(_ url: URL) throws -> Int {
        let counting = InterceptingFileSystem()
        let store = try RouteStore(at: url, options: .init(compaction: .manual), fileSystem: counting)
        let n = counting.changes
        try store.close()
        return n
    }
}
