import Foundation
import Testing
@testable import RouteLog

/// A compaction that rewrites the segment holding a deleted route's RoutePut drops that
/// route's tombstone, so the delete record, wherever it is, dies with the rewrite. The
/// plan counts those bytes: one compaction leaves nothing dead that it freed itself, and
/// a run with nothing live leaves no empty segment behind.
@Suite struct CompactionFreedTombstoneTests {
    /// A store whose first segment is full and whose routes in it are then deleted: their
    /// deletes go to the next segment, beside live routes, where at plan time nothing
    /// is dead. Returns the store and the ids deleted.
    static func storeWithDeletesBesideLiveRoutes(_ url: URL, threshold: Double) throws -> (RouteStore, Set<RouteID>) {
        var options = RouteStore.Options(segmentSizeLimit: 8 * 1024, compaction: .manual)
        options.compactionRewriteThreshold = threshold
        let store = try RouteStore(at: url, options: options)
        var ids: [RouteID] = []
        while try store.statistics().segments.count < 2 {
            try #require(ids.count < 500, "8 KiB segments never rolled")
            ids.append(try store.save(Fixtures.sampleWalk(seed: UInt64(ids.count), points: 40)))
        }
        let first = try store.statistics().segments[0].number
        let inFirst = Set(ids.filter { id in store.state.withLock { $0.index.routes[id]!.location.segment == first } })
        try #require(!inFirst.isEmpty && inFirst.count < ids.count, "routes on both sides of the roll")
        for id in inFirst { try store.delete(id) }
        return (store, inFirst)
    }

    @Test func oneCompactionLeavesNoDeadBytesItFreedItself() throws {
        let dir = TemporaryDirectory()
        // Threshold 0: any dead byte pays for a rewrite, whatever the record sizes.
        let (store, deleted) = try Self.storeWithDeletesBesideLiveRoutes(dir.store(), threshold: 0)
        let before = try store.statistics()
        // The precondition that made the old plan leave dead bytes: the deletes' segment
        // holds nothing dead before compaction.
        #expect(before.segments.dropFirst().allSatisfy { $0.deadBytes == 0 }, "\(before.segments)")
        let expected = try ExpectedStore(store, deleted: deleted)

        let report = try store.compact()
        let after = try store.statistics()
        #expect(report.segmentsCompacted == before.segments.count)
        #expect(after.segments.allSatisfy { $0.deadBytes == 0 }, "\(after.segments)")
        // Only the active segment may be empty: a run with nothing live left no file.
        #expect(after.segments.dropLast().allSatisfy { $0.bytes > Int64(FormatConstants.fileHeaderSize) }, "\(after.segments)")
        #expect(expected.mismatches(in: store).isEmpty)

        let again = try store.compact()
        #expect(again.segmentsCompacted == 0)
        #expect(try store.statistics().generation == after.generation)
        try store.close()
        // Dropping the tombstones brought nothing back.
        let reopened = try RouteStore(at: dir.store())
        #expect(expected.mismatches(in: reopened).isEmpty)
        #expect(try reopened.verify().isClean)
    }

    @Test func freedBytesBelowTheThresholdLeaveTheSegmentAndAreReported() throws {
        let dir = TemporaryDirectory()
        // Threshold 1: a segment pays only when all of it would go; the deletes' segment
        // also holds live routes.
        let (store, deleted) = try Self.storeWithDeletesBesideLiveRoutes(dir.store(), threshold: 1)
        let second = try store.statistics().segments[1]
        let report = try store.compact()
        #expect(report.segmentsCompacted == 1)
        let skipped = try #require(report.segmentsSkipped.first { $0.name == second.name })
        // The deletes are what the rewrite of the first segment would free in the second.
        let deleteBytes = try store.statistics().segments.first { $0.name == second.name }?.deadBytes
        #expect(skipped.deadBytes > 0)
        #expect(skipped.deadBytes == deleteBytes)
        #expect(skipped.reason.contains("below the 100%"), "\(skipped.reason)")
        #expect(try Set(store.summaries().map(\.id)).isDisjoint(with: deleted))
    }
}
