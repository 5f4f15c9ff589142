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
        let chunks = try RouteStore.openReadOnly(at: url).core.withLock {
            ($0.state.routes[finished]!.recorded!.chunks[1].location, $0.state.recordings[unfinished]!.chunks[2].location)
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
        do {
            _ = try store.unfinishedRecordings()
            Issue.record("a recording with a damaged chunk was listed")
        } catch let error as RouteLogError {
            #expect(error.code == .corrupted)
            #expect(error.message.contains("recording \(unfinished)"))
        }
        #expect(throws: RouteLogError.self) { try store.resumeRecording(unfinished) }
        #expect(try store.route(saved).points.count == 50)
        #expect(store.statistics().recordingsInProgress.map(\.id) == [unfinished])
        let report = store.verify()
        #expect(Set(report.problems.filter { $0.kind == .damagedRoute }.compactMap(\.routeID)) == [finished, unfinished])
        // The app drops what it cannot resume; a compaction then refuses only because
        // the finished route is damaged, naming it.
        try store.discardRecording(unfinished)
        #expect(try store.unfinishedRecordings().isEmpty)
        do {
            try store.compact()
            Issue.record("compaction went over a damaged route")
        } catch let error as RouteLogError {
            #expect(error.code == .corrupted)
        }
        try store.delete(finished)
        try store.compact()
        #expect(store.summaries().map(\.id) == [saved])
        #expect(store.verify().isClean)
    }

    @Test func rebuiltFromTheSegmentsARecordingKeepsTheChunksBeforeADamagedOne() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let (_, finished, unfinished) = try Self.makeStore(url)
        let chunk = try RouteStore.openReadOnly(at: url).core.withLock { $0.state.recordings[unfinished]!.chunks[2].location }
        try Self.flipByte(in: url, segment: chunk.segment, at: chunk.offset + 40)
        try FileManager.default.removeItem(at: url.appendingPathComponent("index-00000002.rlidx"))
        let store = try RouteStore(at: url)
        // Chunks 0 and 1 are whole; 2 is damaged and 3 would leave a gap, so both are dropped.
        let recordings = try store.unfinishedRecordings()
        #expect(recordings.map(\.id) == [unfinished])
        #expect(recordings.first?.points == Array(RouteCodec.quantize(Fixtures.sampleWalk(seed: 3, points: 100)).points.prefix(50)))
        #expect(try store.route(finished) == RouteCodec.quantize(Fixtures.sampleWalk(seed: 2, points: 100)).withoutSplitsAndMetadata)
        let recorder = try store.resumeRecording(unfinished)
        try recorder.append(Array(Fixtures.sampleWalk(seed: 3, points: 100).points[50...]))
        let id = try recorder.finish()
        #expect(try store.route(id).points == RouteCodec.quantize(Fixtures.sampleWalk(seed: 3, points: 100)).points)
    }

    @Test func aFlushLargerThanAChunkIsWrittenAsSeveralChunksInOneBatch() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(durability: .buffered))
        let walk = Fixtures.sampleWalk(seed: 4, points: FormatConstants.maxRecordingChunkPoints + 1234)
        let recorder = try store.startRecording(flushPolicy: .manual)
        try recorder.append(walk.points)
        for split in walk.splits { try recorder.addSplit(split) }
        try recorder.flush()
        #expect(store.statistics().recordingsInProgress.first?.chunks == 2)
        let id = try recorder.finish(metadata: walk.metadata)
        #expect(try store.route(id) == RouteCodec.quantize(walk))
    }
}

extension Route {
    /// The same points with no splits and empty metadata.
    var withoutSplitsAndMetadata: Route { Route(points: points, segmentStarts: segmentStarts) }
}
