import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// An export into a directory by month and an export into one of its month folders
/// (`out/start_month=2024-02`) lock different directories, and meet at the month
/// folder's lock: whichever writes the folder first holds it, the other waits for it
/// (saying so through `waiting`) or is refused with `.locked` naming it. The two are
/// lined up by their progress callbacks: the first, holding the folder, starts the
/// second on another thread and goes on once that one waits (or has ended).
/// Afterwards every folder's list of routes names exactly the routes its tables hold.
@Suite(.tags(.externalReader), .enabled(if: PythonReaders.available("pyarrow"), "needs pyarrow in .build/pyenv (make pyenv)"))
struct ParquetExportMonthFolderLockTests {
    /// The month folder both exports write.
    static let month = "start_month=2024-02"

    /// Three walks, in January, February and March 2024 (route ids in that order).
    static func store(in directory: TemporaryDirectory) throws -> RouteStore {
        let store = try RouteStore(at: directory.store(), options: .init(durability: .buffered, compaction: .manual))
        var generator = WalkGenerator(seed: 23)
        for i in 0..<3 {
            _ = try store.save(generator.walk(points: 40 + i, start: Date(timeIntervalSince1970: 1_704_067_200 + Double(i) * 40 * 86_400)))
        }
        return store
    }

    /// One route a batch, so that the progress callback runs once a route, while the
    /// route's folder is held.
    static func options(_ partitioning: ParquetExportOptions.Partitioning, wait: TimeInterval = ExportDirectoryLock.defaultWait) -> ParquetExportOptions {
        var options = ParquetExportOptions(partitioning: partitioning)
        options.routesPerRowGroup = 1
        options.directoryWait = wait
        return options
    }

    /// What the second export did: how many times it was told to wait, and how it ended
    /// ("ok", or the error's code and path).
    final class Second: Sendable {
        let waits = StateLock(0)
        let outcome = StateLock<String?>(nil)
        /// Signalled when it is told to wait, and when it ends.
        let news = DispatchSemaphore(value: 0)

        /// Starts `export` on a thread of its own, and returns once it waits or has ended.
        func start(_ export: @escaping @Sendable (_ waiting: @escaping () -> Void) throws -> Void) {
            Thread { [self] in
                let ended: String
                do {
                    try export { [self] in
                        waits.withLock { $0 += 1 }
                        news.signal()
                    }
                    ended = "ok"
                } catch let error as RouteLogError {
                    ended = "\(error.code): \(error.path ?? "")"
                } catch {
                    ended = "\(error)"
                }
                outcome.withLock { $0 = ended }
                news.signal()
            }.start()
            news.wait()
        }

        /// Waits until it has ended, and says how.
        func ended() -> String {
            while outcome.withLock({ $0 }) == nil { news.wait() }
            return outcome.withLock { $0 } ?? ""
        }
    }

    /// Exports `store` into `out` by month; while it writes February (its second route),
    /// `second` is started with `export`.
    @discardableResult
    static func exportByMonth(_ store: RouteStore, into out: URL, starting second: Second, wait: TimeInterval = ExportDirectoryLock.defaultWait,
                              _ export: @escaping @Sendable (_ waiting: @escaping () -> Void) throws -> Void) throws -> ParquetExportReport {
        var started = false
        return try ParquetExporter.export(store, to: out, options: options(.month, wait: wait)) { done, _ in
            guard done == 2, !started else { return }
            started = true
            second.start(export)
        }
    }

    /// The reverse order: exports `store` into the month folder `folder` (plain); while it
    /// writes its first route, `second` is started with an export by month into the
    /// directory above (waiting up to `wait`), and then `meanwhile` runs.
    static func exportIntoTheFolder(_ store: RouteStore, _ folder: URL, starting second: Second,
                                    wait: TimeInterval = ExportDirectoryLock.defaultWait, meanwhile: @escaping () -> Void = {}) throws {
        let out = folder.deletingLastPathComponent()
        var started = false
        try ParquetExporter.export(store, to: folder, options: options(.none)) { done, _ in
            guard done == 1, !started else { return }
            started = true
            second.start { waiting in
                try ParquetExporter.export(store, to: out, options: options(.month, wait: wait), waiting: waiting)
            }
            meanwhile()
        }
    }

