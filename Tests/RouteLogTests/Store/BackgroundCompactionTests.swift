import Foundation
import Testing
@testable import RouteLog

/// Automatic compaction in the background: its outcome is visible in statistics(), a
/// damaged live route does not make every later change roll a segment and rewrite the
/// manifest, and an empty active segment is never rolled.
@Suite struct BackgroundCompactionTests {
    static let options = RouteStore.Options(durability: .buffered, segmentSizeLimit: 8 * 1024,
                                            compaction: .automatic(minDeadFraction: 0.3, minDeadBytes: 4 * 1024))

    /// Waits for a background compaction to end (or for `seconds`).
    static func waitForCompaction(_ store: RouteStore, seconds: Double = 20) {
        let deadline = Date().addingTimeInterval(seconds)
        while store.compaction.status.withLock({ $0.running }) && Date() < deadline { usleep(2_000) }
    }

    @Test func aDamagedLiveRouteDoesNotMakeEveryChangeRollASegment() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        var ids: [RouteID] = []
        do {
            let store = try RouteStore(at: url, options: .init(durability: .buffered, segmentSizeLimit: 8 * 1024, compaction: .manual))
            for seed in 0..<60 { ids.append(try store.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 40))) }
            try store.close()
        }
        // Damage a live route in the first segment: its bytes stay, read back as damage.
        let victim = ids[1]
        let location = try RouteStore(readOnlyAt: url).state.withLock { $0.index.routes[victim]!.location }
        let segmentURL = url.appendingPathComponent(FormatConstants.segmentName(location.segment))
        var bytes = try Data(contentsOf: segmentURL)
        bytes[Int(location.offset) + 40] ^= 0x55
        try bytes.write(to: segmentURL)

        let store = try RouteStore(at: url, options: Self.options)
        let before = try store.statistics()
        // Deletes that make compaction due over and over, with saves between.
        for (n, id) in ids.enumerated() where id != victim && n % 3 != 0 {
            try store.delete(id)
            if n % 4 == 0 { try store.save(Fixtures.sampleWalk(seed: UInt64(1_000 + n), points: 40)) }
            Self.waitForCompaction(store)
        }
        Self.waitForCompaction(store)
        let after = try store.statistics()
        // The damaged segment is kept as found, and said to be.
        #expect(after.damagedSegments == [FormatConstants.segmentName(location.segment)])
        #expect(after.lastCompaction != nil)
        #expect(after.lastCompaction?.error == nil)
        // Segments are bounded by the live data, not by the 40 deletes and 10 saves: about 38
        // routes of ~0.7 KiB left in 8 KiB segments, plus the damaged one kept as found.
        #expect(after.segments.count <= before.segments.count + 2, "\(after.segments.count) segments, \(before.segments.count) before")
        #expect(after.generation - before.generation < 30, "\(after.generation - before.generation) manifest rewrites")
        // Everything but the victim reads back; the victim is reported, not lost.
        for summary in try store.summaries() where summary.id != victim { _ = try store.route(summary.id) }
        #expect(throws: RouteLogError.self) { try store.route(victim) }
        #expect(try store.verify().problems.contains { $0.routeID == victim })
    }

    @Test func anEmptyActiveSegmentIsNeverRolled() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(segmentSizeLimit: 8 * 1024, compaction: .manual))
        let first = try store.compact()
        #expect(first.segmentsCompacted == 0)
        let ids = try (0..<30).map { try store.save(Fixtures.sampleWalk(seed: UInt64($0), points: 40)) }
        for id in ids.prefix(20) { try store.delete(id) }
        try store.compact()
        let segments = try store.statistics().segments.count
        let generation = try store.statistics().generation
        // Nothing dead now: compacting again rolls nothing and rewrites nothing.
        let again = try store.compact()
        #expect(again.segmentsCompacted == 0)
        #expect(try store.statistics().segments.count == segments)
        #expect(try store.statistics().generation == generation)
    }

    @Test func theLastCompactionIsInStatistics() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: Self.options)
        let ids = try (0..<40).map { try store.save(Fixtures.sampleWalk(seed: UInt64($0), points: 40)) }
        #expect(try store.statistics().lastCompaction == nil)
        for id in ids.prefix(30) { try store.delete(id) }
        Self.waitForCompaction(store)
        let stats = try store.statistics()
        let last = try #require(stats.lastCompaction)
        #expect(last.error == nil)
        #expect(last.bytesReclaimed > 0)
        #expect(last.segmentsCompacted > 0)
        #expect(stats.compactionFailures == 0)
    }
}
