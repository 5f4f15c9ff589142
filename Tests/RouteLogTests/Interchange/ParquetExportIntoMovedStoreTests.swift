import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog
import RouteLogSamples

/// An export into the store's own directory is refused whatever path leads there: the
/// store's directory renamed while the store is open (its writer goes on in it, through
/// the directory it locked) and the export given its new path. The check is made on the
/// directory the store holds, not on what its old path leads to now: by the path, the
/// export found nothing at the old one, took the new one for another directory, and
/// waited the whole ``ParquetExportOptions/directoryWait`` on the writer's own flock
/// (600 s by default), then said another export held it.
@Suite struct ParquetExportIntoMovedStoreTests {
    func store(in directory: TemporaryDirectory, readOnly: Bool) throws -> RouteStore {
        let url = directory.store()
        let writer = try RouteStore(at: url, options: .init(durability: .buffered, compaction: .manual))
        var generator = WalkGenerator(seed: 5)
        _ = try writer.save(generator.walk(points: 30, start: Date(timeIntervalSince1970: 1_704_067_200)))
        guard readOnly else { return writer }
        try writer.close()
        return try RouteStore(at: url, options: .init(mode: .readOnly))
    }

    @Test(arguments: [false, true])
    func theStoresDirectoryUnderItsNewNameIsRefused(_ readOnly: Bool) throws {
        let directory = TemporaryDirectory()
        let store = try store(in: directory, readOnly: readOnly)
        let moved = directory.url.appendingPathComponent("moved.routelog")
        #expect(Glibc.rename(store.url.path, moved.path) == 0)
        var options = ParquetExportOptions()
        options.directoryWait = 3
        let started = Date()
        var waited = false
        #expect {
            try ParquetExporter.export(store, to: moved, options: options, waiting: { waited = true })
        } throws: { error in
            (error as? RouteLogError)?.code == .invalidArgument && (error as? RouteLogError)?.message.contains("store's own directory") == true
        }
        #expect(!waited, "the export waited on the store's own directory as if another export held it")
        #expect(Date().timeIntervalSince(started) < 2)
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: moved.path))
        #expect(!names.contains(ParquetExporter.routesFileName) && !names.contains(ExportPartContents.fileName), "\(names.sorted())")
        if !readOnly { try store.close() }
    }
}
