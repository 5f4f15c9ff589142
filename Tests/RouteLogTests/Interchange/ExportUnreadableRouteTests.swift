import Foundation
import Testing
@testable import RouteLog

/// An export meets a route whose record is damaged: every other route is exported, and
/// the damaged one is named with the file and offset of the damage (thrown at the end
/// by `exportAll`, listed in the Parquet report), never silently dropped.
@Suite struct ExportUnreadableRouteTests {
    /// Three routes; the second one's record has a flipped byte.
    static func damagedStore(_ dir: TemporaryDirectory) throws -> (store: RouteStore, damaged: RouteID, location: RecordLocation) {
        let url = dir.store()
        let writer = try RouteStore(at: url)
        let ids = try (1...3).map { try writer.save(Fixtures.sampleWalk(seed: UInt64($0), points: 200)) }
        let location = writer.state.withLock { $0.index.routes[ids[1]]!.location }
        try writer.close()
        let segment = url.appendingPathComponent(FormatConstants.segmentName(location.segment))
        var bytes = try Data(contentsOf: segment)
        bytes[Int(location.offset) + 100] ^= 0x10
        try bytes.write(to: segment)
        return (try RouteStore(at: url, options: .init(mode: .readOnly)), ids[1], location)
    }

    @Test(arguments: [RouteExportFormat.gpx, .geojson])
    func exportAllWritesTheOthersThenNamesTheDamagedRoute(format: RouteExportFormat) throws {
        let dir = TemporaryDirectory()
        let (store, damaged, location) = try Self.damagedStore(dir)
        let out = dir.url.appendingPathComponent("out")
        let error = try #require(throws: RouteLogError.self) {
            try RouteExporter.exportAll(from: store, to: out, format: format)
        }
        #expect(error.code == .corrupted)
        #expect(error.offset == location.offset)
        #expect(error.path?.hasSuffix(FormatConstants.segmentName(location.segment)) == true)
        #expect(error.message.contains("2 route file(s) were written, but 1 route(s) could not be read and have none (\(damaged))"),
                "\(error.message)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        let expected = try store.summaries().map(\.id).filter { $0 != damaged }
            .map { RouteExporter.fileName(for: $0, format: format) }.sorted()
        #expect(files == expected)
        try store.close()
    }

    /// A file that cannot be written stops the export, and the error still says what
    /// was done before it: the files written, and the routes found unreadable so far.
    @Test func aWriteErrorStillNamesTheRoutesFoundUnreadable() throws {
        let dir = TemporaryDirectory()
        let (store, damaged, _) = try Self.damagedStore(dir)
        let order = try store.summaries().map(\.id)
        let last = try #require(order.last)
        try #require(last != damaged, "the damaged route comes before the one whose file fails")
        let out = dir.url.appendingPathComponent("out")
        // A non-empty directory where the last route's file goes: nothing can replace it.
        let blocker = out.appendingPathComponent(RouteExporter.fileName(for: last, format: .gpx))
        try FileManager.default.createDirectory(at: blocker.appendingPathComponent("kept"), withIntermediateDirectories: true)
        let error = try #require(throws: RouteLogError.self) {
            try RouteExporter.exportAll(from: store, to: out, format: .gpx)
        }
        #expect(error.code == .io && error.path == blocker.path, "\(error)")
        #expect(error.message.contains("\(order.count - 2) route file(s) were written before it, and 1 route(s) could not be read (\(damaged))"),
                "\(error.message)")
        #expect(FileManager.default.fileExists(atPath: blocker.appendingPathComponent("kept").path))
        try store.close()
    }

    @Test(arguments: [ParquetExportOptions.Partitioning.none, .month])
    func aParquetExportListsTheDamagedRoute(partitioning: ParquetExportOptions.Partitioning) throws {
        let dir = TemporaryDirectory()
        let (store, damaged, location) = try Self.damagedStore(dir)
        var options = ParquetExportOptions()
        options.partitioning = partitioning
        let report = try ParquetExporter.export(store, to: dir.url.appendingPathComponent("out"), options: options)
        #expect(report.routeCount == 2)
        #expect(report.unreadableRoutes.map(\.id) == [damaged])
        #expect(report.unreadableRoutes.first?.error.code == .corrupted)
        #expect(report.unreadableRoutes.first?.error.offset == location.offset)
        #expect(report.vanishedRoutes.isEmpty && report.withheldRoutes.isEmpty)
        try store.close()
    }

    /// A closed handle is no damaged route: the export fails.
    @Test func aClosedStoreStillFailsTheExport() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try Self.damagedStore(dir)
        let summaries = try store.summaries()
        try store.close()
        var unreadable: [UnreadableRoute] = []
        #expect(throws: RouteLogError.self) { try UnreadableRoute.read(summaries[0].id, of: store, noting: &unreadable) }
        #expect(unreadable.isEmpty)
    }
}
