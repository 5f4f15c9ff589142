import Foundation
import Testing
@testable import RouteLog

/// A store that is never closed (an app killed in the background) has its index
/// written again as runs in the background once records appended one by one pile up
/// (docs/recovery-and-compaction.md): its next open reads runs, saves made during the
/// rewrite are all in the new index, and a crash at any step of the rewrite loses nothing.
@Suite struct BackgroundIndexRewriteTests {
    static func route(_ i: Int) -> Route {
        let t = Date(timeIntervalSince1970: 1_700_000_000 + Double(i) * 3600)
        return Route(points: [TrackPoint(latitude: 48 + Double(i) / 1e4, longitude: 11, timestamp: t),
                              TrackPoint(latitude: 48.001, longitude: 11.001 + Double(i) / 1e4, timestamp: t + 60)],
                     metadata: RouteMetadata(name: "walk \(i)"))
    }

    /// The store as a process killed now would leave it: a copy of its files.
    static func killedCopy(of url: URL, _ dir: TemporaryDirectory, _ name: String) throws -> URL {
        let copy = dir.store(name)
        try FileManager.default.copyItem(at: url, to: copy)
        return copy
    }

    @Test func aStoreNeverClosedGetsItsIndexInRuns() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        // The automatic policy (the default) runs the rewrite. Ordered saves (buffered ones
        // go to the index in runs at each sync), without syncs for speed.
        let store = try RouteStore(at: url, options: .init(durability: .ordered), fileSystem: InterceptingFileSystem.unsynced())
        defer { try? store.close() }
        let count = StoreWriter.sprawlingRecords + 60
        for i in 0..<count { try store.save(Self.route(i)) }
        store.compaction.waitUntilIdle()
        let singles = store.state.withLock { $0.indexSingleRecords }
        #expect(singles < StoreWriter.sprawlingRecords, "the index was written again as runs (\(singles) single records)")
        let copy = try Self.killedCopy(of: url, dir, "killed.routelog")
        let types = try IndexPutRunTests.indexRecordTypes(copy)
        #expect(types.contains(FormatConstants.RecordType.indexPutRun.rawValue))
        #expect(types.count < count / 4)
        let reader = try RouteStore(at: copy, options: .init(mode: .readOnly))
        #expect(!reader.state.withLock { $0.indexRebuilt })
        #expect(try reader.count == count)
        #expect(try reader.verify().problems.isEmpty)
        try reader.close()
        try IndexLoadTests.bothWays(copy, dir)
        // One index file: the old one was removed.
        #expect(try IndexRewriteAtCloseTests.indexFiles(copy).count == 1)
    }

    /// Saves, deletes and edits from two threads while rewrites run: every acknowledged
    /// change is in the store a killed process leaves, read from its index.
    @Test func changesDuringTheRewriteAreKept() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(durability: .ordered), fileSystem: InterceptingFileSystem.unsynced())
        defer { try? store.close() }
        let perThread = StoreWriter.sprawlingRecords * 3 / 2
        let ids = StateLock([RouteID]())
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for i in 0..<perThread {
                guard let id = try? store.save(Self.route(thread * perThread + i)) else {
                    Issue.record("a save failed")
                    return
                }
                ids.withLock { $0.append(id) }
                if i % 50 == 49 { _ = try? store.edit(id, RouteEdit(name: "edited \(id.rawValue)")) }
            }
        }
        let saved = ids.withLock { $0 }
        for id in saved.prefix(30) { try store.delete(id) }
        store.compaction.waitUntilIdle()
        let expected = try IndexLoadTests.view(url)
        #expect(expected.0.count == saved.count - 30)
        let copy = try Self.killedCopy(of: url, dir, "killed.routelog")
        #expect(try IndexPutRunTests.indexRecordTypes(copy).contains(FormatConstants.RecordType.indexPutRun.rawValue))
        let reader = try RouteStore(at: copy, options: .init(mode: .readOnly))
        #expect(!reader.state.withLock { $0.indexRebuilt })
        try reader.close()
        let view = try IndexLoadTests.view(copy)
        #expect(view.0 == expected.0 && view.1 == expected.1)
        try IndexLoadTests.bothWays(copy, dir)
    }

    /// A crash at every changing call of the rewrite: the reopened store holds every route.
    @Test func aCrashAtAnyStepOfTheRewriteLosesNothing() throws {
        let dir = TemporaryDirectory()
        let template = dir.store("template.routelog")
        _ = try IndexRewriteAtCloseTests.make(dir, template: template)
        let expected = try ExpectedStore(try RouteStore(at: template, options: .init(mode: .readOnly)))
        let work = dir.store("work.routelog")
        var rewrote = false
        let points = try atEveryCrashPoint(template: template, work: work, options: .init(compaction: .manual), { store in
            rewrote = try BackgroundIndexRewrite(store: store).run()
        }, check: { store, crashPoint, _ in
            #expect(expected.mismatches(in: store).isEmpty, "crash at \(crashPoint)")
            let indexFiles = try IndexRewriteAtCloseTests.indexFiles(store.url)
            #expect(indexFiles.count == 1, "crash at \(crashPoint): \(indexFiles)")
        })
        #expect(rewrote)
        // The new file's creation, write and sync, the tail's write, the manifest's switch
        // and the old file's removal: the rewrite was crashed at each.
        #expect(points > 5)
    }

    /// A compaction that rewrites segments writes the index as runs, so the single-record
    /// count a background rewrite last tried at is forgotten: the next pile is rewritten
    /// once it is a pile, not once it passes a count from before the compaction.
    @Test func aCompactionForgetsTheCountARewriteWasTriedAt() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(durability: .ordered, compaction: .manual),
                                   fileSystem: InterceptingFileSystem.unsynced())
        defer { try? store.close() }
        let ids = try (0..<40).map { try store.save(Self.route($0)) }
        for id in ids.prefix(30) { try store.delete(id) }
        store.compaction.status.withLock { $0.indexRewriteTriedAt = 50_000 }
        let report = try store.compact()
        #expect(report.segmentsCompacted > 0)
        #expect(store.compaction.status.withLock { $0.indexRewriteTriedAt } == nil)
    }
}
