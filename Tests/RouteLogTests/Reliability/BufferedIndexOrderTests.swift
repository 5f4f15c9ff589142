import Foundation
import Testing
@testable import RouteLog

/// With buffered durability the kernel writes dirty pages back in any order: an index
/// record written before its segment record was synced can reach the disk without it.
/// The index must never vouch for such a record, or a power loss reads a lost buffered
/// save as damage, its route listed but unreadable. Each test traces a workload, then
/// builds the worst crash state for this: every index write on disk, no segment write
/// after the segment's last sync. The store must open clean, list only routes it can
/// read, and keep every save made before a sync.
@Suite struct BufferedIndexOrderTests {
    static let options = RouteStore.Options(durability: .buffered, segmentSizeLimit: 1 << 20, compaction: .manual).withoutQuietSync()

    static func route(_ i: Int) -> Route { Fixtures.sampleWalk(seed: UInt64(i), points: 3) }

    /// Runs `workload` on a store of 3 closed routes, traced, then checks the crash state
    /// in which the index files kept every write and every other file only what was
    /// synced. Returns the routes the crashed store lists.
    @discardableResult
    static func crashWithTheIndexAhead(_ name: String, workload: (RouteStore) throws -> Void) throws -> [RouteSummary] {
        let dir = TemporaryDirectory(name)
        let live = dir.store("live.routelog")
        let first = try RouteStore(at: live, options: options)
        for i in 0..<3 { try first.save(route(i)) }
        try first.close()
        let fs = InterceptingFileSystem()
        let trace = try fs.trace(live)
        let store = try RouteStore(at: live, options: options, fileSystem: fs)
        try workload(store)
        // The process dies here: no close().
        let model = CrashStateModel(trace)
        let crashed = dir.store("crashed.routelog")
        try materialize(model.filesWithTheIndexAhead(at: model.operations.count), at: crashed)

        let reopened = try RouteStore(at: crashed, options: options)
        defer { try? reopened.close() }
        let report = try reopened.verify()
        #expect(report.isClean, "verify after the crash: \(report.problems)")
        let listed = try reopened.summaries()
        for summary in listed {
            #expect(throws: Never.self, "route \(summary.id) is listed") { _ = try reopened.route(summary.id) }
        }
        #expect(listed.count >= 3, "the 3 routes saved before a close: \(listed.count) listed")
        return listed
    }

    /// A few buffered saves: their index records wait for a sync that never comes.
    @Test func buffered_saves_not_synced_leave_no_index_record_on_disk() throws {
        let listed = try Self.crashWithTheIndexAhead("few") { store in
            for i in 10..<16 { try store.save(Self.route(i)) }
        }
        #expect(listed.count == 3)
    }

    /// Past the index's sync interval: the segment is synced before the index, so every
    /// save up to that sync is kept, and none after it is vouched for.
    @Test func the_index_sync_interval_syncs_the_segment_first() throws {
        let saves = IndexFile.syncInterval + 40
        let listed = try Self.crashWithTheIndexAhead("interval") { store in
            for i in 0..<saves { try store.save(Self.route(100 + i)) }
        }
        #expect(listed.count == 3 + IndexFile.syncInterval)
    }

    /// A compaction's new index is synced: the buffered saves it covers are synced first.
    @Test func a_compaction_syncs_buffered_saves_before_its_index() throws {
        let listed = try Self.crashWithTheIndexAhead("compaction") { store in
            let ids = try (0..<20).map { try store.save(Self.route(200 + $0)) }
            for id in ids.prefix(10) { try store.delete(id) }
            _ = try store.compact()
            for i in 0..<5 { try store.save(Self.route(300 + i)) }
        }
        #expect(listed.count == 3 + 10)
    }

    /// A writer killed before its sync leaves its records in the page cache; the next
    /// writer to open catches its index up from them, and syncs them before the index.
    @Test func an_open_that_catches_up_syncs_the_records_it_indexes() throws {
        let dir = TemporaryDirectory("catch-up")
        let live = dir.store("live.routelog")
        let first = try RouteStore(at: live, options: Self.options)
        for i in 0..<3 { try first.save(Self.route(i)) }
        try first.close()
        let again = try RouteStore(at: live, options: Self.options)
        defer { try? again.close() }
        for i in 3..<8 { try again.save(Self.route(i)) }
        // Killed now: the 5 saves are in the segment (the page cache), not in the index.
        let killed = try BackgroundIndexRewriteTests.killedCopy(of: live, dir, "killed.routelog")
        let (fs, order) = InterceptingFileSystem.notingSyncsAndWrites()
        let opener = try RouteStore(at: killed, options: Self.options, fileSystem: fs)
        defer { try? opener.close() }
        #expect(try opener.summaries().count == 8)
        let seen = order.withLock { $0 }
        let indexWrite = try #require(seen.firstIndex { $0.hasPrefix("write " + FormatConstants.indexPrefix) },
                                      "the open appends the caught-up records to the index: \(seen)")
        #expect(seen[..<indexWrite].contains { $0.hasPrefix("sync " + FormatConstants.segmentPrefix) },
                "no segment sync before the index write: \(seen)")
    }
}
