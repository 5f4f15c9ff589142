import Foundation
import Testing
@testable import RouteLog

/// Recording records no writer makes, written past the index (format-spec.md,
/// "Segment records"): a chunk whose first point goes backwards is ignored, and the
/// recording goes on; a finish whose chunk count is not the chunks' reads as damage,
/// which verify names and compaction keeps as found.
@Suite struct ForgedRecordingRecordsTests {
    static func append(_ frame: [UInt8], to url: URL, segment: UInt32) throws {
        let handle = try FileHandle(forWritingTo: url.appendingPathComponent(FormatConstants.segmentName(segment)))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(frame))
        try handle.close()
    }

    @Test func aChunkWhoseFirstPointGoesBackwardsIsIgnored() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let options = RouteStore.Options(compaction: .manual)
        let walk = RouteCodec.quantize(Fixtures.sampleWalk(seed: 8, points: 110)).points
        let store = try RouteStore(at: url, options: options)
        let recorder = try store.startRecording(flushPolicy: .init(points: 25, interval: nil))
        for point in walk.prefix(100) { try recorder.append(point) }
        let id = recorder.id
        let segment = store.state.withLock { $0.segments.numbers.last! }
        try store.close()
        let forged = RecordingChunkRecord(id: id, firstPoint: 10, pointCount: 5, layout: RouteLayout(),
                                          pointBlock: RouteCodec.encodePoints(Array(walk.suffix(5)))[...])
        try Self.append(RecordFrame.encode(type: .recordingChunk, payload: forged.payload()), to: url, segment: segment)

        let reopened = try RouteStore(at: url, options: options)
        let listed = try #require(try reopened.unfinishedRecordings().first)
        #expect(listed.points == Array(walk.prefix(100)) && listed.missingPoints.isEmpty)
        let resumed = try reopened.resumeRecording(id)
        for point in walk.suffix(10) { try resumed.append(point) }
        try resumed.finish()
        try reopened.compact()
        #expect(try reopened.route(id).points == walk)
        #expect(try reopened.verify().isClean)
        try reopened.close()
    }

    @Test func aFinishWithAnotherChunkCountReadsAsDamage() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let options = RouteStore.Options(compaction: .manual)
        let store = try RouteStore(at: url, options: options)
        let saved = try store.save(Fixtures.sampleWalk(seed: 1, points: 40))
        let recorder = try store.startRecording(flushPolicy: .init(points: 25, interval: nil))
        for point in Fixtures.sampleWalk(seed: 9, points: 100).points { try recorder.append(point) }
        let id = try recorder.finish()
        let finish = store.state.withLock { $0.index.routes[id]!.location }
        let payload = Array(try store.state.withLock { $0.segments }.read(at: finish, type: .recordingFinish, what: "finish"))
        try store.close()
        // The same record saying 5 chunks, where the recording wrote 4.
        var record = try RecordingFinishRecord(payload: payload[...])
        #expect(record.chunkCount == 4)
        record.chunkCount = 5
        let frame = RecordFrame.encode(type: .recordingFinish, payload: record.payload())
        try #require(frame.count == finish.length)
        let handle = try FileHandle(forWritingTo: url.appendingPathComponent(FormatConstants.segmentName(finish.segment)))
        try handle.seek(toOffset: UInt64(finish.offset))
        try handle.write(contentsOf: Data(frame))
        try handle.close()

        let reopened = try RouteStore(at: url, options: options)
        #expect {
            try reopened.route(id)
        } throws: { error in
            (error as? RouteLogError)?.code == .corrupted && (error as? RouteLogError)?.offset == finish.offset
        }
        #expect(try reopened.verify().problems.contains { $0.routeID == id })
        let report = try reopened.compact()
        #expect(report.segmentsSkipped.contains { $0.name == FormatConstants.segmentName(finish.segment) })
        #expect(try reopened.route(saved).points.count == 40)
        try reopened.close()
    }
}
