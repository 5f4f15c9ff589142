import Foundation
import Testing
@testable import RouteLog

/// A read-only handle exports while the writer compacts: the segment file cache closed
/// the descriptors of segments the compaction deleted. `route(_:)` catches up with the
/// writer and reads each route where it is now: no sound route is called unreadable.
@Suite struct ExportAfterCompactionTests {
    static func storeCompactedUnderAReader(_ dir: TemporaryDirectory) throws -> (RouteStore, [RouteID]) {
        let url = dir.store()
        var options = RouteStore.Options()
        options.segmentSizeLimit = 16 * 1024
        let writer = try RouteStore(at: url, options: options)
        let ids = try (1...12).map { try writer.save(Fixtures.sampleWalk(seed: UInt64($0), points: 300)) }
        var readOptions = RouteStore.Options(mode: .readOnly)
        readOptions.openSegmentFileLimit = 1
        let reader = try RouteStore(at: url, options: readOptions)
        for id in ids where id.rawValue % 2 == 0 { try writer.delete(id) }
        let report = try writer.compact()
        #expect(report.segmentsCompacted > 0, "\(report)")
        try writer.close()
        let kept = ids.filter { $0.rawValue % 2 == 1 }
        return (reader, kept)
    }

    @Test func exportAllReadsEveryRouteWhereItIsNow() throws {
        let dir = TemporaryDirectory()
        let (reader, kept) = try Self.storeCompactedUnderAReader(dir)
        let out = dir.url.appendingPathComponent("out")
        var thrown: RouteLogError?
        do { try RouteExporter.exportAll(from: reader, to: out, format: .gpx) } catch let e as RouteLogError { thrown = e }
        #expect(thrown == nil, "no route is damaged: \(thrown.map { "\($0.code) \($0.message) errno=\(String(describing: $0.errno))" } ?? "")")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []
        #expect(files.count >= kept.count)
        try reader.close()
    }

    @Test func aParquetExportReadsEveryRouteWhereItIsNow() throws {
        let dir = TemporaryDirectory()
        let (reader, _) = try Self.storeCompactedUnderAReader(dir)
        let report = try ParquetExporter.export(reader, to: dir.url.appendingPathComponent("pq"))
        #expect(report.unreadableRoutes.isEmpty,
                "\(report.unreadableRoutes.map { "\($0.id): \($0.error.message) errno=\(String(describing: $0.error.errno))" })")
        try reader.close()
    }
}
