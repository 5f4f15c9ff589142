import Foundation
import Testing
@testable import RouteLog

@Suite struct RouteRecorderCompactionTests {
    /// The types of every record in the store's live segments.
    static func recordTypes(_ store: RouteStore) throws -> [UInt8] {
        let segments = store.state.withLock { $0.segments }
        var types: [UInt8] = []
        for segment in segments.segments {
            var scanner = LogScanner(file: try segment.file, from: Int64(FormatConstants.fileHeaderSize), fileSize: segment.end)
            while let record = try scanner.next() { types.append(record.type) }
        }
        return types
    }

    static let recordingTypes: Set<UInt8> = [4, 5, 6, 7]

    @Test func aDiscardedRecordingLeavesNothingAfterCompaction() throws {
        let dir = TemporaryDirectory()
        let options = RouteStore.Options(compaction: .manual)
        let route = Fixtures.sampleWalk(seed: 1, points: 500)
        let store = try RouteStore(at: dir.store(), options: options)
        let id = try store.save(route)
        let recorder = try store.startRecording(metadata: RouteMetadata(name: "abandoned"), flushPolicy: .init(points: 30, interval: nil))
        try RouteRecorderBasicsTests.record(Fixtures.sampleWalk(seed: 2, points: 700), into: recorder)
        let live = try store.statistics().liveBytes
        try recorder.discard()
        try store.startRecording().discard()
        #expect(try store.unfinishedRecordings().isEmpty)
        // Only the saved route is live, and the two discards while the recordings'
        // starts are on disk (without them a replay would bring the recordings back).
        let stats = try store.statistics()
        #expect(stats.liveBytes < live)
        let discard = Int64(FormatConstants.recordHeaderSize + 8)
        #expect(stats.liveBytes == Int64(store.state.withLock { $0.index.routes[id]!.location.length }) + 2 * discard)
        #expect(stats.deadBytes == stats.segments.reduce(0) { $0 + $1.bytes - Int64(FormatConstants.fileHeaderSize) } - stats.liveBytes)
        try store.compact()
        #expect(try Self.recordTypes(store).allSatisfy { !Self.recordingTypes.contains($0) })
        #expect(try store.statistics().deadBytes == 0)
        #expect(try store.summaries().map(\.id) == [id])
        try store.close()

        let reference = try RouteStore(at: dir.store("reference.routelog"), options: options)
        try reference.save(route)
        try reference.compact()
        try reference.close()
        // The same record bytes as the route saved alone (the compacted store also has
        // the empty segment it rolled to, as the active one).
        let compacted = try RouteStore(readOnlyAt: dir.store()).statistics()
        let saved = try RouteStore(readOnlyAt: dir.store("reference.routelog")).statistics()
        #expect(compacted.liveBytes == saved.liveBytes)
        #expect(compacted.deadBytes == 0 && saved.deadBytes == 0)
    }

    @Test(arguments: [10, 60])
    func aRecordedRouteTakesTheBytesOfASavedOneAfterCompaction(_ flushEvery: Int) throws {
        let dir = TemporaryDirectory()
        let options = RouteStore.Options(compaction: .manual)
        var walk = Fixtures.sampleWalk(seed: 3, points: 3600)
        walk.metadata.uuid = UUID()  // the same route in both stores: the same bytes
        let recorded = try RouteStore(at: dir.store("recorded.routelog"), options: options)
        let recorder = try recorded.startRecording(metadata: walk.metadata, flushPolicy: .init(points: flushEvery, interval: nil))
        try RouteRecorderBasicsTests.record(walk, into: recorder)
        let id = try recorder.finish(metadata: walk.metadata)
        let recordedBefore = try recorded.statistics().totalBytes
        try recorded.compact()
        let recordedAfter = try recorded.statistics().totalBytes

        let saved = try RouteStore(at: dir.store("saved.routelog"), options: options)
        let savedID = try saved.save(walk)
        let savedBefore = try saved.statistics().totalBytes
        try saved.compact()
        let savedAfter = try saved.statistics().totalBytes
        print("3,600 points flushed every \(flushEvery): recorded \(recordedBefore) bytes, \(recordedAfter) compacted; saved \(savedBefore), \(savedAfter) compacted")
        #expect(Double(recordedAfter) <= Double(savedAfter) * 1.03)
        #expect(try recorded.route(id) == saved.route(savedID))
        #expect(try Self.recordTypes(recorded) == Self.recordTypes(saved))
    }

