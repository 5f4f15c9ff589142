import Foundation
import Testing
@testable import RouteLog

/// A read-only handle's catch-up that read a MANIFEST listing a segment the writer had
/// just rolled to, when the writer's compaction removes that segment before the
/// handle opens it: a file switch the handle must read past (the store read again),
/// not damage to report ("listed in the manifest but missing; restore it from a backup").
@Suite struct ReaderCatchUpCompactionRaceTests {
    @Test func aSegmentCompactedAwayBetweenTheManifestAndItsOpenIsNoDamage() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url, options: .smallSegmentsRewrittenEveryTime)
        var live: Set<RouteID> = []
        for seed in 1...6 { live.insert(try writer.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 150))) }

        let armed = StateLock(false)
        let compacted = StateLock<Result<CompactionReport, any Error>?>(nil)
        let readerFS = InterceptingFileSystem()
        readerFS.observe { operation in
            // The catch-up has read the MANIFEST: the writer compacts before the handle
            // opens the segments it lists.
            guard case .read(let ref, _, _) = operation, ref.path.hasSuffix("/" + FormatConstants.manifestName),
                  armed.withLock({ let was = $0; $0 = false; return was }) else { return }
            compacted.withLock { $0 = Result { try writer.compact() } }
        }
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly), fileSystem: readerFS)
        let known = reader.state.withLock { $0.segments.numbers }

        // The writer rolls to new segments; a route saved in the last one is deleted, so
        // that the compaction rewrites (and removes) that segment too.
        var seed: UInt64 = 100
        var last: RouteID
        repeat {
            seed += 1
            last = try writer.save(Fixtures.sampleWalk(seed: seed, points: 150))
            live.insert(last)
        } while try writer.statistics().segments.count < known.count + 2
        try writer.delete(last)
        live.remove(last)

        armed.withLock { $0 = true }
        try reader.refresh()
        let report = try #require(try compacted.withLock { $0 }?.get(), "the compaction ran inside the catch-up")
        #expect(report.segmentsCompacted > 0)
        try reader.refresh()
        #expect(Set(try reader.summaries().map(\.id)) == live)
        #expect(reader.state.withLock { $0.segments.numbers } == writer.state.withLock { $0.segments.numbers },
                "the handle reads the compacted files")
        for id in live { #expect(try reader.route(id) == writer.route(id)) }
        try reader.close()
        try writer.close()
    }
}
