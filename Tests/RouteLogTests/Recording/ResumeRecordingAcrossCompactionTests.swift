import Foundation
import Testing
@testable import RouteLog

/// resumeRecording(_:) reads the recording's chunks outside every lock, so the writer's
/// own compaction (an explicit compact() on another thread, or the background one) can
/// move them while it reads: with a segment file cache of one descriptor, a chunk's
/// segment is opened again by name after the compaction removed it.
@Suite struct ResumeRecordingAcrossCompactionTests {
    @Test func resumeReadsChunksACompactionMovedWhileItRead() throws {
        let dir = TemporaryDirectory()
        let fs = HookedFileSystem()
        var options = RouteStore.Options.smallSegmentsRewrittenEveryTime
        options.openSegmentFileLimit = 1  // a chunk's segment is opened again by name
        let store = try RouteStore(at: dir.store(), options: options, fileSystem: fs)
        let walk = Fixtures.sampleWalk(seed: 7, points: 120)
        let id: RouteID
        var saved: [RouteID] = []
        do {
            // Chunks in several segments, each followed by routes that fill segments.
            let recorder = try store.startRecording(flushPolicy: .manual)
            id = recorder.id
            for part in 0..<3 {
                try recorder.append(Array(walk.points[(part * 30)..<((part + 1) * 30)]))
                try recorder.flush()
                for seed in 0..<6 { saved.append(try store.save(Fixtures.sampleWalk(seed: UInt64(100 + part * 10 + seed), points: 300))) }
            }
        }  // released without finishing: an unfinished recording to resume
        // Dead bytes in every segment, for the compaction to rewrite them all.
        for (i, route) in saved.enumerated() where i % 2 == 1 { try store.delete(route) }
        let flushed = try #require(try store.unfinishedRecordings().first { $0.id == id })
        #expect(flushed.points.count == 90)
        let chunkSegments = store.state.withLock { $0.index.recordings[id]?.chunks.map(\.location.segment) ?? [] }
        #expect(Set(chunkSegments).count == 3, "the chunks lie in three segments")

        let armed = StateLock(true)
        let compacted = StateLock<Result<CompactionReport, any Error>?>(nil)
        fs.beforeRead { path, offset in
            // The first chunk is being read (not a segment's header, which is read under
            // the segment file cache's lock): the compaction moves every chunk.
            guard path.hasSuffix(FormatConstants.segmentSuffix), offset >= FormatConstants.fileHeaderSize,
                  armed.withLock({ let was = $0; $0 = false; return was }) else { return }
            compacted.withLock { $0 = Result { try store.compact() } }
        }
        let recorder = try store.resumeRecording(id, flushPolicy: .manual)
        fs.beforeRead(nil)
        let report = try #require(try compacted.withLock { $0 }?.get(), "the compaction ran while the resume read")
        #expect(report.segmentsCompacted > 0)
        #expect(recorder.pointCount == 90)
        try recorder.append(Array(walk.points[90...]))
        let route = try store.route(try recorder.finish())
        #expect(Array(route.points.prefix(90)) == flushed.points)
        #expect(route.points.count == walk.points.count)
        try store.close()
    }
}
