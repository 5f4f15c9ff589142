import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// A re-export that cannot read a route keeps the earlier tables that may hold it (by
/// the list of routes each export writes beside its tables, `_routelog_export.json`),
/// under names dataset readers skip (`_routes.parquet.previous`): they may hold the
/// only readable copy of the route. Tables that do not hold it are replaced or
/// removed as usual, so the same damage export after export keeps nothing more.
@Suite struct ParquetReexportKeepsEarlierTablesTests {
    /// Every file under `directory`, by relative path.
    static func files(_ directory: URL) -> [String: Data] {
        var all: [String: Data] = [:]
        let walker = FileManager.default.enumerator(atPath: directory.path)!
        while let name = walker.nextObject() as? String {
            if let data = try? Data(contentsOf: directory.appendingPathComponent(name)), OutputNames.isRegularFile(directory.appendingPathComponent(name).path) {
                all[name] = data
            }
        }
        return all
    }

    /// A store of three routes exported into `out`, then the second route's record
    /// damaged (its id is `ids[1]`).
    static func exportedThenDamaged(_ dir: TemporaryDirectory) throws -> (url: URL, ids: [RouteID], out: URL) {
        let url = dir.store()
        let writer = try RouteStore(at: url)
        let ids = try (1...3).map { try writer.save(Fixtures.sampleWalk(seed: UInt64($0), points: 200)) }
        let location = writer.state.withLock { $0.index.routes[ids[1]]!.location }
        let out = dir.url.appendingPathComponent("out")
        _ = try ParquetExporter.export(writer, to: out)
        try writer.close()
        try damage(url, location)
        return (url, ids, out)
    }

    static func damage(_ url: URL, _ location: RecordLocation) throws {
        let segment = url.appendingPathComponent(FormatConstants.segmentName(location.segment))
        var bytes = try Data(contentsOf: segment)
        bytes[Int(location.offset) + 100] ^= 0x10
        try bytes.write(to: segment)
    }

    @Test(arguments: [ParquetExportOptions.Partitioning.none, .month])
    func aReexportKeepsTheEarlierTablesOfADamagedRoute(partitioning: ParquetExportOptions.Partitioning) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        let ids = try (1...3).map { try writer.save(Fixtures.sampleWalk(seed: UInt64($0), points: 200)) }
        let location = writer.state.withLock { $0.index.routes[ids[1]]!.location }
        var options = ParquetExportOptions()
        options.partitioning = partitioning
        let out = dir.url.appendingPathComponent("out")
        let first = try ParquetExporter.export(writer, to: out, options: options)
        #expect(first.routeCount == 3)
        #expect(first.keptFiles.isEmpty)
        let earlier = try Dictionary(uniqueKeysWithValues: first.files.map { ($0.path, try Data(contentsOf: $0)) })
        for folder in Set(first.files.map { $0.deletingLastPathComponent() }) {
            #expect(ExportPartContents.read(in: folder) != nil, "no list of routes in \(folder.path)")
        }
        try writer.close()
        try Self.damage(url, location)

        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        let second = try ParquetExporter.export(reader, to: out, options: options)
        #expect(second.unreadableRoutes.map(\.id) == [ids[1]])
        // Every earlier table that held the damaged route must still exist somewhere in `out`.
        let all = Array(Self.files(out).values)
        let lost = earlier.filter { !all.contains($0.value) }.map(\.key).sorted()
        #expect(lost.isEmpty, "earlier tables holding route \(ids[1]) were replaced: \(lost)")
        // Kept under names a dataset reader skips, as a pair with one suffix.
        #expect(second.keptFiles.map(\.lastPathComponent).sorted() == ["_points.parquet.previous", "_routes.parquet.previous"])
        for kept in second.keptFiles { #expect(earlier[kept.deletingLastPathComponent().appendingPathComponent(String(kept.lastPathComponent.dropFirst().dropLast(".previous".count))).path] == (try Data(contentsOf: kept))) }
        try reader.close()
    }

