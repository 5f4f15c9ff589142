import Foundation
import Testing
@testable import RouteLog

/// close() racing a compaction: one thread compacts in a loop, another closes the
/// handle at a random moment; then a new writer opens the same store, compacts and
/// saves. The store must open every time, with every acknowledged change, and nothing
/// may touch its files once close() has returned.
@Suite(.tags(.slow)) struct CloseDuringCompactionTests {
    static let options = RouteStore.Options(durability: .buffered, segmentSizeLimit: 16 * 1024, compaction: .manual)

    /// The store's files and their sizes.
    static func listing(_ url: URL) throws -> [String: Int] {
        var files: [String: Int] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: url.path) {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.appendingPathComponent(name).path)
            files[name] = (attributes[.size] as? NSNumber)?.intValue ?? -1
        }
        return files
    }

    @Test func closeDuringCompactionLosesNothingAndLeavesNothingRunning() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        var live = Set<RouteID>()
        var seed: UInt64 = 1
        var rng = SeededGenerator(state: 11)
        var interrupted = 0
        do {
            let store = try RouteStore(at: url, options: Self.options)
            for _ in 0..<300 {
                live.insert(try store.save(Fixtures.sampleWalk(seed: seed, points: 40)))
                seed += 1
            }
            try store.close()
        }
        var metAtWork = 0
        for iteration in 0..<100 {
            // Every fourth round, close() comes while the compaction is at work for sure:
            // its first file created waits until close() has begun. The others close
            // at a random moment.
            let paced = iteration % 4 == 0
            let fs = HookedFileSystem()
            let store = try RouteStore(at: url, options: Self.options, fileSystem: fs)
            let atWork = StateLock(false)
            // Fresh dead bytes for the compactions of this round.
            for id in live.sorted().shuffled(using: &rng).prefix(12) {
                try store.delete(id)
                live.remove(id)
            }
            for _ in 0..<12 {
                live.insert(try store.save(Fixtures.sampleWalk(seed: seed, points: 40)))
                seed += 1
            }
            let stopped = DispatchSemaphore(value: 0)
            let finished = StateLock(0)
            let compactor = Thread {
                // Compacts until the handle is closed under it.
                while (try? store.compact()) != nil { finished.withLock { $0 += 1 } }
                stopped.signal()
            }
            if paced {
                let handle = WeakStore(store)
                fs.before { call, _ in
                    guard call == "create", atWork.withLock({ was in defer { was = true }; return !was }) else { return }
                    _ = QuietSyncTests.eventually { handle.store?.state.withLock { $0.lifecycle != .open } ?? true }
                }
            }
            compactor.start()
            let pause = UInt32.random(in: 0...15_000, using: &rng)
            if paced {
                #expect(QuietSyncTests.eventually { atWork.withLock { $0 } || finished.withLock { $0 } > 0 })
            } else {
                usleep(pause)
            }
            try store.close()
            fs.before(nil)
            let closedAt = try Self.listing(url)
            #expect(stopped.wait(timeout: .now() + 10) == .success, "iteration \(iteration): compact() still running after close()")
            usleep(5_000)
            #expect(try Self.listing(url) == closedAt, "iteration \(iteration): files changed after close() returned")
            if finished.withLock({ $0 }) == 0 { interrupted += 1 }
            if paced && atWork.withLock({ $0 }) {
                metAtWork += 1
                #expect(finished.withLock { $0 } == 0, "iteration \(iteration): the compaction closed under finished")
            }
            // A compaction that gave up took its files with it: only what MANIFEST lists is left.
            let manifest = try #require(try Manifest.read(in: url.path, fileSystem: PosixFileSystem.shared))
            let listed = Set(manifest.segments.map(FormatConstants.segmentName) + [FormatConstants.indexName(manifest.indexFile)])
            let numbered = Set(closedAt.keys.filter { $0.hasPrefix("seg-") || $0.hasPrefix("index-") })
            #expect(numbered == listed, "iteration \(iteration): \(numbered.subtracting(listed)) left behind")

            // A new writer, as soon as the first let go: compacts and saves.
            let next = try RouteStore(at: url, options: Self.options)
            try next.compact()
            for _ in 0..<3 {
                live.insert(try next.save(Fixtures.sampleWalk(seed: seed, points: 40)))
                seed += 1
            }
            #expect(Set(try next.summaries().map(\.id)) == live, "iteration \(iteration)")
            try next.close()
        }
        // The race was met: the paced closes came while the round's first compaction was
        // at work, unless it found nothing that paid to rewrite (2 of 25 in a run here).
        #expect(metAtWork >= 10, "only \(metAtWork) of 25 paced closes met a compaction at work (\(interrupted) in all)")
        let reopened = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(Set(try reopened.summaries().map(\.id)) == live)
        let report = try reopened.verify()
        #expect(report.isClean, "\(report.problems.map(\.message))")
    }

    @Test func everyCallAfterCloseThrowsTheSameError() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        let id = try store.save(Fixtures.sampleWalk(points: 20))
        try store.close()
        func isClosed(_ body: () throws -> Void) -> Bool {
            do { try body(); return false } catch let error as RouteLogError { return error.code == .closed } catch { return false }
        }
        #expect(isClosed { _ = try store.route(id) })
        #expect(isClosed { _ = try store.summary(id) })
        #expect(isClosed { _ = try store.summaries() })
        #expect(isClosed { _ = try store.count })
        #expect(isClosed { _ = try store.statistics() })
        #expect(isClosed { _ = try store.verify() })
        #expect(isClosed { _ = try store.totals() })
        #expect(isClosed { _ = try store.weeklyTotals() })
        #expect(isClosed { try store.save(Fixtures.sampleWalk(points: 20)) })
        #expect(isClosed { try store.delete(id) })
        #expect(isClosed { try store.edit(id, RouteEdit(name: "x")) })
        #expect(isClosed { try store.compact() })
        #expect(isClosed { try store.refresh() })
        #expect(isClosed { _ = try store.startRecording() })
        #expect(isClosed { _ = try store.unfinishedRecordings() })
        try store.close()  // a second close does nothing

        let reader = try RouteStore(at: dir.store(), options: .init(mode: .readOnly))
        try reader.close()
        #expect(isClosed { _ = try reader.summaries() })
        #expect(isClosed { _ = try reader.verify() })
        #expect(isClosed { try reader.refresh() })
    }
}

/// A store held without keeping it open: a file-system hook that asks for its state
/// must not be what keeps the handle alive.
final class WeakStore: @unchecked Sendable {
    weak var store: RouteStore?
    init(_ store: RouteStore) { self.store = store }
}
