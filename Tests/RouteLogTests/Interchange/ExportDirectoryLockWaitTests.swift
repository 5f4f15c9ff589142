import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// An export waits for another export into the same directory for a limited time, then
/// throws `.locked` naming the directory; one that ends within it lets the wait end.
/// The other export is an flock on another open description of the directory, as
/// another process's export holds it.
@Suite struct ExportDirectoryLockWaitTests {
    /// Another export's hold on `directory`: its own open description, locked.
    final class OtherExport {
        let fd: Int32
        init(_ directory: URL) {
            fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            precondition(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
        }
        func end() { flock(fd, LOCK_UN) }
        deinit { close(fd) }
    }

    static func directory(_ dir: TemporaryDirectory) throws -> URL {
        let out = dir.url.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        return out
    }

    @Test func anExportHeldLongerThanTheWaitIsReported() throws {
        let dir = TemporaryDirectory()
        let out = try Self.directory(dir)
        let other = OtherExport(out)
        var told = 0
        let error = #expect(throws: RouteLogError.self) {
            _ = try ExportDirectoryLock(out, waiting: { told += 1 }, wait: 0.05)
        }
        #expect(error?.code == .locked)
        #expect(error?.path == out.path)
        #expect(error?.message.contains("another export") == true, "\(String(describing: error))")
        #expect(told == 1)
        // The wait let go of its descriptor: once the other export ends, one gets in.
        other.end()
        _ = try ExportDirectoryLock(out, wait: 0)
    }

    @Test func anExportThatEndsDuringTheWaitLetsTheNextIn() throws {
        let dir = TemporaryDirectory()
        let out = try Self.directory(dir)
        let other = OtherExport(out)
        var told = 0
        // The other export ends as this one hears of the wait: the wait ends with the lock.
        let lock = try ExportDirectoryLock(out, waiting: { told += 1; other.end() }, wait: 600)
        #expect(told == 1)
        #expect(flock(other.fd, LOCK_EX | LOCK_NB) != 0, "the lock was not taken")
        withExtendedLifetime(lock) {}
    }

    @Test func theExportersWaitIsAnOption() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        _ = try store.save(Fixtures.sampleWalk(seed: 1, points: 50))
        let out = try Self.directory(dir)
        let other = OtherExport(out)
        var options = ParquetExportOptions()
        #expect(options.directoryWait == ExportDirectoryLock.defaultWait)
        options.directoryWait = 0.05
        #expect(throws: RouteLogError.self) { try ParquetExporter.export(store, to: out, options: options) }
        other.end()
        #expect(try ParquetExporter.export(store, to: out, options: options).routeCount == 1)
        try store.close()
    }

    /// A wait that is not a positive number (zero, below zero, however far, or not a
    /// number at all) waits not at all: the export is refused with `.locked`, as after
    /// a wait that ran out, and the process is not stopped on the way.
    @Test(arguments: [0, -1, -1e300, -Double.infinity, Double.nan, -Double.nan])
    func aWaitThatIsNotAPositiveNumberWaitsNotAtAll(_ wait: Double) throws {
        let dir = TemporaryDirectory()
        let out = try Self.directory(dir)
        let other = OtherExport(out)
        let error = #expect(throws: RouteLogError.self) {
            _ = try ExportDirectoryLock(out, wait: wait)
        }
        #expect(error?.code == .locked, "\(wait): \(String(describing: error))")
        other.end()
        _ = try ExportDirectoryLock(out, wait: wait)
    }

    /// A wait too long to end (infinite, or past any date) waits until the other export ends.
    @Test(arguments: [Double.infinity, 1e300, Double.greatestFiniteMagnitude])
    func aWaitWithoutEndLastsUntilTheOtherExportEnds(_ wait: Double) throws {
        let dir = TemporaryDirectory()
        let out = try Self.directory(dir)
        let other = OtherExport(out)
        var told = 0
        let lock = try ExportDirectoryLock(out, waiting: { told += 1; other.end() }, wait: wait)
        #expect(told == 1)
        withExtendedLifetime(lock) {}
    }

    /// A directory removed while an export waits for it (the month folder of another
    /// export's directory, which that export removes once it holds no tables) is made
    /// again, and the export writes into the new one, not into the removed one. Here the
    /// other export removes it as this one hears of the wait, then ends.
    @Test(arguments: [ParquetExportOptions.Partitioning.none, .month])
    func aDirectoryRemovedDuringTheWaitIsMadeAgain(_ partitioning: ParquetExportOptions.Partitioning) throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        _ = try store.save(Fixtures.sampleWalk(seed: 1, points: 50))
        let month = "start_month=" + ParquetExporter.month(of: try #require(try store.summaries().first).startDate)
        let out = try Self.directory(dir)
        // Plain: the export's own directory is the month folder; by month: the folder in it.
        let target = partitioning == .none ? out.appendingPathComponent(month) : out
        let folder = out.appendingPathComponent(month)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let other = OtherExport(folder)
        var told = 0
        let report = try ParquetExporter.export(store, to: target, options: .init(partitioning: partitioning), waiting: {
            told += 1
            #expect(rmdir(folder.path) == 0)
            other.end()
        })
        #expect(told == 1)
        #expect(report.routeCount == 1)
        #expect(ExportPartContents.read(in: folder)?.ids(atMost: 10)?.count == 1, "nothing was written at \(folder.path)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(ParquetExporter.routesFileName).path))
        try store.close()
    }
}
