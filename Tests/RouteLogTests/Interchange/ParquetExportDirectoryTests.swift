import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog
import RouteLogSamples

/// Where and how the GeoParquet export writes its files: the Parquet framing, the report,
/// replacing an earlier export, stale partitions, and refusals.
@Suite struct ParquetExportDirectoryTests {
    func walks(_ count: Int, in directory: TemporaryDirectory, monthsApart: Bool = true) throws -> RouteStore {
        let store = try RouteStore(at: directory.store(), options: .init(durability: .buffered, compaction: .manual))
        var generator = WalkGenerator(seed: 5)
        for i in 0..<count {
            // 40 days apart: each walk in a month of its own.
            _ = try store.save(generator.walk(points: 50 + i, start: Date(timeIntervalSince1970: 1_704_067_200 + Double(i) * (monthsApart ? 40 : 1) * 86_400)))
        }
        return store
    }

    @Test func eachFileIsFramedAsParquetAndTheReportAddsUp() throws {
        let directory = TemporaryDirectory()
        let store = try walks(3, in: directory)
        let out = directory.url.appendingPathComponent("out")
        let report = try ParquetExporter.export(store, to: out)
        #expect(report.routeCount == 3 && report.pointCount == 50 + 51 + 52)
        #expect(report.files.map(\.lastPathComponent) == ["routes.parquet", "points.parquet"])
        var total: Int64 = 0
        for file in report.files {
            let bytes = [UInt8](try Data(contentsOf: file))
            total += Int64(bytes.count)
            #expect(Array(bytes.prefix(4)) == Array("PAR1".utf8) && Array(bytes.suffix(4)) == Array("PAR1".utf8))
            // The footer's length, then the footer: FileMetaData, version (field 1) = 1 first.
            let length = bytes[bytes.count - 8..<bytes.count - 4].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            #expect(length > 0 && length < bytes.count - 12)
            #expect(Array(bytes[bytes.count - 8 - length..<bytes.count - 8 - length + 2]) == [0x15, 0x02])
        }
        #expect(report.bytes == total)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == ["_routelog_export.json", "points.parquet", "routes.parquet"],
                "no temporary file is left")
    }

    @Test func aPartitionedExportReplacesAnEarlierOneAndEmptiesMonthsWithoutRoutes() throws {
        let directory = TemporaryDirectory()
        let store = try walks(3, in: directory)
        let out = directory.url.appendingPathComponent("out")
        let first = try ParquetExporter.export(store, to: out, options: .init(partitioning: .month))
        #expect(first.partitions == ["2024-01", "2024-02", "2024-03"])
        #expect(first.files.count == 6)
        try store.delete(RouteID(2))
        let unrelated = out.appendingPathComponent("start_month=2024-02/notes.txt")
        try Data("kept".utf8).write(to: unrelated)
        let second = try ParquetExporter.export(store, to: out, options: .init(partitioning: .month))
        #expect(second.partitions == ["2024-01", "2024-03"] && second.routeCount == 2)
        #expect(second.removedFiles.map { $0.pathComponents.suffix(2).joined(separator: "/") }
                    == ["start_month=2024-02/routes.parquet", "start_month=2024-02/points.parquet"])
        // Only the export's own two files go; anything else stays, and so does its folder.
        #expect(FileManager.default.fileExists(atPath: unrelated.path))
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("start_month=2024-02/routes.parquet").path))
    }

    @Test func aFileAsTheTargetIsRefusedAndNothingIsWritten() throws {
        let directory = TemporaryDirectory()
        let store = try walks(1, in: directory)
        let file = directory.url.appendingPathComponent("taken")
        try Data("x".utf8).write(to: file)
        #expect {
            try ParquetExporter.export(store, to: file)
        } throws: { ($0 as? RouteLogError)?.code == .invalidArgument && ($0 as? RouteLogError)?.path == file.path }
        #expect(try Data(contentsOf: file) == Data("x".utf8))
    }

    /// Temporary files are created new under hidden names of their own (`O_EXCL`): a
    /// link planted at the name an earlier version used, or at the next names this
    /// process would take, is neither followed nor replaced.
    @Test func aSymbolicLinkAtATemporaryNameIsNotFollowed() throws {
        let directory = TemporaryDirectory()
        let store = try walks(1, in: directory)
        let out = directory.url.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let victim = directory.url.appendingPathComponent("victim")
        try Data("precious".utf8).write(to: victim)
        let next = ParquetFileWriter.upcomingNumber
        let planted = ["routes.parquet.tmp"] + (next..<(next + 40)).map { ".routes.parquet.\(getpid()).\($0).tmp" }
        for name in planted {
            try FileManager.default.createSymbolicLink(atPath: out.appendingPathComponent(name).path, withDestinationPath: victim.path)
        }
        let report = try ParquetExporter.export(store, to: out)
        #expect(report.routeCount == 1)
        #expect(try Data(contentsOf: victim) == Data("precious".utf8))
        for name in planted {
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: out.appendingPathComponent(name).path) == victim.path)
        }
        #expect(OutputNames.isRegularFile(out.appendingPathComponent("routes.parquet").path))
    }

    /// Temporary files left by an export that was killed (its process gone) are
    /// removed by the next export into the folder; those of live processes, and
    /// anything at such a name that is no regular file, are left alone.
    @Test func temporaryFilesOfAKilledExportAreRemoved() throws {
        let directory = TemporaryDirectory()
        let store = try walks(1, in: directory)
        let out = directory.url.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let dead = gone.processIdentifier
        let leftovers = [".routes.parquet.\(dead).3.tmp", ".points.parquet.\(dead).4.tmp"]
        let alive = [".routes.parquet.1.3.tmp", ".points.parquet.\(getpid()).999999.tmp", ".other.parquet.\(dead).1.tmp",
                     "routes.parquet.\(dead).1.tmp"]
        for name in leftovers + alive { try Data("x".utf8).write(to: out.appendingPathComponent(name)) }
        let fifo = ".routes.parquet.\(dead).5.tmp"
        #expect(mkfifo(out.appendingPathComponent(fifo).path, 0o644) == 0)
        let report = try ParquetExporter.export(store, to: out)
        #expect(report.removedFiles.map(\.lastPathComponent).sorted() == leftovers.sorted())
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: out.path))
        #expect(names.isSuperset(of: alive + [fifo]) && names.isDisjoint(with: leftovers), "\(names.sorted())")
    }

    @Test func progressCountsEveryRoute() throws {
        let directory = TemporaryDirectory()
        let store = try walks(5, in: directory, monthsApart: false)
        var calls: [(Int, Int)] = []
        try ParquetExporter.export(store, to: directory.url.appendingPathComponent("out")) { calls.append(($0, $1)) }
        #expect(calls.last.map { $0.0 == 5 && $0.1 == 5 } == true)
        #expect(zip(calls, calls.dropFirst()).allSatisfy { $0.0 < $1.0 })
    }
}
