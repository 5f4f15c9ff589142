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
        let (saved, recorded) = try Self.savedAndRecorded(in: store)
        try store.edit(recorded, RouteEdit(name: "edited"))
        #expect(try store.summaries().first { $0.id == recorded }?.stats == nil)
        try store.compact()
        func check(_ store: RouteStore) throws { try Self.expectMerged(recorded, named: "edited", like: saved, in: store) }
        try Self.expectAfterReopening(store, at: url, options: options, check)
    }

    /// The recording merged while its edit lies in a later segment that the compaction
    /// keeps: the old edit, made without the derived fields, stays after the merged
    /// RoutePut in replay order and must not take them away.
    @Test func anEditInAKeptSegmentKeepsTheMergedStatsAndPreview() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let options = RouteStore.Options(compaction: .manual)
        let store = try RouteStore(at: url, options: options)
        let (saved, recorded) = try Self.savedAndRecorded(in: store)
        try store.withWriter { try $0.roll() }
        try store.edit(recorded, RouteEdit(name: "edited"))
        for seed in 10..<13 { _ = try store.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 2000)) }
        try store.withWriter { try $0.roll() }
        let (finish, edit) = store.state.withLock { ($0.index.routes[recorded]!.location, $0.index.routes[recorded]!.editLocation!) }
        #expect(finish.segment != edit.segment)

        let report = try store.compact()
        #expect(report.segmentsSkipped.contains { $0.name == FormatConstants.segmentName(edit.segment) })
        #expect(store.state.withLock { $0.index.routes[recorded]!.recorded } == nil, "merged into one RoutePut")
        func check(_ store: RouteStore) throws { try Self.expectMerged(recorded, named: "edited", like: saved, in: store) }
        try Self.expectAfterReopening(store, at: url, options: options, check)
        // An index rebuilt from the segments replays the same.
        try removeIndexFiles(of: url)
        let rebuilt = try RouteStore(at: url, options: options)
        try check(rebuilt)
        try rebuilt.close()
    }

    /// The recording edited while the compaction that merges it copies (as it writes
    /// its new index, outside every lock): the edit, made from the recording's metadata,
    /// lands after the merged RoutePut and must not take its derived fields away.
    @Test func anEditMadeWhileTheMergeIsCopiedKeepsTheMergedStatsAndPreview() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let options = RouteStore.Options(compaction: .manual)
        let fs = HookedFileSystem()
        let store = try RouteStore(at: url, options: options, fileSystem: fs)
        let (saved, recorded) = try Self.savedAndRecorded(in: store)
        let edited = StateLock(false)
        fs.before { call, path in
            guard call == "create", path.hasSuffix(FormatConstants.indexSuffix),
                  edited.withLock({ done in defer { done = true }; return !done }) else { return }
            _ = try? store.edit(recorded, RouteEdit(name: "edited meanwhile"))
        }
        try store.compact()
        fs.before(nil)
        #expect(edited.withLock { $0 })
        func check(_ store: RouteStore) throws { try Self.expectMerged(recorded, named: "edited meanwhile", like: saved, in: store) }
        try Self.expectAfterReopening(store, at: url, options: options, check)
    }

    /// `check` holds for `store`, and once it is closed, for the store opened again,
    /// which verifies clean.
    static func expectAfterReopening(_ store: RouteStore, at url: URL, options: RouteStore.Options,
                                     _ check: (RouteStore) throws -> Void) throws {
        try check(store)
        try store.close()
        let reopened = try RouteStore(at: url, options: options)
        try check(reopened)
        #expect(try reopened.verify().isClean)
        try reopened.close()
    }

    /// The same walk saved in one go and recorded in chunks of 25 points, finished.
    static func savedAndRecorded(in store: RouteStore) throws -> (saved: RouteID, recorded: RouteID) {
        let walk = Fixtures.sampleWalk(seed: 4, points: 100)
        let saved = try store.save(walk)
        let recorder = try store.startRecording(flushPolicy: .init(points: 25, interval: nil))
        for point in walk.points { try recorder.append(point) }
        return (saved, try recorder.finish())
    }

    /// The recorded route `recorded` carries the edit's name and the stats and preview
    /// of `saved`, the same walk saved in one go.
    static func expectMerged(_ recorded: RouteID, named name: String, like saved: RouteID, in store: RouteStore) throws {
        let summaries = try store.summaries()
        let expected = try #require(summaries.first { $0.id == saved })
        let merged = try #require(summaries.first { $0.id == recorded })
        #expect(merged.name == name)
        #expect(merged.stats != nil && merged.stats == expected.stats)
        #expect(merged.preview != nil && merged.preview == expected.preview)
    }
}