    /// The same damage, export after export: the tables the last export wrote do not
    /// hold the route (it could not read it), so they are replaced, not kept again.
    @Test func reexportsWithTheSameDamageKeepOnePairOnly() throws {
        let dir = TemporaryDirectory()
        let (url, ids, out) = try Self.exportedThenDamaged(dir)
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        for run in 1...5 {
            let report = try ParquetExporter.export(reader, to: out)
            #expect(report.unreadableRoutes.map(\.id) == [ids[1]])
            #expect(report.keptFiles.count == (run == 1 ? 2 : 0), "run \(run): \(report.keptFiles)")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(names == ["_points.parquet.previous", "_routelog_export.json", "_routelog_export.json.previous",
                          "_routes.parquet.previous", "points.parquet", "routes.parquet"], "\(names)")
        try reader.close()
    }

    /// Damage that comes and goes (a segment whose permissions keep changing, say): a
    /// kept pair goes once an export writes every route its list names again, so the
    /// kept copies do not pile up.
    @Test func keptTablesGoOnceEveryRouteOfThemIsExportedAgain() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        let ids = try (1...3).map { try writer.save(Fixtures.sampleWalk(seed: UInt64($0), points: 200)) }
        let location = writer.state.withLock { $0.index.routes[ids[1]]!.location }
        try writer.close()
        let out = dir.url.appendingPathComponent("out")
        for cycle in 1...3 {
            let clean = try RouteStore(at: url, options: .init(mode: .readOnly))
            let full = try ParquetExporter.export(clean, to: out)
            #expect(full.unreadableRoutes.isEmpty && full.routeCount == 3)
            if cycle > 1 {
                #expect(full.removedFiles.map(\.lastPathComponent).sorted()
                        == ["_points.parquet.previous", "_routelog_export.json.previous", "_routes.parquet.previous"], "cycle \(cycle)")
            }
            try clean.close()
            try Self.damage(url, location)
            let damaged = try RouteStore(at: url, options: .init(mode: .readOnly))
            let partial = try ParquetExporter.export(damaged, to: out)
            #expect(partial.unreadableRoutes.map(\.id) == [ids[1]])
            #expect(partial.keptFiles.count == 2, "cycle \(cycle)")
            try damaged.close()
            try Self.damage(url, location)  // the same flip again: repaired
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(names == ["_points.parquet.previous", "_routelog_export.json", "_routelog_export.json.previous",
                          "_routes.parquet.previous", "points.parquet", "routes.parquet"], "\(names)")
    }

    /// A route moved to another month (an edit of its start), then damaged: the month it
    /// was in is no longer written, and its tables, the only ones holding the route,
    /// are kept instead of removed.
    @Test func aPartitionedReexportKeepsTheStaleMonthThatHeldAnUnreadableRoute() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        let january = Date(timeIntervalSince1970: 1_767_225_600 + 5 * 86_400)  // 2026-01-06
        let february = Date(timeIntervalSince1970: 1_767_225_600 + 40 * 86_400)  // 2026-02-10
        _ = try writer.save(Fixtures.sampleWalk(seed: 1, points: 200, start: february))
        let moved = try writer.save(Fixtures.sampleWalk(seed: 2, points: 200, start: january))
        var options = ParquetExportOptions()
        options.partitioning = .month
        let out = dir.url.appendingPathComponent("out")
        let first = try ParquetExporter.export(writer, to: out, options: options)
        #expect(first.partitions == ["2026-01", "2026-02"])
        let earlierJanuary = try Data(contentsOf: out.appendingPathComponent("start_month=2026-01/routes.parquet"))
        _ = try writer.edit(moved, RouteEdit(shift: 30 * 86_400))
        let location = writer.state.withLock { $0.index.routes[moved]!.location }
        try writer.close()
        try Self.damage(url, location)

        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        let second = try ParquetExporter.export(reader, to: out, options: options)
        #expect(second.unreadableRoutes.map(\.id) == [moved])
        #expect(second.partitions == ["2026-02"])
        #expect(second.removedFiles.isEmpty, "\(second.removedFiles)")
        #expect(try Data(contentsOf: out.appendingPathComponent("start_month=2026-01/_routes.parquet.previous")) == earlierJanuary)
        // February's earlier tables never held it (their list says so): replaced.
        #expect(!second.keptFiles.contains { $0.path.contains("2026-02") }, "\(second.keptFiles)")
        // Once the route reads again, a stale month with no list-named route goes.
        try reader.close()
    }

    /// pyarrow reads the export directory as one Hive-partitioned dataset: the kept
    /// tables and the lists of routes are not read as data, so each route counts once.
    @Test func aDatasetReaderSkipsTheKeptTablesAndTheLists() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        let ids = try (1...4).map { i in
            try writer.save(Fixtures.sampleWalk(seed: UInt64(i), points: 100,
                                                start: Date(timeIntervalSince1970: 1_767_225_600 + Double(i) * 20 * 86_400)))
        }
        let location = writer.state.withLock { $0.index.routes[ids[1]]!.location }
        var options = ParquetExportOptions()
        options.partitioning = .month
        let out = dir.url.appendingPathComponent("out")
        _ = try ParquetExporter.export(writer, to: out, options: options)
        try writer.close()
        try Self.damage(url, location)
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        let second = try ParquetExporter.export(reader, to: out, options: options)
        #expect(!second.keptFiles.isEmpty)
        let script = #"""
        import sys, json, pyarrow.dataset as ds
        d = ds.dataset(sys.argv[1], format="parquet", partitioning="hive")
        routes = [f for f in d.files if f.endswith("/routes.parquet")]
        t = ds.dataset(routes, format="parquet").to_table(columns=["route_id"])
        print(json.dumps({"files": sorted(set(f.split("/")[-1] for f in d.files)),
                          "ids": sorted(str(v) for v in t.column("route_id").to_pylist())}))
        """#
        let read = try #require(try ParquetFixtures.json(script, [out.path]) as? [String: Any])
        #expect(read["files"] as? [String] == ["points.parquet", "routes.parquet"], "\(read)")
        #expect(read["ids"] as? [String] == ids.filter { $0 != ids[1] }.map { "\($0.rawValue)" }.sorted(), "\(read)")
        try reader.close()
    }

    /// Another store exported into the same directory (a store rebuilt from the same
    /// files, say), whose route ids are those of the kept pair: its routes are not the
    /// kept ones (the list's digest of ids and uuids differs), so the pair stays.
    @Test func anotherStoresRoutesOfTheSameIdsDoNotReleaseAKeptPair() throws {
        let dir = TemporaryDirectory()
        let (url, ids, out) = try Self.exportedThenDamaged(dir)
        let damaged = try RouteStore(at: url, options: .init(mode: .readOnly))
        let kept = try ParquetExporter.export(damaged, to: out).keptFiles
        #expect(kept.count == 2)
        try damaged.close()
        let other = try RouteStore(at: dir.url.appendingPathComponent("other.routelog"))
        let otherIDs = try (11...13).map { try other.save(Fixtures.sampleWalk(seed: UInt64($0), points: 200)) }
        #expect(otherIDs == ids, "the same ids, other routes")
        let report = try ParquetExporter.export(other, to: out)
        #expect(report.routeCount == 3)
        #expect(report.removedFiles.isEmpty, "\(report.removedFiles)")
        for file in kept { #expect(OutputNames.isRegularFile(file.path), "\(file.lastPathComponent)") }
        try other.close()
    }

    /// A `start_month=` name that is a symbolic link is never followed: a stale one is
    /// left alone (nothing is removed where it points), and one the export would write
    /// into is refused.
    @Test func aLinkedMonthFolderIsNotFollowed() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        _ = try writer.save(Fixtures.sampleWalk(seed: 1, points: 100))  // January 2026
        let out = dir.url.appendingPathComponent("out"), victim = dir.url.appendingPathComponent("victim")
        try FileManager.default.createDirectory(at: victim, withIntermediateDirectories: true)
        for name in ["routes.parquet", "points.parquet", ExportPartContents.fileName] {
            try Data("precious".utf8).write(to: victim.appendingPathComponent(name))
        }
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: out.appendingPathComponent("start_month=1999-01").path, withDestinationPath: victim.path)
        var options = ParquetExportOptions()
        options.partitioning = .month
        let report = try ParquetExporter.export(writer, to: out, options: options)
        #expect(report.removedFiles.isEmpty, "\(report.removedFiles)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: victim.path).count == 3)
        try FileManager.default.removeItem(at: out.appendingPathComponent("start_month=2026-01"))
        try FileManager.default.createSymbolicLink(atPath: out.appendingPathComponent("start_month=2026-01").path, withDestinationPath: victim.path)
        #expect(throws: RouteLogError.self) { try ParquetExporter.export(writer, to: out, options: options) }
        for name in ["routes.parquet", "points.parquet", ExportPartContents.fileName] {
            #expect(try Data(contentsOf: victim.appendingPathComponent(name)) == Data("precious".utf8))
        }
        try writer.close()
    }

    /// A month no longer in the store whose tables hold no unreadable route is emptied
    /// as before, list of routes included.
    @Test func aStaleMonthWithoutAnUnreadableRouteIsRemoved() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        let january = Date(timeIntervalSince1970: 1_767_225_600 + 5 * 86_400)
        let id = try writer.save(Fixtures.sampleWalk(seed: 2, points: 200, start: january))
        var options = ParquetExportOptions()
        options.partitioning = .month
        let out = dir.url.appendingPathComponent("out")
        _ = try ParquetExporter.export(writer, to: out, options: options)
        _ = try writer.edit(id, RouteEdit(shift: 30 * 86_400))
        let second = try ParquetExporter.export(writer, to: out, options: options)
        #expect(second.removedFiles.map(\.lastPathComponent).sorted() == ["points.parquet", "routes.parquet"])
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("start_month=2026-01").path))
        try writer.close()
    }

    /// A disk that fills while the new tables are written: the export fails, and the
    /// earlier export is left as it was (no table moved aside, no temporary file left).
    @Test func aFullDiskLeavesTheEarlierExportAsItWas() throws {
        let dir = TemporaryDirectory()
        let mountPoint = dir.url.appendingPathComponent("small-disk")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        let mounted = IOFaultInjectionTests.shell(["mount", "-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", mountPoint.path])
        guard mounted.status == 0 else {
            print("full-disk export test NOT RUN: could not mount a 2 MiB tmpfs at \(mountPoint.path) (needs root): \(mounted.error)")
            try Test.cancel("could not mount a 2 MiB tmpfs (needs root): \(mounted.error)")
        }
        defer { _ = IOFaultInjectionTests.shell(["umount", mountPoint.path]) }
        let url = dir.store()
        let writer = try RouteStore(at: url)
        let ids = try (1...6).map { try writer.save(Fixtures.sampleWalk(seed: UInt64($0), points: 1000)) }
        let location = writer.state.withLock { $0.index.routes[ids[2]]!.location }
        let out = mountPoint.appendingPathComponent("out")
        _ = try ParquetExporter.export(writer, to: out)
        try writer.close()
        let before = Self.files(out)
        try Self.damage(url, location)
        let filled = IOFaultInjectionTests.fillToTheBrim(mountPoint.appendingPathComponent("filler").path)
        #expect(filled > 0)
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        do {
            _ = try ParquetExporter.export(reader, to: out)
            Issue.record("the export wrote its tables on a full disk")
        } catch let error as RouteLogError {
            #expect(error.errno == ENOSPC, "\(error)")
        }
        #expect(Self.files(out) == before, "\(Self.files(out).keys.sorted()) against \(before.keys.sorted())")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == before.keys.sorted())
        try reader.close()
    }
}
