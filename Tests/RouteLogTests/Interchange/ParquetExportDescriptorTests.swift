import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog
import RouteLogSamples

/// Exports that end well and exports that fail (a file at a month folder's name, a month
/// folder swapped mid-export), exports from a read-only handle, and writers that moved
/// a torn tail into `lost/` opened and closed: once each ends (and its store is closed),
/// no descriptor of this process is left open on anything under their directory.
@Suite struct ParquetExportDescriptorTests {
    /// This process's descriptors open on something under `directory`.
    static func held(under directory: URL) -> [String] {
        let root = directory.resolvingSymlinksInPath().path
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.compactMap { fd in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)"),
                  target == root || target.hasPrefix(root + "/") else { return nil }
            return target
        }
    }

    func exports(in directory: TemporaryDirectory) throws {
        let url = directory.store()
        let store = try RouteStore(at: url, options: .init(durability: .buffered, compaction: .manual))
        var generator = WalkGenerator(seed: 3)
        for i in 0..<4 {
            _ = try store.save(generator.walk(points: 30 + i, start: Date(timeIntervalSince1970: 1_704_067_200 + Double(i) * 40 * 86_400)))
        }
        let out = directory.url.appendingPathComponent("out")
        var options = ParquetExportOptions(partitioning: .month)
        options.routesPerRowGroup = 1
        for _ in 0..<5 {
            try ParquetExporter.export(store, to: out, options: options)
            try ParquetExporter.export(store, to: out, options: .init())
        }
        // A file at a month folder's name.
        let taken = directory.url.appendingPathComponent("taken")
        try FileManager.default.createDirectory(at: taken, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: taken.appendingPathComponent("start_month=2024-03"))
        #expect(throws: RouteLogError.self) { try ParquetExporter.export(store, to: taken, options: options) }
        // A month folder replaced mid-export.
        let month = out.appendingPathComponent("start_month=2024-01"), aside = directory.url.appendingPathComponent("aside")
        var swapped = false
        #expect(throws: RouteLogError.self) {
            try ParquetExporter.export(store, to: out, options: options) { done, _ in
                guard done == 2, !swapped else { return }
                swapped = true
                #expect(rename(month.path, aside.path) == 0)
                #expect(mkdir(month.path, 0o755) == 0)
            }
        }
        try store.close()
    }

    @Test func noDescriptorIsLeftOpenByExportsThatEndedOrFailed() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/fd") else { return }
        let directory = TemporaryDirectory()
        // (A closed store keeps its LOCK and segment descriptors until it is let go.)
        do { try exports(in: directory) }
        do {
            let reader = try RouteStore(at: directory.store(), options: .init(mode: .readOnly))
            try ParquetExporter.export(reader, to: directory.url.appendingPathComponent("fromReader"), options: .init(partitioning: .month))
            _ = try reader.statistics()
            try reader.close()
        }
        #expect(Self.held(under: directory.url) == [], "left open: \(Self.held(under: directory.url))")
    }

    @Test func noDescriptorIsLeftOpenByWritersThatUsedLost() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/fd") else { return }
        let dir = TemporaryDirectory()
        let (url, _, _, _) = try RouteStoreRecoveryTests.storeWithTornTail(dir)
        for _ in 0..<5 {
            let store = try RouteStore(at: url)
            _ = try store.statistics()
            _ = try store.verify()
            try store.close()
        }
        #expect(Self.held(under: dir.url) == [], "left open: \(Self.held(under: dir.url))")
    }

    /// Exports that met at a month folder (ParquetExportMonthFolderLockTests): one that
    /// waited for it, one refused there with `.locked` (into the folder, and by month
    /// into the directory above), one refused on the thread that held it. Once they end,
    /// nothing is left open under their directory.
    @Test(.timeLimit(.minutes(2))) func noDescriptorIsLeftOpenByExportsThatMetAtAMonthFolder() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/fd") else { return }
        typealias Meeting = ParquetExportMonthFolderLockTests
        let dir = TemporaryDirectory()
        do {
            let store = try Meeting.store(in: dir)
            let out = dir.url.appendingPathComponent("out"), folder = out.appendingPathComponent(Meeting.month)
            for wait in [ExportDirectoryLock.defaultWait, 0] {
                let second = Meeting.Second()
                try Meeting.exportByMonth(store, into: out, starting: second) { waiting in
                    try ParquetExporter.export(store, to: folder, options: Meeting.options(.month, wait: wait), waiting: waiting)
                }
                #expect(second.ended() == (wait > 0 ? "ok" : "locked: \(folder.path)"))
                let other = Meeting.Second()
                var started = false
                try ParquetExporter.export(store, to: folder, options: Meeting.options(.none)) { done, _ in
                    guard done == 1, !started else { return }
                    started = true
                    other.start { waiting in
                        try ParquetExporter.export(store, to: out, options: Meeting.options(.month, wait: wait), waiting: waiting)
                    }
                }
                #expect(other.ended() == (wait > 0 ? "ok" : "locked: \(folder.path)"))
            }
            var refused = false
            try ParquetExporter.export(store, to: out, options: Meeting.options(.month)) { done, _ in
                guard done == 2, !refused else { return }
                refused = (try? ParquetExporter.export(store, to: folder)) == nil
            }
            #expect(refused)
            try store.close()
        }
        #expect(Self.held(under: dir.url) == [], "left open: \(Self.held(under: dir.url))")
    }
}
