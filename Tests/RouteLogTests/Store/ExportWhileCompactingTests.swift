import Foundation
import Testing
@testable import RouteLog

/// Exports from a read-only handle while a writer saves, deletes and compacts the same
/// store, compactions following each other: a route a compaction moves is read where
/// it went, however many times it moves, so no export fails and no sound route is
/// called unreadable. Two Parquet exports into one directory at once never share a
/// temporary file.
@Suite struct ExportWhileCompactingTests {
    @Test(arguments: [1, 3]) func exportsNeverFailOrBlameASoundRoute(compactEvery: Int) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url, options: .smallSegmentsRewrittenEveryTime)
        for seed in 1...120 { _ = try writer.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 150)) }
        var readOptions = RouteStore.Options(mode: .readOnly)
        readOptions.openSegmentFileLimit = 1  // descriptors closed, so removed segments are met by name
        let reader = try RouteStore(at: url, options: readOptions)
        let stop = StateLock(false)
        let writerErrors = StateLock<[String]>([])
        let thread = Thread {
            var seed: UInt64 = 1000
            while !stop.withLock({ $0 }) {
                do {
                    seed += 1
                    _ = try writer.save(Fixtures.sampleWalk(seed: seed, points: 150))
                    let all = try writer.summaries().map(\.id).sorted()
                    if all.count > 110 { try writer.delete(all[0]) }
                    if seed % UInt64(compactEvery) == 0 { _ = try writer.compact() }
                } catch {
                    writerErrors.withLock { $0.append("\(error)") }
                }
            }
        }
        thread.start()
        var failures: [String] = []
        let deadline = Date().addingTimeInterval(6)
        var runs = 0
        while Date() < deadline {
            runs += 1
            do {
                let report = try ParquetExporter.export(reader, to: dir.url.appendingPathComponent("out-\(runs % 2)"))
                failures += report.unreadableRoutes.map { "parquet run \(runs): route \($0.id) unreadable: \($0.error)" }
            } catch {
                failures.append("parquet run \(runs) threw \(error)")
            }
            do {
                try RouteExporter.exportAll(from: reader, to: dir.url.appendingPathComponent("gpx"), format: .gpx)
            } catch {
                failures.append("gpx run \(runs) threw \(error)")
            }
        }
        stop.withLock { $0 = true }
        while !thread.isFinished { usleep(10_000) }
        #expect(writerErrors.withLock { $0 }.isEmpty, "\(writerErrors.withLock { $0.prefix(3) })")
        #expect(failures.isEmpty, "\(failures.count) failures in \(runs) runs: \(failures.prefix(5))")
        #expect(runs >= 2)
        try reader.close()
        try writer.close()
    }

    @Test func twoParquetExportsIntoOneDirectoryAtOnce() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        for seed in 1...20 { _ = try writer.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 500)) }
        let out = dir.url.appendingPathComponent("out")
        let errors = StateLock<[String]>([])
        for round in 0..<5 {
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                do {
                    _ = try ParquetExporter.export(writer, to: out)
                } catch {
                    errors.withLock { $0.append("round \(round): \(error)") }
                }
            }
        }
        #expect(errors.withLock { $0 }.isEmpty, "\(errors.withLock { $0 })")
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(names == ["_routelog_export.json", "points.parquet", "routes.parquet"], "\(names)")
        #expect(ExportPartContents.read(in: out)?.ids(atMost: 1000) == Set(try writer.summaries().map(\.id)))
        try writer.close()
    }

    /// An export waits for another into the same directory to finish (a lock on the
    /// directory): their steps never interleave, so each part's list of routes always
    /// matches its tables, even when the two exports hold different routes.
    @Test func exportsOfDifferentRoutesIntoOneDirectoryNeverLeaveAListThatDisagrees() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        for seed in 1...6 { _ = try writer.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 300)) }
        let all = Set(try writer.summaries().map(\.id))
        let first = try #require(try writer.summaries().first)
        var hiding = ParquetExportOptions()
        // A zone around every point of the first route's start: that route is withheld.
        hiding.privacyZones = [try PrivacyZone(center: first.startCoordinate, radius: 5_000)]
        let out = dir.url.appendingPathComponent("out")
        let choices = [hiding, ParquetExportOptions()]
        for round in 0..<6 {
            DispatchQueue.concurrentPerform(iterations: 2) { i in
                _ = try? ParquetExporter.export(writer, to: out, options: choices[i])
            }
            let listed = try #require(ExportPartContents.read(in: out)?.ids(atMost: 100), "round \(round)")
            let script = #"""
            import sys, json, pyarrow.parquet as pq
            print(json.dumps(sorted(str(v) for v in pq.read_table(sys.argv[1], columns=["route_id"]).column("route_id").to_pylist())))
            """#
            let inTable = try #require(try ParquetFixtures.json(script, [out.appendingPathComponent("routes.parquet").path]) as? [String])
            #expect(Set(inTable.compactMap { UInt64($0) }.map { RouteID($0) }) == listed, "round \(round)")
            #expect(listed.isSubset(of: all))
        }
        try writer.close()
    }

    /// While another export holds the directory's lock, an export waits, then runs.
    @Test func anExportWaitsForTheDirectorysLock() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        _ = try writer.save(Fixtures.sampleWalk(seed: 1, points: 100))
        let out = dir.url.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        var held: ExportDirectoryLock? = try ExportDirectoryLock(out)
        let finished = StateLock(false), waited = StateLock(0)
        let thread = Thread {
            _ = try? ParquetExporter.export(writer, to: out, waiting: { waited.withLock { $0 += 1 } })
            finished.withLock { $0 = true }
        }
        thread.start()
        usleep(400_000)
        #expect(!finished.withLock { $0 }, "the export ran while the lock was held")
        #expect(waited.withLock { $0 } == 1, "the export did not say that it waits")
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("routes.parquet").path))
        withExtendedLifetime(held) {}
        held = nil
        let deadline = Date().addingTimeInterval(30)
        while !finished.withLock({ $0 }) && Date() < deadline { usleep(10_000) }
        #expect(finished.withLock { $0 })
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("routes.parquet").path))
        #expect(waited.withLock { $0 } == 1)
        // With no other export under way, no wait and no word of one.
        var calls = 0
        _ = try ParquetExporter.export(writer, to: out, waiting: { calls += 1 })
        #expect(calls == 0)
        try writer.close()
    }

    /// The store's own directory, whose flock its writer holds, is refused at once
    /// rather than waited for.
    @Test func anExportIntoTheStoresDirectoryIsRefused() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        _ = try writer.save(Fixtures.sampleWalk(seed: 1, points: 100))
        let error = try #require(throws: RouteLogError.self) { try ParquetExporter.export(writer, to: url) }
        #expect(error.code == .invalidArgument, "\(error)")
        #expect(try writer.verify().isClean)
        try writer.close()
    }

    /// An export started from another's progress callback, into the same directory, is
    /// refused rather than left waiting for a lock its own thread holds.
    @Test func aNestedExportIntoTheSameDirectoryIsRefused() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        for seed in 1...3 { _ = try writer.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 100)) }
        let out = dir.url.appendingPathComponent("out")
        var inner: Error?, tried = false
        let report = try ParquetExporter.export(writer, to: out) { _, _ in
            guard !tried else { return }
            tried = true
            do { _ = try ParquetExporter.export(writer, to: out) } catch { inner = error }
        }
        #expect(tried)
        #expect(report.routeCount == 3)
        #expect((inner as? RouteLogError)?.code == .invalidArgument, "\(String(describing: inner))")
        try writer.close()
    }

    /// Whatever is planted at names the export might take for its temporary files
    /// (a FIFO, a link) is never opened: the export goes on with other names.
    @Test func plantedTemporaryNamesAreNeverOpened() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        _ = try writer.save(Fixtures.sampleWalk(seed: 1, points: 200))
        let out = dir.url.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let victim = dir.url.appendingPathComponent("victim")
        try Data("keep".utf8).write(to: victim)
        let first = ParquetFileWriter.upcomingNumber
        for name in ["routes.parquet", "points.parquet"] {
            for n in first..<(first + 60) {
                let path = out.appendingPathComponent(".\(name).\(getpid()).\(n).tmp").path
                if n % 2 == 0 { #expect(mkfifo(path, 0o644) == 0) } else { try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: victim.path) }
            }
        }
        let report = try ParquetExporter.export(writer, to: out)
        #expect(report.routeCount == 1)
        #expect(try Data(contentsOf: victim) == Data("keep".utf8))
        try writer.close()
    }
}
