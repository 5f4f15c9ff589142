import Foundation
import Testing
@testable import RouteLog

/// A read-only handle that reads the whole store (its open, or a catch-up after a
/// compaction) while the writer's compaction removes the segments it is reading: with
/// a segment file cache of one descriptor, the segments it measured are opened again
/// by name and are gone. That is a switch of files to read past (the MANIFEST moved on),
/// not an error to report ("No such file or directory ... try again").
@Suite struct ReaderReadAgainCompactionRaceTests {
    /// A store of several small segments, written by `writer`; the reader's options keep
    /// one segment descriptor open.
    static func storeOfSeveralSegments(_ dir: TemporaryDirectory) throws -> (URL, RouteStore, [RouteID], RouteStore.Options) {
        let url = dir.store()
        let writer = try RouteStore(at: url, options: .smallSegmentsRewrittenEveryTime)
        var ids: [RouteID] = []
        for seed in 1...16 { ids.append(try writer.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 150))) }
        var readOptions = RouteStore.Options(mode: .readOnly)
        readOptions.openSegmentFileLimit = 1
        return (url, writer, ids, readOptions)
    }

    /// The reader's file system: once armed, the writer compacts right after the reader
    /// opens an index file (every segment measured, their descriptors closed but one).
    static func compactingWhenTheIndexOpens(_ writer: RouteStore, armed: StateLock<Bool>,
                                            report: StateLock<Result<CompactionReport, any Error>?>) -> InterceptingFileSystem {
        let fs = InterceptingFileSystem()
        fs.observe { operation in
            guard case .open(let ref, _) = operation, ref.path.hasSuffix(FormatConstants.indexSuffix),
                  armed.withLock({ let was = $0; $0 = false; return was }) else { return }
            report.withLock { $0 = Result { try writer.compact() } }
        }
        return fs
    }

    @Test func anOpenReadsPastACompactionOfTheSegmentsItMeasured() throws {
        let dir = TemporaryDirectory()
        let (url, writer, ids, readOptions) = try Self.storeOfSeveralSegments(dir)
        for id in ids where id.rawValue % 2 == 0 { try writer.delete(id) }
        let armed = StateLock(true)
        let report = StateLock<Result<CompactionReport, any Error>?>(nil)
        let fs = Self.compactingWhenTheIndexOpens(writer, armed: armed, report: report)
        let reader = try RouteStore(at: url, options: readOptions, fileSystem: fs)
        let compacted = try #require(try report.withLock { $0 }?.get(), "the compaction ran inside the open")
        #expect(compacted.segmentsCompacted > 0)
        try Self.expectReadsAsTheWriter(reader, writer)
    }

    @Test func aRefreshReadsPastACompactionDuringItsReadAgain() throws {
        let dir = TemporaryDirectory()
        let (url, writer, ids, readOptions) = try Self.storeOfSeveralSegments(dir)
        let armed = StateLock(false)
        let report = StateLock<Result<CompactionReport, any Error>?>(nil)
        let fs = Self.compactingWhenTheIndexOpens(writer, armed: armed, report: report)
        let reader = try RouteStore(at: url, options: readOptions, fileSystem: fs)
        // A first compaction makes the refresh read the store again; a second one lands
        // while it does.
        for id in ids where id.rawValue % 2 == 0 { try writer.delete(id) }
        #expect(try writer.compact().segmentsCompacted > 0)
        for id in ids where id.rawValue % 3 == 0 && id.rawValue % 2 == 1 { try writer.delete(id) }
        armed.withLock { $0 = true }
        try reader.refresh()
        let compacted = try #require(try report.withLock { $0 }?.get(), "the compaction ran inside the refresh")
        #expect(compacted.segmentsCompacted > 0)
        try Self.expectReadsAsTheWriter(reader, writer)
    }

    /// `reader` lists, reads and holds the segments `writer` does; both are then closed.
    static func expectReadsAsTheWriter(_ reader: RouteStore, _ writer: RouteStore) throws {
        #expect(Set(try reader.summaries().map(\.id)) == Set(try writer.summaries().map(\.id)))
        #expect(reader.state.withLock { $0.segments.numbers } == writer.state.withLock { $0.segments.numbers })
        for id in try writer.summaries().map(\.id) { #expect(try reader.route(id) == writer.route(id)) }
        try reader.close()
        try writer.close()
    }
}
