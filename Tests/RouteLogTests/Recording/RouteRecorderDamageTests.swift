import Foundation
import Testing
@testable import RouteLog

@Suite struct RouteRecorderDamageTests {
    /// A store with a saved route, a finished recording and an unfinished one, each
    /// recording in 4 chunks of 25 points.
    static func makeStore(_ url: URL) throws -> (saved: RouteID, finished: RouteID, unfinished: RouteID) {
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        let saved = try store.save(Fixtures.sampleWalk(seed: 1, points: 50))
        let finished = try store.startRecording(flushPolicy: .init(points: 25, interval: nil))
        for point in Fixtures.sampleWalk(seed: 2, points: 100).points { try finished.append(point) }
        let finishedID = try finished.finish()
        let unfinished = try store.startRecording(flushPolicy: .init(points: 25, interval: nil))
        for point in Fixtures.sampleWalk(seed: 3, points: 100).points { try unfinished.append(point) }
        let unfinishedID = unfinished.id
        try store.close()
        return (saved, finishedID, unfinishedID)
    }

    static func flipByte(in url: URL, segment: UInt32, at offset: Int64) throws {
        let file = url.appendingPathComponent(FormatConstants.segmentName(segment))
        var bytes = try Data(contentsOf: file)
        bytes[Int(offset)] ^= 0x40
        try bytes.write(to: file)
    }

    @Test func aDamagedChunkIsReportedAndEverythingElseStaysReadable() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let (saved, finished, unfinished) = try Self.makeStore(url)
        let chunks = try RouteStore(readOnlyAt: url).state.withLock {
            ($0.index.routes[finished]!.recorded!.chunks[1].location, $0.index.recordings[unfinished]!.chunks[2].location)
        }
        try Self.flipByte(in: url, segment: chunks.0.segment, at: chunks.0.offset + 40)
        try Self.flipByte(in: url, segment: chunks.1.segment, at: chunks.1.offset + 40)

        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        do {
            _ = try store.route(finished)
            Issue.record("a route with a damaged chunk loaded")
        } catch let error as RouteLogError {
            #expect(error.code == .corrupted)
            #expect(error.offset == chunks.0.offset)
        }
        // The unfinished recording keeps every chunk that decodes and names the gap.
        let listed = try store.unfinishedRecordings()
        #expect(listed.map(\.id) == [unfinished])
        #expect(listed.first?.missingPoints == [50..<75])
        let walk = RouteCodec.quantize(Fixtures.sampleWalk(seed: 3, points: 100)).points
        #expect(listed.first?.points == Array(walk[0..<50] + walk[75..<100]))
        #expect(throws: RouteLogError.self) { try store.resumeRecording(unfinished) }
        #expect(try store.route(saved).points.count == 50)
        #expect(try store.statistics().recordingsInProgress.map(\.id) == [unfinished])
        let report = try store.verify()
        #expect(Set(report.problems.filter { $0.kind == .damagedRoute }.compactMap(\.routeID)) == [finished, unfinished])
        // The app drops what it cannot resume; a compaction then keeps the segment of
        // the damaged finished route as found, saying so, and the route stays reported.
        try store.discardRecording(unfinished)
        #expect(try store.unfinishedRecordings().isEmpty)
        let compaction = try store.compact()
        let damagedSegment = FormatConstants.segmentName(chunks.0.segment)
        #expect(compaction.segmentsSkipped.contains { $0.name == damagedSegment && $0.reason.contains("damaged") })
        #expect(try store.statistics().damagedSegments == [damagedSegment])
        #expect(try store.verify().problems.contains { $0.routeID == finished })
        try store.delete(finished)
        try store.compact()
        #expect(try store.summaries().map(\.id) == [saved])
        #expect(try store.verify().isClean)
    }

    @Test func rebuiltFromTheSegmentsARecordingKeepsEveryChunkThatDecodes() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let (_, finished, unfinished) = try Self.makeStore(url)
        let chunk = try RouteStore(readOnlyAt: url).state.withLock { $0.index.recordings[unfinished]!.chunks[2].location }
        try Self.flipByte(in: url, segment: chunk.segment, at: chunk.offset + 40)
        try FileManager.default.removeItem(at: url.appendingPathComponent("index-00000002.rlidx"))
        let store = try RouteStore(at: url)
        // Chunks 0, 1 and 3 are whole; 2 is damaged: its points are named as missing,
        // and the index rebuilt from the segments agrees with what a reader sees.
        let recordings = try store.unfinishedRecordings()
        let walk = RouteCodec.quantize(Fixtures.sampleWalk(seed: 3, points: 100)).points
        #expect(recordings.map(\.id) == [unfinished])
        #expect(recordings.first?.missingPoints == [50..<75])
        #expect(recordings.first?.points == Array(walk[0..<50] + walk[75..<100]))
        #expect(try store.statistics().recordingsInProgress.first?.points == 100)
        #expect(try store.route(finished).withoutUUID == RouteCodec.quantize(Fixtures.sampleWalk(seed: 2, points: 100)).withoutSplitsAndMetadata)
        // It cannot be resumed with a hole in it; what is left is saved as a route.
        #expect(throws: RouteLogError.self) { try store.resumeRecording(unfinished) }
        let kept = try store.save(recordings[0].route)
        try store.discardRecording(unfinished)
        #expect(try store.route(kept).points == Array(walk[0..<50] + walk[75..<100]))
        #expect(try store.unfinishedRecordings().isEmpty)
    }

    @Test func aFlushLargerThanAChunkIsWrittenAsSeveralChunksInOneBatch() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(durability: .buffered))
        let walk = Fixtures.sampleWalk(seed: 4, points: FormatConstants.maxRecordingChunkPoints + 1234)
        let recorder = try store.startRecording(flushPolicy: .manual)
        try recorder.append(walk.points)
        for split in walk.splits { try recorder.addSplit(split) }
        try recorder.flush()
        #expect(try store.statistics().recordingsInProgress.first?.chunks == 2)
        let id = try recorder.finish(metadata: walk.metadata)
        #expect(try store.route(id).withoutUUID == RouteCodec.quantize(walk))
    }
}

extension Route {
    /// The same points with no splits and empty metadata.
    var withoutSplitsAndMetadata: Route { Route(points: points, segmentStarts: segmentStarts) }
}
