import Foundation
import Testing
@testable import RouteLog

/// A finished recording gets its stats and preview when compaction merges its chunks
/// into one RoutePut (format-spec.md, "Derived fields"), an edited one too: its
/// MetadataEdit carries the derived fields of the merged route, as an edit does.
@Suite struct EditedRecordingMergeTests {
    @Test func anEditedRecordingHasItsStatsAndPreviewOnceMerged() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let options = RouteStore.Options(compaction: .manual)
        let store = try RouteStore(at: url, options: options)
        let walk = Fixtures.sampleWalk(seed: 4, points: 100)
        let saved = try store.save(walk)
        let recorder = try store.startRecording(flushPolicy: .init(points: 25, interval: nil))
        for point in walk.points { try recorder.append(point) }
        let recorded = try recorder.finish()
        try store.edit(recorded, RouteEdit(name: "edited"))
        #expect(try store.summaries().first { $0.id == recorded }?.stats == nil)
        try store.compact()
        func check(_ store: RouteStore) throws {
            let summaries = try store.summaries()
            let expected = try #require(summaries.first { $0.id == saved })
            let merged = try #require(summaries.first { $0.id == recorded })
            #expect(merged.name == "edited")
            #expect(merged.stats != nil && merged.stats == expected.stats)
            #expect(merged.preview != nil && merged.preview == expected.preview)
        }
        try check(store)
        try store.close()
        let reopened = try RouteStore(at: url, options: options)
        try check(reopened)
        #expect(try reopened.verify().isClean)
        try reopened.close()
    }
}
