import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// The export locks its directory and then reaches every file through the directory it
/// locked, never through the path again: the directory renamed away mid-export (from the
/// progress callback, between routes) and a symbolic link to another directory put at
/// its name, or a month folder swapped for a link or for another directory, lead
/// nothing into that other directory. The export goes on in the directory it locked, or
/// stops with `.io` naming the folder, with nothing changed there or elsewhere.
@Suite struct ParquetExportDirectorySwapTests {
    /// `count` walks, each in a month of its own when `monthsApart` (January 2024 on).
    func walks(_ count: Int, in directory: TemporaryDirectory, monthsApart: Bool = true) throws -> RouteStore {
        try ParquetExportDirectoryTests().walks(count, in: directory, monthsApart: monthsApart)
    }

    /// One route a batch, so that the progress callback runs between routes.
    func options(_ partitioning: ParquetExportOptions.Partitioning = .none) -> ParquetExportOptions {
        var options = ParquetExportOptions(partitioning: partitioning)
        options.routesPerRowGroup = 1
        return options
    }

    /// The id of a process that has ended (so a temporary name with it is a leftover).
    func deadProcess() throws -> pid_t {
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        return gone.processIdentifier
    }

    /// Everything under `directory`, by relative path: a file's bytes, a link's target, or
    /// "dir" (links not followed).
    func snapshot(_ directory: URL) -> [String: String] {
        var found: [String: String] = [:]
        func walk(_ url: URL, _ relative: String) {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [] {
                let child = url.appendingPathComponent(name), path = relative.isEmpty ? name : relative + "/" + name
                var info = stat()
                guard lstat(child.path, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFDIR:
                    found[path] = "dir"
                    walk(child, path)
                case S_IFLNK:
                    found[path] = "link to " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: child.path)) ?? "?")
                case S_IFREG:
                    found[path] = (try? Data(contentsOf: child)).map { $0.base64EncodedString() } ?? "unreadable"
                default:
                    found[path] = "other"
                }
            }
        }
        walk(directory, "")
        return found
    }

    /// A directory that looks like an earlier export's, with a leftover of a killed one.
    /// Exports `store` into `out`, and once the first route is written renames `out` to
    /// `moved` and puts a link to `target` at its name.
    func exportSwappingTheDirectory(_ store: RouteStore, _ out: URL, moved: URL, forALinkTo target: URL,
                                    options: ParquetExportOptions) -> Result<ParquetExportReport, any Error> {
        var swapped = false
        let result = Result {
            try ParquetExporter.export(store, to: out, options: options) { done, _ in
                guard done == 1, !swapped else { return }
                swapped = true
                #expect(rename(out.path, moved.path) == 0)
                #expect(symlink(target.path, out.path) == 0)
            }
        }
        #expect(swapped, "the export ended before a route was written")
        return result
    }

    /// Exports `store` into `out` by month, calling `swap` once `done` routes are written,
    /// and expects the export to stop with `.io` naming `month` as moved or replaced.
    func expectStopped(exporting store: RouteStore, to out: URL, month: URL, after done: Int,
                       swap: @escaping () -> Void) {
        var swapped = false
        #expect {
            try ParquetExporter.export(store, to: out, options: options(.month)) { written, _ in
                guard written == done, !swapped else { return }
                swapped = true
                swap()
            }
        } throws: { error in
            guard let error = error as? RouteLogError else { return false }
            return error.code == .io && error.path == month.path && error.message.contains("moved or replaced")
        }
        #expect(swapped, "the export ended before \(done) routes were written")
    }

    func decoy(_ url: URL, months: [String] = [], dead: pid_t) throws -> URL {
        for folder in [url] + months.map({ url.appendingPathComponent("start_month=\($0)") }) {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for name in ["routes.parquet", "points.parquet", "notes.txt", ".routes.parquet.\(dead).1.tmp", ".points.parquet.\(dead).2.tmp"] {
                try Data("decoy \(name)".utf8).write(to: folder.appendingPathComponent(name))
            }
            try Data("{\"routeIDs\":[[1,3]]}".utf8).write(to: folder.appendingPathComponent(ExportPartContents.fileName))
        }
        return url
    }

    @Test func theDirectorySwappedForALinkMidExportLeadsNothingIntoItsTarget() throws {
        let directory = TemporaryDirectory()
        let store = try walks(4, in: directory, monthsApart: false)
        let out = directory.url.appendingPathComponent("out"), moved = directory.url.appendingPathComponent("out-moved")
        try ParquetExporter.export(store, to: out)  // an earlier export: its list and tables are replaced
        let decoy = try decoy(directory.url.appendingPathComponent("decoy"), dead: deadProcess())
        let before = snapshot(decoy)
        let result = exportSwappingTheDirectory(store, out, moved: moved, forALinkTo: decoy, options: options())
        #expect(snapshot(decoy) == before, "the export wrote or removed files in the link's target")
        let report = try result.get()
        // It went on in the directory it locked, now named out-moved; the report names the path given.
        #expect(report.routeCount == 4)
        #expect(report.files == [out.appendingPathComponent("routes.parquet"), out.appendingPathComponent("points.parquet")])
        #expect(ExportPartContents.read(in: moved)?.ids(atMost: 100) == Set(try store.summaries().map(\.id)))
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: moved.path))
        #expect(names == ["routes.parquet", "points.parquet", ExportPartContents.fileName], "\(names.sorted())")
    }

    @Test func thePartitionedDirectorySwappedForALinkMidExportLeadsNothingIntoItsTarget() throws {
        let directory = TemporaryDirectory()
        let store = try walks(3, in: directory)
        let out = directory.url.appendingPathComponent("out"), moved = directory.url.appendingPathComponent("out-moved")
        // The target holds the month the export writes next (with a leftover in it) and a
        // stale month, whose tables an export into it would remove.
        let decoy = try decoy(directory.url.appendingPathComponent("decoy"), months: ["2024-02", "2019-01"], dead: deadProcess())
        let before = snapshot(decoy)
        let result = exportSwappingTheDirectory(store, out, moved: moved, forALinkTo: decoy, options: options(.month))
        #expect(snapshot(decoy) == before, "the export wrote or removed files in the link's target")
        let report = try result.get()
        #expect(report.partitions == ["2024-01", "2024-02", "2024-03"] && report.routeCount == 3)
        #expect(report.files.first == out.appendingPathComponent("start_month=2024-01/routes.parquet"))
        for month in report.partitions {
            let folder = moved.appendingPathComponent("start_month=\(month)")
            let names = Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            #expect(names == ["routes.parquet", "points.parquet", ExportPartContents.fileName], "\(month): \(names.sorted())")
        }
    }

    @Test func aMonthFolderSwappedForALinkMidExportStopsItWithNothingChanged() throws {
        let directory = TemporaryDirectory()
        let store = try walks(3, in: directory)
        let out = directory.url.appendingPathComponent("out"), aside = directory.url.appendingPathComponent("aside")
        try ParquetExporter.export(store, to: out, options: .init(partitioning: .month))
        let earlier = snapshot(out)
        let decoy = try decoy(directory.url.appendingPathComponent("decoy"), dead: deadProcess())
        let before = snapshot(decoy)
        let month = out.appendingPathComponent("start_month=2024-01")
        expectStopped(exporting: store, to: out, month: month, after: 1) {
            #expect(rename(month.path, aside.path) == 0)
            #expect(symlink(decoy.path, month.path) == 0)
        }
        #expect(snapshot(decoy) == before, "the export wrote or removed files in the link's target")
        // Nothing of the earlier export was replaced or removed, here or in the folder moved aside.
        var now = snapshot(out)
        #expect(now.removeValue(forKey: "start_month=2024-01") == "link to \(decoy.path)")
        #expect(now == earlier.filter { !$0.key.hasPrefix("start_month=2024-01") })
        let movedAside = snapshot(aside).filter { !$0.key.hasSuffix(".tmp") }  // this export's own unfinished tables
        #expect(movedAside == Dictionary(uniqueKeysWithValues: earlier.compactMap { key, value in
            key.hasPrefix("start_month=2024-01/") ? (String(key.dropFirst("start_month=2024-01/".count)), value) : nil
        }))
    }

    @Test func aMonthFolderReplacedByAnotherDirectoryMidExportStopsItWithNothingChanged() throws {
        let directory = TemporaryDirectory()
        let store = try walks(3, in: directory)
        let out = directory.url.appendingPathComponent("out"), aside = directory.url.appendingPathComponent("aside")
        try ParquetExporter.export(store, to: out, options: .init(partitioning: .month))
        let other = try decoy(directory.url.appendingPathComponent("other"), dead: deadProcess())
        let before = snapshot(other)
        let month = out.appendingPathComponent("start_month=2024-02")
        expectStopped(exporting: store, to: out, month: month, after: 2) {
            #expect(rename(month.path, aside.path) == 0)
            #expect(rename(other.path, month.path) == 0)
        }
        #expect(snapshot(month) == before, "the export wrote or removed files in the directory put at the month's name")
    }

    @Test func theDirectoryDeletedMidExportIsNotMadeAgain() throws {
        let directory = TemporaryDirectory()
        let store = try walks(3, in: directory)
        let out = directory.url.appendingPathComponent("out")
        var deleted = false
        #expect(throws: RouteLogError.self) {
            try ParquetExporter.export(store, to: out, options: options(.month)) { done, _ in
                guard done == 1, !deleted else { return }
                deleted = true
                try? FileManager.default.removeItem(at: out)
            }
        }
        #expect(deleted)
        #expect(!FileManager.default.fileExists(atPath: out.path), "the export made the deleted directory again by its path")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["store.routelog"])
    }

    /// An export of many months holds one month folder open at a time, not one a month
    /// (a store of years of routes would run out of descriptors).
    @Test func monthFoldersAreHeldOneAtATime() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/fd") else { return }
        let directory = TemporaryDirectory()
        let store = try walks(30, in: directory)
        let out = directory.url.appendingPathComponent("out")
        let folder = out.appendingPathComponent("start_month=").path
        var most = 0
        func heldMonthFolders() -> Int {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return fds.filter { fd in
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)") else { return false }
                return target.hasPrefix(folder) && !target.dropFirst(folder.count).contains("/")
            }.count
        }
        let report = try ParquetExporter.export(store, to: out, options: options(.month)) { _, _ in most = max(most, heldMonthFolders()) }
        #expect(report.partitions.count == 30)
        #expect(most <= 1, "\(most) month folders held at once")
        #expect(heldMonthFolders() == 0)
    }

    /// Things an export meets at its names: FIFOs at the tables' and the list's names (never
    /// opened, so never waited on), and a file at a month folder's name (refused).
    @Test(.timeLimit(.minutes(1))) func fifosAtTheTablesNamesAreReplacedWithoutAWait() throws {
        let directory = TemporaryDirectory()
        let store = try walks(2, in: directory)
        let out = directory.url.appendingPathComponent("out")
        let month = out.appendingPathComponent("start_month=2024-01"), stale = out.appendingPathComponent("start_month=2019-01")
        let fifoMonth = out.appendingPathComponent("start_month=2018-01")
        for folder in [month, stale] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for name in ["routes.parquet", "points.parquet", ExportPartContents.fileName, "_routes.parquet.previous",
                         ExportPartContents.fileName + ".previous"] {
                #expect(mkfifo(folder.appendingPathComponent(name).path, 0o644) == 0)
            }
        }
        #expect(mkfifo(fifoMonth.path, 0o644) == 0)  // a stale month's name: not a folder, left alone
        let report = try ParquetExporter.export(store, to: out, options: .init(partitioning: .month))
        #expect(report.partitions == ["2024-01", "2024-02"])
        var info = stat()
        #expect(lstat(fifoMonth.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
        #expect(OutputNames.isRegularFile(month.appendingPathComponent("routes.parquet").path))
        #expect(ExportPartContents.read(in: month) != nil)
        // The stale month's FIFOs at the tables' names go as its tables would; the list's too.
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: stale.path))
        #expect(left == ["_routes.parquet.previous", ExportPartContents.fileName + ".previous"], "\(left.sorted())")
    }

    @Test func aFileAtAMonthFoldersNameIsRefused() throws {
        let directory = TemporaryDirectory()
        let store = try walks(2, in: directory)
        let out = directory.url.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let taken = out.appendingPathComponent("start_month=2024-02")
        try Data("mine".utf8).write(to: taken)
        #expect {
            try ParquetExporter.export(store, to: out, options: .init(partitioning: .month))
        } throws: { ($0 as? RouteLogError)?.code == .invalidArgument && ($0 as? RouteLogError)?.path == taken.path }
        #expect(try Data(contentsOf: taken) == Data("mine".utf8))
        // Nothing was put in place: the month written before it is only an empty folder now.
        let names = try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("start_month=2024-01").path)
        #expect(names.isEmpty, "\(names)")
    }

    /// Running out of descriptors is reported as what it is, never as a folder moved or
    /// replaced, and never skips a step silently. Each export runs in a `routelog export`
    /// whose limit of open files is a few more than it starts with, so that its opens fail
    /// one after another as the limit goes up; this process's descriptors (shared by every
    /// test running beside it) are never used up.
    @Test func runningOutOfDescriptorsIsReportedAsSuch() throws {
        let routelog = try #require(SegmentFileLimitTests.routelog, "the routelog executable is built beside the tests")
        let directory = TemporaryDirectory()
        let store = try walks(4, in: directory)
        try store.close()
        var outcomes: [Int: String] = [:], crashed = 0
        for limit in 6...40 {
            let out = directory.url.appendingPathComponent("out\(limit)")
            // A stale month of an earlier export, which a whole export removes.
            let stale = out.appendingPathComponent("start_month=2019-01")
            try FileManager.default.createDirectory(at: stale, withIntermediateDirectories: true)
            for name in ["routes.parquet", "points.parquet"] { try Data("old".utf8).write(to: stale.appendingPathComponent(name)) }
            let run = try SegmentFileLimitTests.run(routelog, ["export", directory.store().path, out.path, "--format", "parquet",
                                                               "--partition", "month"], limit: limit)
            // libdispatch stops the process (SIGILL) when it cannot make its epoll descriptor
            // for a worker thread, whatever RouteLog does: such runs (killed by a signal, not
            // one of routelog's exit codes 0 to 3) tell nothing here.
            if !(0...3).contains(run.status) || run.stderr.contains("*** Signal ") {
                crashed += 1
                continue
            }
            outcomes[limit] = run.status == 0 ? "success" : run.stderr
            if run.status == 0 {
                let names = Set(try FileManager.default.contentsOfDirectory(atPath: out.path))
                #expect(names == ["start_month=2024-01", "start_month=2024-02", "start_month=2024-03", "start_month=2024-04"],
                        "limit \(limit): \(names.sorted())")
            }
        }
        let failures = outcomes.filter { $0.value != "success" }
        #expect(crashed < 10, "\(crashed) runs were killed by a signal")
        #expect(!failures.isEmpty && failures.count < outcomes.count, "the limits cover failing and whole exports: \(outcomes)")
        #expect(failures.values.allSatisfy { $0.contains("Too many open files") }, "\(failures.sorted { $0.key < $1.key })")
        #expect(!failures.values.contains { $0.contains("moved or replaced") }, "EMFILE reported as a moved folder: \(failures)")
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: directory.url.path))
        #expect(names == Set(["store.routelog"] + (6...40).map { "out\($0)" }), "\(names.sorted())")
    }
}
