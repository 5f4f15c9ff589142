import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import RouteLog

/// close() lets go of every descriptor the store opened, while the handle itself may
/// live on (an app keeps its object after closing it): the segments it read, LOCK, the
/// index and the directory. Counted by what this process has open under the store's
/// directory, so other suites running beside it do not move the count.
@Suite struct ClosedStoreDescriptorTests {
    /// A store of several segments, every route read once, so that the store has opened
    /// each segment file.
    func storeOfSeveralSegments(_ dir: TemporaryDirectory) throws -> (URL, [RouteID]) {
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(durability: .buffered, segmentSizeLimit: 8 << 10, compaction: .manual))
        var ids: [RouteID] = []
        for seed in 0..<12 { ids.append(try store.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 200))) }
        try store.close()
        return (url, ids)
    }

    @Test(arguments: [false, true]) func aClosedHandleHoldsNothingUnderTheStore(readOnly: Bool) throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/fd") else { return }
        let dir = TemporaryDirectory()
        let (url, ids) = try storeOfSeveralSegments(dir)
        let store = try RouteStore(at: url, options: .init(mode: readOnly ? .readOnly : .createIfMissing, compaction: .manual))
        for id in ids { _ = try store.route(id) }
        _ = try store.verify()
        if !readOnly { _ = try store.save(Fixtures.sampleWalk(seed: 99, points: 50)) }
        #expect(ParquetExportDescriptorTests.held(under: url).count > 2, "the open store reads its segments")
        try store.close()
        let left = ParquetExportDescriptorTests.held(under: url)
        #expect(left.isEmpty, "still open after close(): \(left)")
        // The handle lives on, closed: a read is refused and opens nothing.
        #expect(throws: RouteLogError.self) { _ = try store.route(ids[0]) }
        #expect(ParquetExportDescriptorTests.held(under: url).isEmpty)
        withExtendedLifetime(store) {}
        // And the store is free for the next writer.
        try RouteStore(at: url).close()
    }

    /// A close() whose final sync of buffered saves fails throws, and lets every
    /// descriptor go all the same: the writer's segment and index files among them.
    @Test func aCloseWhoseFinalSyncFailsHoldsNothingUnderTheStore() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/fd") else { return }
        let dir = TemporaryDirectory()
        let template = try BufferedSyncFailureTests.template(dir)
        let opened = try BufferedSyncFailureTests.callsAtOpen(.syncData, template, dir)
        let url = dir.store()
        try FileManager.default.copyItem(at: template, to: url)
        let fs = InterceptingFileSystem(fault: .init(.kind(.syncData, opened + 1), errno: EIO, .persistent))
        let store = try RouteStore(at: url, options: BufferedSyncFailureTests.options, fileSystem: fs)
        for i in 0..<5 { try store.save(BufferedSyncFailureTests.route(100 + i)) }
        #expect(ParquetExportDescriptorTests.held(under: url).count > 2, "the open writer holds its files")
        #expect(throws: RouteLogError.self, "the final sync failed") { try store.close() }
        #expect(fs.faultFired)
        let left = ParquetExportDescriptorTests.held(under: url)
        #expect(left.isEmpty, "still open after a close() that threw: \(left)")
        withExtendedLifetime(store) {}
        // The store is free for the next writer, which finds the saves synced before.
        let reopened = try RouteStore(at: url)
        #expect(try reopened.summaries().count >= 3)
        try reopened.close()
    }

    /// A read that began before the store closed and reaches for a segment after it
    /// (the cache closed meanwhile): the file it opens serves that read alone and closes
    /// with it; a segment made after the close is not kept either.
    @Test func aClosedCacheKeepsNoSegmentOpenedAfterIt() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/fd") else { return }
        let dir = TemporaryDirectory()
        let cache = SegmentFileCache(capacity: 4, store: LogFiles(directory: dir.url.path, fileSystem: PosixFileSystem.shared))
        func segment(_ number: UInt32) throws -> SegmentFile {
            let path = dir.url.appendingPathComponent(FormatConstants.segmentName(number)).path
            #expect(FileManager.default.createFile(atPath: path, contents: Data()))
            let file = try DurableFile.open(path, flags: O_RDONLY, fileSystem: PosixFileSystem.shared)
            return SegmentFile(file, number: number, cache: cache, writable: false)
        }
        let first = try segment(1)
        #expect(cache.openCount == 1)
        cache.close()
        #expect(cache.openCount == 0)
        #expect(ParquetExportDescriptorTests.held(under: dir.url).isEmpty)
        do {
            let file = try first.open()
            #expect(ParquetExportDescriptorTests.held(under: dir.url).count == 1, "open while the read holds it")
            withExtendedLifetime(file) {}
        }
        #expect(cache.openCount == 0)
        _ = try segment(2)
        #expect(cache.openCount == 0)
        #expect(ParquetExportDescriptorTests.held(under: dir.url).isEmpty)
    }
}
