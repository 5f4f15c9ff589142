import Foundation
import Testing
@testable import RouteLog

/// The recording records byte by byte, as format-spec.md ("Recordings") lays them out,
/// for the one-point route of the spec's worked example recorded instead of saved.
@Suite struct RecordingRecordFormatTests {
    struct Frame {
        var type: UInt8
        var flags: UInt8
        var payload: [UInt8]
    }

    /// The frames of a log file, read by hand from the spec's frame layout.
    static func frames(_ url: URL) throws -> [Frame] {
        let bytes = Array(try Data(contentsOf: url))
        var frames: [Frame] = []
        var offset = FormatConstants.fileHeaderSize
        while offset + 16 <= bytes.count {
            #expect(Array(bytes[offset..<(offset + 4)]) == [0xAB, 0x52, 0x4C, 0x52])
            let length = Int(bytes[offset + 8]) | Int(bytes[offset + 9]) << 8 | Int(bytes[offset + 10]) << 16 | Int(bytes[offset + 11]) << 24
            frames.append(Frame(type: bytes[offset + 12], flags: bytes[offset + 13], payload: Array(bytes[(offset + 16)..<(offset + 16 + length)])))
            offset += 16 + length
        }
        #expect(offset == bytes.count)
        return frames
    }

    static func le(_ value: UInt64, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }

    @Test func aRecordedPointIsStartChunkAndFinishAndCompactsToTheSavedRoutePut() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        let point = TrackPoint(latitude: 45.5, longitude: 9.25, timestamp: Date(timeIntervalSince1970: 1_767_225_600))
        let recorder = try store.startRecording(metadata: RouteMetadata(uuid: FormatWorkedExampleTests.uuid), flushPolicy: .manual)
        try recorder.append(point)
        #expect(try recorder.finish() == RouteID(1))
        let segment = try Self.frames(url.appendingPathComponent("seg-00000001.rlseg"))
        let saved = try FormatWorkedExampleTests.exampleSegment()
        let put = Array(saved[(20 + 16)...])  // the worked example's RoutePut payload
        // Metadata: flags, time shift, then the extension: the uuid (19 bytes) and the
        // derived fields a save computes (24). A recording's records carry the uuid alone
        // (the recorder never holds the whole route); compaction adds the derived fields.
        let shape = Array(put[8..<68]), pointBlock = Array(put[122...])
        #expect(put[77] == 42)
        let metadata = Array(put[68..<77]) + [18] + Array(put[78..<96])

        #expect(segment.map(\.type) == [4, 5, 6])
        // RecordingStart: id, started, metadata.
        #expect(segment[0].flags == 0)
        #expect(Array(segment[0].payload[0..<8]) == Self.le(1, 8))
        #expect(segment[0].payload.count == 8 + 8 + 28)
        #expect(Array(segment[0].payload[16...]) == metadata)
        // RecordingChunk, first of the finish's batch: id, first point, point count,
        // layout (no splits, no segment starts), an ordinary point block.
        #expect(segment[1].flags == RecordFrame.batchContinues)
        #expect(segment[1].payload == Self.le(1, 8) + Self.le(0, 4) + Self.le(1, 4) + [0, 0] + pointBlock)
        // RecordingFinish: id, chunk count, the RoutePut's shape and metadata, layout.
        #expect(segment[2].flags == 0)
        #expect(segment[2].payload == Self.le(1, 8) + Self.le(1, 4) + shape + metadata + [0, 0])

        let index = try Self.frames(url.appendingPathComponent("index-00000002.rlidx"))
        #expect(index.map(\.type) == [19, 20, 21])
        #expect(Array(index[1].payload[24...]) == Self.le(0, 4) + Self.le(1, 4))
        #expect(Array(index[2].payload[24...]) == shape + metadata)

        try store.compact()
        let live = store.state.withLock { $0.segments.numbers }
        let compacted = try live.flatMap { try Self.frames(url.appendingPathComponent(FormatConstants.segmentName($0))) }
        #expect(compacted.map(\.type) == [1])
        #expect(compacted.first?.payload == put)
    }
}
