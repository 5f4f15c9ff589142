import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `export --format parquet` into a directory another export is writing (any process:
/// here this one, holding the directory's flock as an export does) says on stderr that
/// it waits, then runs once the other ends.
@Suite struct RoutelogExportWaitTests {
    @Test func aParquetExportSaysThatItWaitsForAnother() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let out = dir.path("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let held = open(out.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(held >= 0 && flock(held, LOCK_EX) == 0)
        let export = try Follower(["export", store.path, out.path, "--format", "parquet"])
        let deadline = Date().addingTimeInterval(60)
        while !export.errors.contains("is under way") && export.process.isRunning && Date() < deadline { usleep(10_000) }
        #expect(export.errors == "routelog: another export into \(out.path) is under way; this one starts when it ends\n",
                "\(export.errors)")
        #expect(export.process.isRunning, "the export did not wait")
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("routes.parquet").path))
        close(held)  // the other export ends
        let ended = try export.waitForExit()
        #expect(ended.status == 0, "\(ended.stderr)")
        #expect(ended.stdout.contains("wrote 4 routes"), "\(ended.stdout)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("routes.parquet").path))
    }

    /// `--partition month` into a directory one of whose month folders another export is
    /// writing (an export into that folder) waits at that folder, and says so.
    @Test func aPartitionedExportWaitsForAnExportIntoOneOfItsMonthFolders() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let out = dir.path("out"), folder = out.appendingPathComponent("start_month=2026-01")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let held = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(held >= 0 && flock(held, LOCK_EX) == 0)
        let export = try Follower(["export", store.path, out.path, "--format", "parquet", "--partition", "month"])
        let deadline = Date().addingTimeInterval(60)
        while !export.errors.contains("month folders") && export.process.isRunning && Date() < deadline { usleep(10_000) }
        #expect(export.errors == "routelog: another export is writing into \(out.path) or one of its month folders; this one goes on when it ends\n",
                "\(export.errors)")
        #expect(export.process.isRunning, "the export did not wait")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("routes.parquet").path))
        close(held)  // the other export ends
        let ended = try export.waitForExit()
        #expect(ended.status == 0, "\(ended.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("routes.parquet").path))
    }
}