    /// Every folder of the export in `out` (itself and its month folders) that holds
    /// tables has a list of routes naming exactly the routes of both tables, read by
    /// pyarrow; no temporary file is left.
    static func expectListsAgreeWithTables(in out: URL) throws {
        let months = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix("start_month=") }
        let script = #"""
        import sys, json, pyarrow.parquet as pq
        def ids(name): return sorted(set(str(v) for v in pq.read_table(sys.argv[1] + "/" + name, columns=["route_id"]).column("route_id").to_pylist()))
        print(json.dumps([ids("routes.parquet"), ids("points.parquet")]))
        """#
        var checked = 0
        for folder in [out] + months.map({ out.appendingPathComponent($0) }) {
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(!names.contains { $0.hasSuffix(".tmp") }, "a temporary file left in \(folder.path): \(names)")
            guard names.contains(ParquetExporter.routesFileName) else { continue }
            let listed = try #require(ExportPartContents.read(in: folder)?.ids(atMost: 100), "no list in \(folder.path)")
            let tables = try #require(try ParquetFixtures.json(script, [folder.path]) as? [[String]])
            for (name, held) in zip(["routes", "points"], tables) {
                #expect(Set(held.compactMap { UInt64($0) }.map { RouteID($0) }) == listed, "\(folder.lastPathComponent): the \(name) table against the list")
            }
            checked += 1
        }
        #expect(checked > 0)
    }

    /// A plain export into the month folder, started while the export by month writes
    /// it, waits for that folder, then runs; the export by month reopens the folder to put
    /// its tables in place (waiting in turn if the other still writes it).
    @Test(.timeLimit(.minutes(2))) func anExportIntoAMonthFolderWaitsForTheExportWritingIt() throws {
        let directory = TemporaryDirectory()
        let store = try Self.store(in: directory)
        let out = directory.url.appendingPathComponent("out"), folder = out.appendingPathComponent(Self.month)
        let second = Second()
        let report = try Self.exportByMonth(store, into: out, starting: second) { waiting in
            try ParquetExporter.export(store, to: folder, options: Self.options(.none), waiting: waiting)
        }
        #expect(second.ended() == "ok")
        #expect(second.waits.withLock { $0 } == 1, "the export into the month folder did not wait for it")
        #expect(report.partitions == ["2024-01", "2024-02", "2024-03"])
        try Self.expectListsAgreeWithTables(in: out)
        try Self.expectListsAgreeWithTables(in: folder)
        try store.close()
    }

    /// With a wait too short, the export into the month folder is refused with `.locked`
    /// naming it, and the export by month puts its own tables there.
    @Test(.timeLimit(.minutes(2))) func anExportIntoAMonthFolderWithAShortWaitIsRefused() throws {
        let directory = TemporaryDirectory()
        let store = try Self.store(in: directory)
        let out = directory.url.appendingPathComponent("out"), folder = out.appendingPathComponent(Self.month)
        let second = Second()
        try Self.exportByMonth(store, into: out, starting: second) { waiting in
            try ParquetExporter.export(store, to: folder, options: Self.options(.month, wait: 0), waiting: waiting)
        }
        #expect(second.ended() == "locked: \(folder.path)")
        #expect(second.waits.withLock { $0 } == 1)
        #expect(ExportPartContents.read(in: folder)?.ids(atMost: 100)?.count == 1, "the month folder holds the export by month's one route")
        try Self.expectListsAgreeWithTables(in: out)
        try store.close()
    }

    /// The same thread asking for a month folder it holds (an export started from the
    /// progress of the export writing it) is refused at once: its wait would never end.
    @Test(.timeLimit(.minutes(2))) func anExportIntoAMonthFolderFromTheProgressOfTheExportWritingItIsRefused() throws {
        let directory = TemporaryDirectory()
        let store = try Self.store(in: directory)
        let out = directory.url.appendingPathComponent("out"), folder = out.appendingPathComponent(Self.month)
        var refused: RouteLogError?
        try ParquetExporter.export(store, to: out, options: Self.options(.month)) { done, _ in
            guard done == 2, refused == nil else { return }
            refused = #expect(throws: RouteLogError.self) { try ParquetExporter.export(store, to: folder) }
        }
        #expect(refused?.code == .invalidArgument && refused?.path == folder.path, "\(String(describing: refused))")
        try Self.expectListsAgreeWithTables(in: out)
        try store.close()
    }

    /// An export started from the progress of another, on the thread that holds the
    /// other's folder, never waits for a directory a third export holds: that one may be
    /// waiting for the folder this thread holds, and neither would ever go on. Here the
    /// export into the month folder holds it; the export by month into the directory
    /// above holds that directory and waits for the folder; an export into the directory
    /// started from the first one's progress is refused with `.locked` at once, without
    /// waiting (its `waiting` is never called), and the other two end as they would.
    @Test(.timeLimit(.minutes(2))) func anExportFromAProgressNeverWaitsForAnExportThatWaitsForItsThread() throws {
        let directory = TemporaryDirectory()
        let store = try Self.store(in: directory)
        let out = directory.url.appendingPathComponent("out"), folder = out.appendingPathComponent(Self.month)
        let second = Second()
        var nested: String?, nestedWaits = 0
        try ParquetExporter.export(store, to: folder, options: Self.options(.none)) { done, _ in
            guard done == 1, nested == nil else { return }
            // The export by month locks `out`, writes January, and waits for February.
            second.start { waiting in
                try ParquetExporter.export(store, to: out, options: Self.options(.month), waiting: waiting)
            }
            #expect(second.waits.withLock { $0 } == 1, "the export by month did not wait for the month folder")
            do {
                // (A wait bounded, so that an export that does wait ends, and the test with it.)
                try ParquetExporter.export(store, to: out, options: Self.options(.month, wait: 5), waiting: { nestedWaits += 1 })
                nested = "ok"
            } catch let error as RouteLogError {
                nested = "\(error.code): \(error.path ?? "")"
            } catch {
                nested = "\(error)"
            }
        }
        #expect(nested == "locked: \(out.path)")
        #expect(nestedWaits == 0, "the export started from the progress waited while its thread held the month folder")
        #expect(second.ended() == "ok")
        #expect(ExportPartContents.read(in: folder)?.ids(atMost: 100)?.count == 1, "the export by month wrote the folder last")
        try Self.expectListsAgreeWithTables(in: out)
        try store.close()
        #expect(ParquetExportDescriptorTests.held(under: directory.url) == [], "left open: \(ParquetExportDescriptorTests.held(under: directory.url))")
    }

    /// A month folder renamed away, and another directory made at its name, while an
    /// export by month waits for its lock: once it has the lock, the export finds that the
    /// name no longer leads to that folder, opens the name again and writes the directory
    /// there now; the folder renamed away keeps the other export's tables and nothing of
    /// this one's (no temporary file either).
    @Test(.timeLimit(.minutes(2))) func aMonthFolderReplacedWhileAnExportWaitsForItIsOpenedAgain() throws {
        let directory = TemporaryDirectory()
        let store = try Self.store(in: directory)
        let out = directory.url.appendingPathComponent("out"), folder = out.appendingPathComponent(Self.month)
        let away = directory.url.appendingPathComponent("moved")
        let second = Second()
        try Self.exportIntoTheFolder(store, folder, starting: second) {
            #expect(second.waits.withLock { $0 } == 1, "the export by month did not wait for the month folder")
            #expect(rename(folder.path, away.path) == 0)
            #expect(mkdir(folder.path, 0o755) == 0)
        }
        #expect(second.ended() == "ok")
        #expect(ExportPartContents.read(in: folder)?.ids(atMost: 100)?.count == 1, "the folder at the name holds the export by month's route")
        #expect(ExportPartContents.read(in: away)?.ids(atMost: 100)?.count == 3, "the folder renamed away holds the other export's routes")
        let left = try FileManager.default.contentsOfDirectory(atPath: away.path)
        #expect(Set(left) == [ParquetExporter.routesFileName, ParquetExporter.pointsFileName, ExportPartContents.fileName], "\(left)")
        try Self.expectListsAgreeWithTables(in: out)
        try store.close()
        #expect(ParquetExportDescriptorTests.held(under: directory.url) == [], "left open: \(ParquetExportDescriptorTests.held(under: directory.url))")
    }

    /// The reverse order: a plain export into the month folder holds it, and the export
    /// by month into the directory above waits for it on reaching that folder, then
    /// writes it.
    @Test(.timeLimit(.minutes(2))) func anExportByMonthWaitsForAnExportIntoOneOfItsFolders() throws {
        let directory = TemporaryDirectory()
        let store = try Self.store(in: directory)
        let out = directory.url.appendingPathComponent("out"), folder = out.appendingPathComponent(Self.month)
        let second = Second()
        try Self.exportIntoTheFolder(store, folder, starting: second)
        #expect(second.ended() == "ok")
        #expect(second.waits.withLock { $0 } == 1, "the export by month did not wait for the month folder")
        // The export by month wrote the folder last: its one route is listed there.
        #expect(ExportPartContents.read(in: folder)?.ids(atMost: 100)?.count == 1)
        try Self.expectListsAgreeWithTables(in: out)
        try store.close()
    }

    /// The export by month with a wait too short is refused at the month folder, with
    /// `.locked` naming the folder; none of its tables is put in place, and the other
    /// export's tables are whole.
    @Test(.timeLimit(.minutes(2))) func anExportByMonthWithAShortWaitIsRefusedAtTheFolder() throws {
        let directory = TemporaryDirectory()
        let store = try Self.store(in: directory)
        let out = directory.url.appendingPathComponent("out"), folder = out.appendingPathComponent(Self.month)
        let second = Second()
        try Self.exportIntoTheFolder(store, folder, starting: second, wait: 0)
        #expect(second.ended() == "locked: \(folder.path)")
        #expect(second.waits.withLock { $0 } == 1)
        let january = out.appendingPathComponent("start_month=2024-01")
        #expect(!FileManager.default.fileExists(atPath: january.appendingPathComponent(ParquetExporter.routesFileName).path))
        #expect(ExportPartContents.read(in: folder)?.ids(atMost: 100)?.count == 3)
        try Self.expectListsAgreeWithTables(in: folder)
        try store.close()
    }

    /// A month folder that is the store's own directory is refused, as the export's
    /// directory is: its writer holds an flock on it, and tables do not go into a store.
    @Test func aMonthFolderThatIsTheStoresDirectoryIsRefused() throws {
        let directory = TemporaryDirectory()
        let out = directory.url.appendingPathComponent("out"), folder = out.appendingPathComponent("start_month=2024-01")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let store = try RouteStore(at: folder, options: .init(durability: .buffered, compaction: .manual))
        var generator = WalkGenerator(seed: 5)
        _ = try store.save(generator.walk(points: 30, start: Date(timeIntervalSince1970: 1_704_067_200)))
        let refused = #expect(throws: RouteLogError.self) { try ParquetExporter.export(store, to: out, options: Self.options(.month, wait: 0)) }
        #expect(refused?.code == .invalidArgument && refused?.path == folder.path, "\(String(describing: refused))")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(ParquetExporter.routesFileName).path))
        try store.close()
    }
}
