import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// A month folder swapped for another directory while an export by month waits for its
/// lock: the export opens the name again, and waits again when the new folder is held.
/// Here the test holds the folder (an flock on its own descriptor, as another export
/// would) and, each time the export says it waits, renames it away, makes a new one at
/// its name (held too, while it swaps again) and lets the old one go. One swap is met by
/// opening the name again; a folder that keeps changing ends the export with `.io` naming
/// it after ``ExportFolder/openingsOfAFolderThatKeepsChanging`` openings, with no
/// temporary table left anywhere and no descriptor open. The export's own directory,
/// removed each time the export waits for it, ends the export the same way.
@Suite struct ParquetExportChangingMonthFolderTests {
    /// The folder at a month folder's name, held locked; swapped for a new one each time
    /// the export waits, at most `swaps` times: renamed away, or removed when `removing`.
    final class SwappedFolder: @unchecked Sendable {
        let folder: URL
        let swaps: Int
        let removing: Bool
        private(set) var waits = 0
        private(set) var aside: [URL] = []
        private var held: Int32 = -1

        init(_ folder: URL, swaps: Int, removing: Bool = false) throws {
            self.folder = folder
            self.swaps = swaps
            self.removing = removing
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            held = Self.lock(folder)
        }

        /// An flock on a descriptor of the directory at `url`, as an export's.
        static func lock(_ url: URL) -> Int32 {
            let fd = open(url.path, O_RDONLY | O_DIRECTORY)
            #expect(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
            return fd
        }

        /// The export waits for the folder: the folder goes, and a new one, held unless
        /// this was the last swap, takes its name.
        func swap() {
            waits += 1
            guard waits <= swaps else { return }
            if removing {
                #expect(rmdir(folder.path) == 0)
            } else {
                let away = folder.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("away-\(waits)")
                #expect(rename(folder.path, away.path) == 0)
                aside.append(away)
            }
            #expect(mkdir(folder.path, 0o755) == 0)
            let old = held
            held = waits < swaps ? Self.lock(folder) : -1
            close(old)
        }

        /// Lets the folder at the name go.
        func release() {
            if held >= 0 { close(held) }
            held = -1
        }
    }

    /// The temporary names left under `directory`, at any depth.
    static func temporaryFiles(under directory: URL) -> [String] {
        let walker = FileManager.default.enumerator(atPath: directory.path)
        return (walker?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".tmp") }
    }

    /// Exports three walks (January to March 2024) by month into `out`, the February
    /// folder held and swapped as `swapped` says; stops waiting after 5 s.
    func export(_ store: RouteStore, into out: URL, _ swapped: SwappedFolder) -> Result<ParquetExportReport, RouteLogError> {
        var options = ParquetExportOptions(partitioning: .month)
        options.directoryWait = 5
        do {
            return .success(try ParquetExporter.export(store, to: out, options: options, waiting: { swapped.swap() }))
        } catch let error as RouteLogError {
            return .failure(error)
        } catch {
            return .failure(RouteLogError(.io, "\(error)"))
        }
    }

    @Test func aMonthFolderThatKeepsChangingEndsTheExport() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/fd") else { return }
        let directory = TemporaryDirectory()
        let store = try ParquetExportDirectoryTests().walks(3, in: directory)
        let out = directory.url.appendingPathComponent("out")
        let limit = ExportFolder.openingsOfAFolderThatKeepsChanging
        // More swaps than the export may open: without a bound it would go on until the
        // swaps run out.
        let swapped = try SwappedFolder(out.appendingPathComponent("start_month=2024-02"), swaps: limit * 4)
        let result = export(store, into: out, swapped)
        swapped.release()
        guard case .failure(let error) = result else {
            Issue.record("the export ended well after \(swapped.waits) swaps")
            return
        }
        #expect(error.code == .io && error.path == swapped.folder.path, "\(error)")
        #expect(error.message.contains("\(limit) times"), "\(error.message)")
        #expect(swapped.waits == limit, "the export opened the folder \(swapped.waits) times")
        #expect(Self.temporaryFiles(under: directory.url).isEmpty, "left: \(Self.temporaryFiles(under: directory.url))")
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("start_month=2024-01/routes.parquet").path),
                "a table was put in place")
        for away in swapped.aside {
            #expect(try FileManager.default.contentsOfDirectory(atPath: away.path).isEmpty, "written into \(away.lastPathComponent)")
        }
        #expect(ParquetExportDescriptorTests.held(under: out) == [], "left open: \(ParquetExportDescriptorTests.held(under: out))")
        try store.close()
        #expect(ParquetExportDescriptorTests.held(under: directory.url) == [], "left open: \(ParquetExportDescriptorTests.held(under: directory.url))")
    }

    /// The export's directory, held by another export, removed and made again each time
    /// the export waits for it: the export makes it again and waits again, up to the
    /// bound, then fails with `.io` naming it, having written nothing.
    @Test func anExportDirectoryThatKeepsBeingRemovedEndsTheExport() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/fd") else { return }
        let directory = TemporaryDirectory()
        let store = try ParquetExportDirectoryTests().walks(3, in: directory)
        let out = directory.url.appendingPathComponent("out")
        let limit = ExportFolder.openingsOfAFolderThatKeepsChanging
        let swapped = try SwappedFolder(out, swaps: limit * 4, removing: true)
        let result = export(store, into: out, swapped)
        swapped.release()
        guard case .failure(let error) = result else {
            Issue.record("the export ended well after \(swapped.waits) removals")
            return
        }
        #expect(error.code == .io && error.path == out.path, "\(error)")
        #expect(swapped.waits == limit, "the export made the directory \(swapped.waits) times")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
        try store.close()
        #expect(ParquetExportDescriptorTests.held(under: directory.url) == [], "left open: \(ParquetExportDescriptorTests.held(under: directory.url))")
    }

    /// Swapped once: the export opens the name again, finds the new folder free, and
    /// writes it; the folder renamed away gets nothing.
    @Test func aMonthFolderSwappedOnceIsOpenedAgain() throws {
        let directory = TemporaryDirectory()
        let store = try ParquetExportDirectoryTests().walks(3, in: directory)
        let out = directory.url.appendingPathComponent("out")
        let swapped = try SwappedFolder(out.appendingPathComponent("start_month=2024-02"), swaps: 1)
        let result = export(store, into: out, swapped)
        swapped.release()
        let report = try result.get()
        #expect(report.partitions == ["2024-01", "2024-02", "2024-03"])
        #expect(swapped.waits == 1)
        #expect(ExportPartContents.read(in: swapped.folder)?.ids(atMost: 10)?.count == 1, "the folder at the name holds February's route")
        #expect(try FileManager.default.contentsOfDirectory(atPath: swapped.aside[0].path).isEmpty)
        #expect(Self.temporaryFiles(under: directory.url).isEmpty)
        try store.close()
    }
}
