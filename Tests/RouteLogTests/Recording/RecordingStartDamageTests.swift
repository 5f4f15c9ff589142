import Foundation
import Testing
@testable import RouteLog

/// A RecordingStart (or RoutePut) damaged where the index does not reach (a writer
/// killed before its index caught up, or an index rebuilt from the segments): the
/// replay knows no recording (or route) for the chunks (or edits) after it, yet they
/// hold points (or metadata) that were acknowledged.
@Suite struct RecordingStartDamageTests {
    /// The records of `type` (chunks unless told) of id `id` in the store's live segments.
    static func records(of id: RouteID, in store: RouteStore, type: FormatConstants.RecordType = .recordingChunk) throws -> Int {
        var count = 0
        for segment in store.state.withLock({ $0.segments.segments }) {
            var scanner = LogScanner(file: try segment.file, from: Int64(FormatConstants.fileHeaderSize), fileSize: segment.end)
            while let record = try scanner.next() {
                if record.type == type.rawValue,
                   record.payload.withUnsafeBytes({ $0.u64(at: 0) }) == id.rawValue { count += 1 }
            }
        }
        return count
    }

    @Test func compactionKeepsTheChunksOfARecordingWhoseStartIsDamaged() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let options = RouteStore.Options(compaction: .manual)
        let store = try RouteStore(at: url, options: options)
        let saved = try store.save(Fixtures.sampleWalk(seed: 1, points: 50))
        let recorder = try store.startRecording(flushPolicy: .init(points: 25, interval: nil))
        for point in Fixtures.sampleWalk(seed: 3, points: 100).points { try recorder.append(point) }
        let id = recorder.id
        let start = store.state.withLock { $0.index.recordings[id]!.start }
        #expect(try Self.records(of: id, in: store) == 4)
        try store.close()
        try RouteRecorderDamageTests.flipByte(in: url, segment: start.segment, at: start.offset + 30)
        try removeIndexFiles(of: url)

        let reopened = try RouteStore(at: url, options: options)
        #expect(try reopened.verify().problems.contains { $0.kind == .damagedBytes && $0.offset == start.offset })
        let report = try reopened.compact()
        // The 100 flushed points are still on disk: the segment is kept as found, with
        // the damage that says a record was lost there.
        #expect(try Self.records(of: id, in: reopened) == 4)
        #expect(report.segmentsSkipped.contains { $0.name == FormatConstants.segmentName(start.segment) })
        #expect(try reopened.route(saved).points.count == 50)
        try reopened.close()
        let again = try RouteStore(at: url, options: options)
        try again.compact()
        #expect(try Self.records(of: id, in: again) == 4)
        #expect(try again.verify().problems.contains { $0.kind == .damagedBytes })
        try again.close()
    }

    @Test func compactionKeepsTheEditOfARouteWhoseRoutePutIsDamaged() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let options = RouteStore.Options(compaction: .manual)
        let store = try RouteStore(at: url, options: options)
        let kept = try store.save(Fixtures.sampleWalk(seed: 1, points: 50))
        let edited = try store.save(Fixtures.sampleWalk(seed: 2, points: 50))
        try store.edit(edited, RouteEdit(name: "the acknowledged name"))
        let put = store.state.withLock { $0.index.routes[edited]!.location }
        try store.close()
        try RouteRecorderDamageTests.flipByte(in: url, segment: put.segment, at: put.offset + 30)
        try removeIndexFiles(of: url)

        let reopened = try RouteStore(at: url, options: options)
        try reopened.compact()
        #expect(try Self.records(of: edited, in: reopened, type: .metadataEdit) == 1)
        #expect(try reopened.route(kept).points.count == 50)
        try reopened.close()
    }
}