    @Test func anUnfinishedRecordingSurvivesCompactionsAndFinishesWhole() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(segmentSizeLimit: 8 * 1024, compaction: .manual))
        let walk = Fixtures.sampleWalk(seed: 4, points: 900)
        let recorder = try store.startRecording(flushPolicy: .init(points: 25, interval: nil))
        var deleted: [RouteID] = []
        for part in 0..<3 {
            let range = (part * 300)..<((part + 1) * 300)
            try RouteRecorderBasicsTests.record(Route(points: Array(walk.points[range]), splits: []), into: recorder)
            deleted.append(try store.save(Fixtures.sampleWalk(seed: UInt64(10 + part), points: 100)))
            try store.delete(deleted.last!)
            try store.compact()
            #expect(try store.unfinishedRecordings().first?.points == Array(RouteCodec.quantize(walk).points.prefix(recorder.flushedPointCount)))
        }
        for split in walk.splits { try recorder.addSplit(split) }
        let id = try recorder.finish(metadata: walk.metadata)
        #expect(try store.route(id).withoutUUID == RouteCodec.quantize(walk))
        try store.compact()
        #expect(try store.route(id).withoutUUID == RouteCodec.quantize(walk))
        #expect(try Self.recordTypes(store).allSatisfy { !Self.recordingTypes.contains($0) })
        try store.close()
        let reopened = try RouteStore(at: dir.store())
        #expect(try reopened.route(id).withoutUUID == RouteCodec.quantize(walk))
        #expect(try reopened.verify().isClean)
    }

    @Test func compactionRacingWithRecordersKeepsEveryPoint() async throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(durability: .buffered, segmentSizeLimit: 16 * 1024, compaction: .manual))
        for i in 0..<10 { try store.delete(try store.save(Fixtures.sampleWalk(seed: UInt64(i), points: 50))) }
        let walks = (0..<3).map { Fixtures.sampleWalk(seed: UInt64(30 + $0), points: 1500) }
        let finished = try await withThrowingTaskGroup(of: (Int, RouteID)?.self) { group in
            for (i, walk) in walks.enumerated() {
                group.addTask {
                    let recorder = try store.startRecording(flushPolicy: .init(points: 20, interval: nil))
                    try RouteRecorderBasicsTests.record(walk, into: recorder, batch: 3)
                    if i == 2 {
                        try recorder.flush()
                        return nil  // left unfinished
                    }
                    return (i, try recorder.finish(metadata: walk.metadata))
                }
            }
            group.addTask {
                for _ in 0..<6 { try store.compact() }
                return nil
            }
            var all: [(Int, RouteID)] = []
            for try await result in group { if let result { all.append(result) } }
            return all
        }
        #expect(finished.count == 2)
        for (i, id) in finished { #expect(try store.route(id).withoutUUID == RouteCodec.quantize(walks[i])) }
        let unfinished = try store.unfinishedRecordings()
        #expect(unfinished.map { $0.points } == [RouteCodec.quantize(walks[2]).points])
        try store.compact()
        try store.close()
        let reopened = try RouteStore(at: dir.store())
        for (i, id) in finished { #expect(try reopened.route(id).withoutUUID == RouteCodec.quantize(walks[i])) }
        #expect(try reopened.unfinishedRecordings() == unfinished)
        #expect(try reopened.verify().isClean)
    }

    @Test func automaticCompactionMergesFinishedRecordings() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(
            durability: .buffered, segmentSizeLimit: 32 * 1024, compaction: .automatic(minDeadFraction: 0.5, minDeadBytes: 32 * 1024)))
        var ids: [RouteID] = []
        for seed in 0..<4 {
            let walk = Fixtures.sampleWalk(seed: UInt64(seed), points: 1200)
            let recorder = try store.startRecording(flushPolicy: .init(points: 10, interval: nil))
            try RouteRecorderBasicsTests.record(walk, into: recorder)
            ids.append(try recorder.finish(metadata: walk.metadata))
            store.compaction.waitUntilIdle()
        }
        #expect(try store.statistics().chunkedRoutes < 4, "no compaction merged the recordings")
        for (seed, id) in ids.enumerated() {
            #expect(try store.route(id).withoutUUID == RouteCodec.quantize(Fixtures.sampleWalk(seed: UInt64(seed), points: 1200)))
        }
    }
}
