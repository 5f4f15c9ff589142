import Foundation
import Testing
@testable import RouteLog

/// Bugs the reliability tests (kill, crash-state replay, fault injection, bit flips,
/// fuzzing) found, each kept as the smallest case that showed it.
@Suite struct ReliabilityRegressionTests {
    /// Found by the kill test: compaction copied a batch-saved route's frame verbatim,
    /// "batch continues" flag included. When the rest of its batch was deleted (or went
    /// to the next segment), the copy ended its segment as the start of an unfinished
    /// batch: verify reported the index and segments disagreeing, and an index rebuild
    /// dropped the route as a torn tail.
    @Test func aBatchSavedRouteOutlivesItsBatchThroughCompaction() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        let ids = try store.save([Fixtures.sampleWalk(seed: 1, points: 50), Fixtures.sampleWalk(seed: 2, points: 50)])
        try store.delete(ids[1])
        let expected = try ExpectedStore(store, deleted: [ids[1]])
        try store.compact()
        #expect(store.verify().isClean, "\(store.verify().problems.map(\.message))")
        try store.close()
        for name in try FileManager.default.contentsOfDirectory(atPath: url.path) where name.hasSuffix(".rlidx") {
            try FileManager.default.removeItem(at: url.appendingPathComponent(name))
        }
        let rebuilt = try RouteStore(at: url)
        #expect(expected.mismatches(in: rebuilt).isEmpty, "\(expected.mismatches(in: rebuilt))")
        #expect(rebuilt.verify().isClean)
    }
}
