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
    /// Runs `routelog` with `arguments` while this process holds `held`'s flock (as an
    /// export does), and expects it to say `message` on stderr and wait, writing nothing
    /// into `written`; then lets go, and expects it to end well and write it.
    func expectExportWaits(_ arguments: [String], holding held: URL, saying message: String, writing written: URL) throws
        -> (status: Int32, reason: Process.TerminationReason, stdout: String, stderr: String) {
        let descriptor = open(held.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(descriptor >= 0 && flock(descriptor, LOCK_EX) == 0)
        let export = try Follower(arguments)
        let deadline = Date().addingTimeInterval(60)
        while export.errors != message && export.process.isRunning && Date() < deadline { usleep(10_000) }
        #expect(export.errors == message, "\(export.errors)")
        #expect(export.process.isRunning, "the export did not wait")
        #expect(!FileManager.default.fileExists(atPath: written.path))
        close(descriptor)  // the other export ends
        let ended = try export.waitForExit()
        #expect(ended.status == 0, "\(ended.stderr)")
        #expect(FileManager.default.fileExists(atPath: written.path))
        return ended
    }

    @Test func aParquetExportSaysThatItWaitsForAnother() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let out = dir.path("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let ended = try expectExportWaits(["export", store.path, out.path, "--format", "parquet"], holding: out,
                                          saying: "routelog: another export into \(out.path) is under way; this one starts when it ends\n",
                                          writing: out.appendingPathComponent("routes.parquet"))
        #expect(ended.stdout.contains("wrote 4 routes"), "\(ended.stdout)")
    }

    /// `--partition month` into a directory one of whose month folders another export is
    /// writing (an export into that folder) waits at that folder, and says so.
    @Test func aPartitionedExportWaitsForAnExportIntoOneOfItsMonthFolders() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let out = dir.path("out"), folder = out.appendingPathComponent("start_month=2026-01")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = try expectExportWaits(["export", store.path, out.path, "--format", "parquet", "--partition", "month"], holding: folder,
                                  saying: "routelog: another export is writing into \(out.path) or one of its month folders; this one goes on when it ends\n",
                                  writing: folder.appendingPathComponent("routes.parquet"))
    }
}
