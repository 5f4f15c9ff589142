import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import RouteLog

/// close() racing the handle's other work on other threads: reads, scans, verify(),
/// statistics(), exports, backups, compactions, saves, and a read-only handle's catch-up
/// with a writer. Each worker runs until the handle refuses it (`.closed`); once all
/// have stopped, nothing is left open under the store, and the store opens again.
@Suite struct ClosedStoreDescriptorRaceTests {
    enum Work: String, CaseIterable, Sendable {
        case reads, scans, verify, statistics, export, backup, compaction, saves
    }

    /// Runs `work` on `store` until it throws `.closed`; any other error is recorded.
    static func loop(_ work: Work, on store: RouteStore, ids: [RouteID], dir: TemporaryDirectory, worker: Int) {
        var round = 0
        while true {
            round += 1
            do {
                switch work {
                case .reads: _ = try store.route(ids[round % ids.count])
                case .scans: _ = try store.summaries()
                case .verify: _ = try store.verify()
                case .statistics: _ = try store.statistics()
                case .export:
                    try ParquetExporter.export(store, to: dir.url.appendingPathComponent("out-\(worker)"), options: .init())
                case .backup: _ = try store.backup(to: dir.url.appendingPathComponent("backup-\(worker).routelog"))
                case .compaction: _ = try store.compact()
                case .saves: _ = try store.save(Fixtures.sampleWalk(seed: UInt64(1_000 + round), points: 30))
                }
            } catch let error as RouteLogError where error.code == .closed {
                return
            } catch {
                Issue.record("\(work) failed other than by the close: \(error)")
                return
            }
        }
    }

    @Test(arguments: [false, true]) func closeRacingEveryKindOfWorkLeavesNothingOpen(readOnly: Bool) throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/fd") else { return }
        let dir = TemporaryDirectory()
        let url = dir.store()
        var options = RouteStore.Options(durability: .buffered, segmentSizeLimit: 8 << 10, compaction: .manual)
        options.openSegmentFileLimit = 3
        var saved: [RouteID] = []
        do {
            let store = try RouteStore(at: url, options: options)
            for seed in 0..<24 { saved.append(try store.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 120))) }
            for id in saved.prefix(6) { try store.delete(id) }
            try store.close()
        }
        let ids = Array(saved.dropFirst(6))
        var rng = SeededGenerator(state: readOnly ? 7 : 5)
        for round in 0..<24 {
            // A read-only handle follows a writer that saves meanwhile.
            let writer = readOnly ? try RouteStore(at: url, options: options) : nil
            var handleOptions = options
            if readOnly { handleOptions.mode = .readOnly }
            let store = try RouteStore(at: url, options: handleOptions)
            if readOnly { store.startFollowingWriter() }
            let group = DispatchGroup()
            // A read-only handle neither saves nor compacts.
            let works = Work.allCases.filter { !readOnly || ($0 != .saves && $0 != .compaction) }
            for (worker, work) in works.enumerated() {
                group.enter()
                Thread.detachNewThread {
                    Self.loop(work, on: store, ids: ids, dir: dir, worker: worker)
                    group.leave()
                }
            }
            if let writer {
                for seed in 0..<3 { _ = try writer.save(Fixtures.sampleWalk(seed: UInt64(500 + round * 3 + seed), points: 30)) }
            }
            usleep(UInt32.random(in: 0...20_000, using: &rng))
            try store.close()
            #expect(group.wait(timeout: .now() + 60) == .success, "round \(round): work still running after close()")
            let left = ParquetExportDescriptorTests.held(under: url)
            // The writer of a read-only round holds its own files: only the closed handle's count.
            if let writer {
                try writer.close()
                #expect(ParquetExportDescriptorTests.held(under: url).isEmpty, "round \(round): open after both closed")
            } else {
                #expect(left.isEmpty, "round \(round): still open after close() and its racing work: \(left)")
            }
            withExtendedLifetime(store) {}
        }
        let reopened = try RouteStore(at: url, options: options)
        _ = try reopened.verify()
        try reopened.close()
    }
}
