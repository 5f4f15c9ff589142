import Foundation
import Testing
@testable import RouteLog

/// Attacks on the index rewrite at close() (format-spec.md, "Index records"): when it
/// runs, what it costs, and what a failure or a race around it leaves.
@Suite struct IndexRewriteAttackTests {
    static func route(_ i: Int) -> Route {
        let t = Date(timeIntervalSince1970: 1_700_000_000 + Double(i) * 3600)
        return Route(points: [TrackPoint(latitude: 48 + Double(i) / 1e4, longitude: 11, timestamp: t),
                              TrackPoint(latitude: 48.001 + Double(i) / 1e4, longitude: 11.001, timestamp: t + 60)],
                     metadata: RouteMetadata(name: "walk \(i)"))
    }

    /// Routes each saved and then renamed: in replay order no two puts are in a row, so
    /// a rewrite gathers nothing into runs, and close() leaves the index as it is, at
    /// the first close and at every one after. (It rewrote the whole index, synced it
    /// and switched the manifest at every close: the estimate of the records a rewrite
    /// leaves outside runs counted an edit but not the put it cuts off.)
    @Test func closeDoesNotRewriteAnIndexThatRunsWouldNotShrink() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let count = StoreWriter.sprawlingRecords + 76
        let store = try RouteStore(at: url, options: .init(durability: .ordered, compaction: .manual), fileSystem: InterceptingFileSystem.unsynced())
        let before = try IndexRewriteAtCloseTests.indexNumber(url)
        for i in 0..<count {
            let id = try store.save(Self.route(i))
            _ = try store.edit(id, RouteEdit(name: "renamed \(i)"))
        }
        try store.close()
        #expect(try IndexRewriteAtCloseTests.indexNumber(url) == before)
        for _ in 0..<2 {
            try RouteStore(at: url, options: .init(compaction: .manual)).close()
            #expect(try IndexRewriteAtCloseTests.indexNumber(url) == before)
        }
        try IndexLoadTests.bothWays(url, dir)
    }

    /// The same routes with their renames after all the saves: the puts are in a row,
    /// and close() gathers them into runs once, then leaves the index alone.
    @Test func closeRewritesPutsInARowOnce() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let count = StoreWriter.sprawlingRecords + 76
        let store = try RouteStore(at: url, options: .init(durability: .ordered, compaction: .manual), fileSystem: InterceptingFileSystem.unsynced())
        let ids = try (0..<count).map { try store.save(Self.route($0)) }
        for (i, id) in ids.enumerated() { _ = try store.edit(id, RouteEdit(name: "renamed \(i)")) }
        let before = try IndexRewriteAtCloseTests.indexNumber(url)
        try store.close()
        let rewritten = try IndexRewriteAtCloseTests.indexNumber(url)
        #expect(rewritten != before)
        let types = try IndexPutRunTests.indexRecordTypes(url)
        let runs = (count + FormatConstants.maxIndexPutRunEntries - 1) / FormatConstants.maxIndexPutRunEntries
        #expect(count % FormatConstants.maxIndexPutRunEntries > 1, "no put left alone after the last full run")
        #expect(types.filter { $0 == FormatConstants.RecordType.indexPutRun.rawValue }.count == runs)
        #expect(types.count == count + runs)
        try RouteStore(at: url, options: .init(compaction: .manual)).close()
        #expect(try IndexRewriteAtCloseTests.indexNumber(url) == rewritten)
        try IndexLoadTests.bothWays(url, dir)
    }

    /// Buffered saves are synced by close() even when the rewrite before it fails at
    /// the manifest's switch (which leaves the writer's state uncertain): the segment
    /// they are in gets its sync, and the reopened store holds them all. (The rewrite
    /// ran first, and its failure made close() skip the final sync and still return.)
    @Test func aRewriteFailingAtTheManifestSwitchStillLeavesTheSavesSynced() throws {
        let dir = TemporaryDirectory()
        // A store left with records piled up one by one (saved ordered, its writer
        // killed): buffered saves alone go to the index in runs.
        let source = dir.store("source.routelog")
        let piler = try RouteStore(at: source, options: .init(durability: .ordered, compaction: .manual),
                                   fileSystem: InterceptingFileSystem.unsynced())
        let piled = StoreWriter.sprawlingRecords + 76
        for i in 0..<piled { try piler.save(Self.route(i)) }
        let url = try BackgroundIndexRewriteTests.killedCopy(of: source, dir, "store.routelog")
        try piler.close()
        let fs = InterceptingFileSystem(fault: .init(.kind(.rename, 1), errno: EIO))
        let store = try RouteStore(at: url, options: .init(durability: .buffered, compaction: .manual), fileSystem: fs)
        let count = piled + 40
        for i in piled..<count { try store.save(Self.route(i)) }
        let closing = StateLock(false)
        let segmentSyncs = StateLock(0)
        fs.observe { operation in
            guard closing.withLock({ $0 }) else { return }
            switch operation {
            case .syncData(let file), .syncAll(let file), .syncBarrier(let file):
                if file.path.hasSuffix(FormatConstants.segmentSuffix) { segmentSyncs.withLock { $0 += 1 } }
            default: break
            }
        }
        closing.withLock { $0 = true }
        try? store.close()
        #expect(fs.faultFired)
        #expect(segmentSyncs.withLock { $0 } >= 1)
        let reopened = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(try reopened.count == count)
        try reopened.close()
    }

    /// A read-only handle opens while the writer's close() rewrites the index: it read
    /// the MANIFEST naming the old index, which the rewrite then removed. It opens
    /// from the new index, with nothing reported damaged. (It replayed the segments and
    /// reported the index "damaged or missing" in verify, though nothing was damaged.)
    @Test func aReaderOpeningDuringTheRewriteAtCloseFindsTheNewIndex() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let count = StoreWriter.sprawlingRecords + 76
        let writer = try RouteStore(at: url, options: .init(durability: .ordered, compaction: .manual), fileSystem: InterceptingFileSystem.unsynced())
        for i in 0..<count { try writer.save(Self.route(i)) }
        let before = try IndexRewriteAtCloseTests.indexNumber(url)

        let fs = InterceptingFileSystem()
        let closed = StateLock(false)
        fs.observe { operation in
            // Right after the reader has read the MANIFEST: the writer closes, which
            // rewrites the index and removes the one that MANIFEST names.
            guard case .read(let file, _, _) = operation, file.path.hasSuffix("/" + FormatConstants.manifestName),
                  closed.withLock({ done in defer { done = true }; return !done }) else { return }
            try? writer.close()
        }
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly), fileSystem: fs)
        #expect(closed.withLock { $0 })
        #expect(try IndexRewriteAtCloseTests.indexNumber(url) != before)
        #expect(try reader.count == count)
        #expect(!reader.state.withLock { $0.indexDamaged })
        let report = try reader.verify()
        #expect(report.problems.isEmpty, "\(report.problems)")
        try reader.close()
    }

    /// An I/O error at any call close() makes (once, or from then on) while it syncs and
    /// rewrites the index: close() may throw, but the reopened store holds every route,
    /// as listed before, with one index file, and reads clean.
    @Test func anIOErrorAtAnyCallOfCloseLosesNothing() throws {
        let dir = TemporaryDirectory()
        let template = dir.store("template.routelog")
        _ = try IndexRewriteAtCloseTests.make(dir, template: template)
        let expected = try RouteStore(at: template, options: .init(mode: .readOnly)).summaries()
        let work = dir.store("work.routelog")
        func fresh() throws {
            try? FileManager.default.removeItem(at: work)
            try FileManager.default.copyItem(at: template, to: work)
        }
        // The calls close() makes, counted on a run without a fault.
        try fresh()
        let counting = InterceptingFileSystem()
        let counted = try RouteStore(at: work, options: .init(compaction: .manual), fileSystem: counting)
        let first = counting.calls + 1
        try counted.close()
        let last = counting.calls
        #expect(last - first >= 8)
        #expect(try IndexRewriteAtCloseTests.indexNumber(work) != IndexRewriteAtCloseTests.indexNumber(template))
        for n in first...last {
            for persistence in [InterceptingFileSystem.Fault.Persistence.once, .persistent] {
                try fresh()
                let fs = InterceptingFileSystem(fault: .init(.call(n), errno: EIO, persistence))
                let store = try RouteStore(at: work, options: .init(compaction: .manual), fileSystem: fs)
                try? store.close()
                #expect(fs.faultFired, "call \(n)")
                let reopened = try RouteStore(at: work, options: .init(compaction: .manual))
                #expect(try reopened.summaries() == expected, "I/O error at call \(n), \(persistence)")
                try reopened.close()
                #expect(try IndexRewriteAtCloseTests.indexFiles(work).count == 1, "I/O error at call \(n), \(persistence)")
            }
        }
        let report = try RouteStore(at: work, options: .init(mode: .readOnly)).verify()
        #expect(report.problems.isEmpty, "\(report.problems)")
    }

    /// close() while four threads save and delete (ordered, unsynced), with background
    /// compactions running on small segments or with none (so that single records pile
    /// up for close() to gather): every save and delete that returned is in the
    /// reopened store, nothing else is, and the index close() left reads the same as
    /// the segments.
    @Test(arguments: [true, false]) func closeWhileThreadsSaveKeepsEveryAcknowledgedChange(compacting: Bool) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let options = RouteStore.Options(durability: .ordered, segmentSizeLimit: 64 << 10,
                                         compaction: compacting ? .automatic(minDeadFraction: 0.05, minDeadBytes: 4096) : .manual)
        let store = try RouteStore(at: url, options: options, fileSystem: InterceptingFileSystem.unsynced())
        let saved = StateLock(Set<RouteID>())
        let deleted = StateLock(Set<RouteID>())
        let group = DispatchGroup()
        for thread in 0..<4 {
            DispatchQueue.global().async(group: group) {
                var mine: [RouteID] = []
                for i in 0..<100_000 {
                    do {
                        let id = try store.save(Self.route(thread * 100_000 + i))
                        saved.withLock { _ = $0.insert(id) }
                        mine.append(id)
                        if i % 3 == 0, i % 2 == thread % 2, let victim = mine.popLast() {
                            try store.delete(victim)
                            deleted.withLock { _ = $0.insert(victim) }
                        }
                    } catch {
                        return
                    }
                }
            }
        }
        while saved.withLock({ $0.count }) < 1_600 { usleep(1_000) }
        try store.close()
        group.wait()
        let expected = saved.withLock { $0 }.subtracting(deleted.withLock { $0 })
        let reopened = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(Set(try reopened.summaries().map(\.id)) == expected)
        try reopened.close()
        try IndexLoadTests.bothWays(url, dir)
    }

    enum Replacement: CaseIterable { case removed, symlink, fifo }

    /// While the writer is open, its index file is removed, or replaced by a symbolic
    /// link to a file outside the store, or by a FIFO; then close() (which rewrites the
    /// index when records piled up, and otherwise leaves it to the next open) and a
    /// reopen: the outside file is untouched, nothing hangs, and the store holds every
    /// route and verifies clean.
    @Test(arguments: Replacement.allCases, [true, false])
    func anIndexFileReplacedUnderTheWriterIsNeitherFollowedNorLost(_ replacement: Replacement, piledUp: Bool) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let victim = dir.url.appendingPathComponent("victim.txt")
        try Data("keep me".utf8).write(to: victim)
        let count = piledUp ? StoreWriter.sprawlingRecords + 76 : 10
        let store = try RouteStore(at: url, options: .init(durability: .ordered, compaction: .manual), fileSystem: InterceptingFileSystem.unsynced())
        for i in 0..<count { try store.save(Self.route(i)) }
        let index = url.appendingPathComponent(FormatConstants.indexName(try IndexRewriteAtCloseTests.indexNumber(url)))
        try FileManager.default.removeItem(at: index)
        switch replacement {
        case .removed: break
        case .symlink: try FileManager.default.createSymbolicLink(at: index, withDestinationURL: victim)
        case .fifo: #expect(mkfifo(index.path, 0o600) == 0)
        }
        try store.close()
        #expect(try Data(contentsOf: victim) == Data("keep me".utf8))
        for _ in 0..<2 {
            let reopened = try RouteStore(at: url, options: .init(compaction: .manual))
            #expect(try reopened.count == count)
            try reopened.close()
        }
        let report = try RouteStore(at: url, options: .init(mode: .readOnly)).verify()
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(try Data(contentsOf: victim) == Data("keep me".utf8))
        #expect(try IndexRewriteAtCloseTests.indexFiles(url).count == 1)
    }
}
