import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// Attacks on the cut of a refused buffered group (StoreWriter.append, SegmentLog.cutActive):
/// when the counted sync fails and answering the group would leave more than 1,024
/// answered records unsynced, the group fails and its records are truncated off the
/// active segment. The cut must never take an acknowledged change with it, nor leave the
/// store (or a handle following it) damaged.
///
/// After each attack: close (throws after the failed sync), reopen without the failing
/// file system, and check that every answered change is there, no refused one is,
/// verify() is clean and every listed route reads; where a trace is kept, the same for
/// the states a power loss leaves (synced only, the index ahead).
@Suite struct BufferedCutAttackTests {
    typealias A = BufferedSyncIntervalAttackTests
    static let interval = IndexFile.syncInterval

    // MARK: Checks

    /// Reopens `url` without the failing file system and checks: no damage, verify()
    /// clean, every listed route reads, every id of `present` is listed, none of
    /// `refused` (raw ids) or `absent` is, and the summaries in `summaries` are unchanged.
    /// Returns the ids listed.
    @discardableResult
    static func reopenAndCheck(_ url: URL, present: Set<RouteID>, absent: Set<RouteID> = [],
                               refused: Range<UInt64> = 0..<0, summaries: [RouteID: RouteSummary] = [:],
                               _ label: String = "", sourceLocation: SourceLocation = #_sourceLocation) throws -> Set<RouteID> {
        try A.reopenWhole(url, label, sourceLocation: sourceLocation) { reopened, ids in
            let missing = present.subtracting(ids)
            #expect(missing.isEmpty, "\(label): \(missing.count) answered routes lost: \(missing.sorted().prefix(5))",
                    sourceLocation: sourceLocation)
            let back = ids.filter { refused.contains($0.rawValue) }
            #expect(back.isEmpty, "\(label): \(back.count) refused routes listed", sourceLocation: sourceLocation)
            let undeleted = ids.intersection(absent)
            #expect(undeleted.isEmpty, "\(label): \(undeleted.count) deleted routes listed", sourceLocation: sourceLocation)
            for (id, before) in summaries where ids.contains(id) {
                let after = try reopened.summary(id)
                #expect(after == before, "\(label): route \(id) changed by a refused edit", sourceLocation: sourceLocation)
            }
        }
    }

    /// The raw ids a refused save of `count` routes would have had.
    static func nextIDs(_ store: RouteStore, _ count: Int) throws -> Range<UInt64> {
        let next = try store.withWriter { $0.nextRouteID }
        return next..<(next + UInt64(count))
    }

    static func answered(_ w: A.Workload) -> (present: Set<RouteID>, absent: Set<RouteID>) {
        (Set(w.saved.keys.filter { w.deleted[$0] == nil }), Set(w.deleted.keys))
    }

    static func ids(_ store: RouteStore) throws -> Set<RouteID> { Set(try store.summaries().map(\.id)) }

    /// A traced store with the oracle (``BufferedSyncIntervalAttackTests/open(_:options:base:)``)
    /// on a fresh ``CutGateFS``, with its directory and the ids it holds to begin with.
    static func openGated(_ dir: TemporaryDirectory, _ options: RouteStore.Options) throws
        -> (RouteStore, A.Oracle, DirectoryTrace, CutGateFS, URL, Set<RouteID>)
    {
        let gate = CutGateFS()
        let (store, oracle, trace, _) = try A.open(dir, options: options, base: gate)
        return (store, oracle, trace, gate, dir.store(), try ids(store))
    }

    static func fileSize(_ url: URL, _ name: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: url.appendingPathComponent(name).path)[.size] as? NSNumber)?
            .int64Value
    }

    static func segmentNames(_ url: URL) -> Set<String> {
        Set(((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [])
            .filter { $0.hasSuffix(FormatConstants.segmentSuffix) })
    }

    static func bigBatch(_ base: Int, _ n: Int = IndexFile.syncInterval + 60) -> [Route] {
        (0..<n).map { A.route(base + $0) }
    }

    // MARK: Attacks

    /// The group rolls first: its records are the first of a new segment (first offset
    /// = the header size), whose counted sync fails. The cut takes the segment back to
    /// its header; the saves answered before (synced by the roll) stay, and a reopened
    /// store appends after the header as usual.
    @Test func refusedGroupRightAfterARoll() throws {
        let dir = TemporaryDirectory()
        let (store, oracle, trace, gate, url, base) = try Self.openGated(dir, A.options(limit: 64 << 10))
        var w = A.Workload()
        for i in 0..<900 {
            let id = try store.save(A.route(i))
            w.saved[id] = try A.acked(store, oracle, records: 1)
        }
        #expect(try store.withWriter { $0.bufferedSinceSync } > 0)
        let old = Self.segmentNames(url)
        // Only the new segment's data syncs fail (its creation's syncAll passes).
        gate.onSegmentSyncData.withLock { $0 = { path in
            if !old.contains(URL(fileURLWithPath: path).lastPathComponent) { throw Errno(code: EIO) }
        } }
        let batch = Self.bigBatch(100_000)
        let refused = try Self.nextIDs(store, batch.count)
        #expect(throws: (any Error).self) { try store.save(batch) }
        let new = Self.segmentNames(url).subtracting(old)
        #expect(new.count == 1, "the batch did not roll: \(new)")
        for name in new {
            #expect(Self.fileSize(url, name) == Int64(FormatConstants.fileHeaderSize), "\(name) not cut back to its header")
        }
        #expect(throws: (any Error).self) { try store.close() }
        gate.onSegmentSyncData.withLock { $0 = nil }
        try A.checkPowerLoss(trace, dir, oracle, w)
        let live = base.union(w.saved.keys)
        let ids = try Self.reopenAndCheck(url, present: live, refused: refused, "after the cut")
        #expect(ids == live)
        // The next writer appends after the header of the cut segment.
        let again = try RouteStore(at: url, options: A.options(.buffered))
        let more = try again.save((0..<50).map { A.route(200_000 + $0) })
        try again.close()
        let after = try Self.reopenAndCheck(url, present: live.union(more), "after appending to the cut segment")
        #expect(after == live.union(more))
    }

    /// One group of many concurrent changes, the first in line refused by itself, then
    /// saves, deletes, edits, a recording's chunk, another's finish and a new
    /// recording's start; 1,000 answered records were unsynced before it. The group is
    /// refused: none of its changes shows after a reopen, every one before it does.
    @Test func refusedMixedGroupOfConcurrentChanges() throws {
        let dir = TemporaryDirectory()
        let (store, oracle, trace, gate, url, base) = try Self.openGated(dir, A.options())
        var w = A.Workload()
        let chunky = try store.startRecording(flushPolicy: .init(points: nil, interval: nil))
        let finishing = try store.startRecording(flushPolicy: .init(points: nil, interval: nil))
        for (k, rec) in [chunky, finishing].enumerated() {
            for j in 0..<6 {
                var p = A.route(7_000 + k, points: 8).points[j]
                p.timestamp = Date(timeIntervalSince1970: 1_767_225_600 + Double(j))
                try rec.append(p)
            }
            try rec.flush()
        }
        var live: [RouteID] = []
        while try store.withWriter({ $0.bufferedSinceSync }) < 1_000 {
            let id = try store.save(A.route(live.count))
            w.saved[id] = try A.acked(store, oracle, records: 1, exact: false)
            live.append(id)
        }
        let before = Dictionary(uniqueKeysWithValues: try live.map { ($0, try store.summary($0)) })
        let recordingsBefore = try store.unfinishedRecordings().map { ($0.id, $0.points.count) }
        let refused = try Self.nextIDs(store, 200)
        gate.onSegmentSyncData.withLock { $0 = { _ in throw Errno(code: EIO) } }

        let threads = WriteQueue.maxGroup
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        let answered = StateLock([String]())
        func run(_ label: String, _ body: @escaping @Sendable () throws -> Void) {
            finished.enter()
            Thread {
                started.signal()
                if (try? body()) != nil { answered.withLock { $0.append(label) } }
                finished.leave()
            }.start()
        }
        let liveCopy = live
        try store.withWriter { _ in
            run("delete of an unknown id") { try store.delete(RouteID(9_999_999)) }
            // First in line, alone in its group (it writes nothing): wait till it is.
            let first = Date().addingTimeInterval(30)
            while store.queue.waitingCount < 1 && Date() < first { Thread.sleep(forTimeInterval: 0.001) }
            for t in 0..<(threads - 4) {
                switch t % 3 {
                case 0: run("save \(t)") { _ = try store.save([A.route(300_000 + t), A.route(400_000 + t)]) }
                case 1: run("delete \(t)") { try store.delete(liveCopy[t]) }
                default: run("edit \(t)") { _ = try store.edit(liveCopy[t], RouteEdit(shift: 3_600)) }
                }
            }
            run("chunk") {
                var p = A.route(7_000, points: 8).points[6]
                p.timestamp = Date(timeIntervalSince1970: 1_767_225_700)
                try chunky.append(p)
                try chunky.flush()
            }
            run("finish") { _ = try finishing.finish() }
            run("start") { _ = try store.startRecording() }
            for _ in 0..<threads { started.wait() }
            // Every change in line before the writer is let go, however slow the
            // machine: the first leader took its group (itself) on arrival, the rest
            // then go as one group, which its failed sync refuses whole.
            let deadline = Date().addingTimeInterval(30)
            while store.queue.waitingCount < threads && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            #expect(store.queue.waitingCount == threads, "changes in line: \(store.queue.waitingCount)")
        }
        finished.wait()
        #expect(answered.withLock { $0 }.isEmpty, "answered in the refused group: \(answered.withLock { $0 })")
        #expect(throws: (any Error).self) { try store.close() }
        gate.onSegmentSyncData.withLock { $0 = nil }
        try A.checkPowerLoss(trace, dir, oracle, w)
        let expected = base.union(w.saved.keys)
        let ids = try Self.reopenAndCheck(url, present: expected, refused: refused, summaries: before, "after the refused group")
        #expect(ids == expected)
        let reopened = try RouteStore(at: url, options: .init(compaction: .manual))
        defer { try? reopened.close() }
        let recordings = try reopened.unfinishedRecordings().map { ($0.id, $0.points.count) }
        #expect(recordings.map(\.0) == recordingsBefore.map(\.0), "recordings \(recordings) before \(recordingsBefore)")
        #expect(recordings.map(\.1) == recordingsBefore.map(\.1), "recording points \(recordings) before \(recordingsBefore)")
    }

    /// A background compaction and index rewrite run in a loop (rolls every 32 KiB,
    /// deletes leaving garbage) while a mixed workload goes on and a large batch is
    /// refused for its failed counted sync.
    @Test(arguments: [1, 2, 3])
    func refusedBatchWhileCompactionAndRewriteRun(seed: UInt64) throws {
        let dir = TemporaryDirectory("race-\(seed)")
        let (store, oracle, trace, gate, url, base) = try Self.openGated(dir, A.options(limit: 32 << 10))
        let stopChurn = A.churnInBackground(store)
        let w = try A.mixed(store, oracle, steps: 250, seed: seed, maxBatch: 40)
        // Fail the counted sync of the batch only: armed right before it, while the
        // background keeps compacting (its own syncs of the active segment may hit it).
        gate.onSegmentSyncData.withLock { $0 = { _ in throw Errno(code: EIO) } }
        let batch = Self.bigBatch(500_000)
        let refused = try Self.nextIDs(store, batch.count)
        #expect(throws: (any Error).self) { try store.save(batch) }
        Thread.sleep(forTimeInterval: 0.05)
        _ = stopChurn()
        #expect(throws: (any Error).self) { try store.close() }
        gate.onSegmentSyncData.withLock { $0 = nil }
        try A.checkPowerLoss(trace, dir, oracle, w)
        let (present, absent) = Self.answered(w)
        try Self.reopenAndCheck(url, present: present.union(base), absent: absent, refused: refused, "after the race")
    }

    /// A read-only handle follows the writer (it refreshes while the batch's sync is in
    /// flight, as a handle with subscribers does on the write's file event). The batch is
    /// refused and cut: the handle must not keep listing the refused routes, whose
    /// records are gone, and must follow the next writer, which appends where the cut was.
    /// With `.full` (a failed sync truncates too, before this change) for comparison.
    @Test(arguments: [RouteStore.Durability.buffered, .full])
    func aReadOnlyHandleFollowingTheWriterForgetsTheRefusedBatch(durability: RouteStore.Durability) throws {
        let dir = TemporaryDirectory("reader-\(durability)")
        let url = dir.store()
        let gate = CutGateFS()
        let store = try RouteStore(at: url, options: A.options(durability), fileSystem: gate)
        var kept = Set<RouteID>()
        for i in 0..<5 { kept.insert(try store.save(A.route(i))) }
        try store.withWriter { try $0.syncActive() }
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        defer { try? reader.close() }
        #expect(try Self.ids(reader) == kept)
        let seenInFlight = StateLock(0)
        gate.onSegmentSyncData.withLock { $0 = { _ in
            // The reader catches up while the sync is in flight, then the sync fails.
            try? reader.refresh()
            let n = (try? reader.summaries().count) ?? 0
            seenInFlight.withLock { $0 = n }
            throw Errno(code: EIO)
        } }
        #expect(throws: (any Error).self) { try store.save(Self.bigBatch(10_000, durability == .full ? 20 : Self.interval + 60)) }
        gate.onSegmentSyncData.withLock { $0 = nil }
        #expect(seenInFlight.withLock { $0 } > kept.count, "the reader did not see the batch in flight")
        try reader.refresh()
        let seen = try Self.ids(reader)
        #expect(seen.subtracting(kept).isEmpty, "the read-only handle lists \(seen.subtracting(kept).count) refused routes after the cut")
        var unreadable = 0
        for id in seen where (try? reader.route(id)) == nil { unreadable += 1 }
        #expect(unreadable == 0, "the read-only handle lists \(unreadable) routes it cannot read")
        try? store.close()  // throws after the failed buffered sync

        // The next writer appends at the cut: the handle follows it.
        let again = try RouteStore(at: url, options: .init(compaction: .manual))
        let later = Set(try again.save((0..<3).map { A.route(50_000 + $0) }))
        let truth = try Self.ids(again)
        let truthRoutes = Dictionary(uniqueKeysWithValues: try truth.map { ($0, try again.route($0)) })
        try again.close()
        try Self.reopenAndCheck(url, present: kept.union(later), "writer's view")
        try reader.refresh()
        let after = try Self.ids(reader)
        #expect(after.count == truth.count, "after the next writer: the reader lists \(after.count) routes, the store \(truth.count)")
        var wrong = 0
        for id in after.intersection(truth) where (try? reader.route(id)) != truthRoutes[id] { wrong += 1 }
        #expect(wrong == 0, "\(wrong) routes read differently through the read-only handle")
        let report = try reader.verify()
        #expect(report.problems.isEmpty, "the read-only handle's verify(): \(report.problems.count) problems, first: \(report.problems.first.map { $0.message } ?? "")")
    }

    /// The quiet-sync timer (a few ms) running, and the failure transient: the syncs
    /// after the failed one would succeed. Nothing may sync the refused batch's held
    /// index records after the cut (the timer, a compaction, an index rewrite): an index
    /// vouching for cut records would be damage at the next open.
    @Test func transientFailureWithTheQuietSyncTimer() throws {
        let dir = TemporaryDirectory()
        let (store, oracle, trace, gate, url, base) = try Self.openGated(dir, A.options(quiet: 0.003))
        var w = A.Workload()
        for i in 0..<700 {
            let id = try store.save(A.route(i))
            w.saved[id] = try A.acked(store, oracle, records: 1, exact: false)
        }
        let once = StateLock(true)
        gate.onSegmentSyncData.withLock { $0 = { _ in
            if once.withLock({ let f = $0; $0 = false; return f }) { throw Errno(code: EIO) }
        } }
        let batch = Self.bigBatch(100_000)
        let refused = try Self.nextIDs(store, batch.count)
        #expect(throws: (any Error).self) { try store.save(batch) }
        #expect(!once.withLock { $0 }, "the batch's sync did not fail")
        Thread.sleep(forTimeInterval: 0.05)
        #expect(throws: (any Error).self) { try store.compact() }
        #expect(throws: (any Error).self) { _ = try BackgroundIndexRewrite(store: store).run(evenIfFew: true) }
        Thread.sleep(forTimeInterval: 0.02)
        #expect(throws: (any Error).self) { try store.close() }
        gate.onSegmentSyncData.withLock { $0 = nil }
        try A.checkPowerLoss(trace, dir, oracle, w)
        let ids = try Self.reopenAndCheck(url, present: base.union(w.saved.keys), refused: refused, "after the transient failure")
        #expect(ids == base.union(w.saved.keys))
    }

    /// The cut's truncate fails too (best effort, documented): the refused records stay
    /// in the segment. The store must still be whole; that the refused batch comes back
    /// is the documented limit of the best effort.
    @Test func theCutItselfFails() throws {
        let dir = TemporaryDirectory()
        let (store, oracle, trace, gate, url, base) = try Self.openGated(dir, A.options())
        var w = A.Workload()
        for i in 0..<300 {
            let id = try store.save(A.route(i))
            w.saved[id] = try A.acked(store, oracle, records: 1)
        }
        gate.onSegmentSyncData.withLock { $0 = { _ in throw Errno(code: EIO) } }
        gate.failSegmentTruncate.withLock { $0 = true }
        let batch = Self.bigBatch(100_000)
        let refused = try Self.nextIDs(store, batch.count)
        #expect(throws: (any Error).self) { try store.save(batch) }
        #expect(throws: (any Error).self) { try store.close() }
        gate.onSegmentSyncData.withLock { $0 = nil }
        gate.failSegmentTruncate.withLock { $0 = false }
        try A.checkPowerLoss(trace, dir, oracle, w)
        // Whatever is listed reads, and the store is whole.
        let ids = try Self.reopenAndCheck(url, present: base.union(w.saved.keys), "after a failed cut")
        // The documented limit of the best effort: with the truncate refused, the whole
        // refused batch is still in the segment and reads back, all of it (each listed
        // route was read by reopenAndCheck), never part of it.
        let back = ids.filter { refused.contains($0.rawValue) }.count
        #expect(back == batch.count, "\(back) of the \(batch.count) refused routes read back")
    }

    /// Refused batches at many sizes and positions (after 0...1,023 answered unsynced
    /// records, with 1 or 2 records per change, rolls at 48 KiB): the cut lands on a
    /// frame boundary, and the records before it are all there.
    @Test func cutAtManyPositions() throws {
        var g = SeededGenerator(state: 99)
        for round in 0..<6 {
            let dir = TemporaryDirectory("positions-\(round)")
            let gate = CutGateFS()
            let (store, oracle, trace, _) = try A.open(dir, options: A.options(limit: 48 << 10), base: gate)
            let base = try Self.ids(store)
            var w = A.Workload()
            let answered = Int.random(in: 0..<Self.interval, using: &g)
            var n = 0
            while n < answered {
                let k = min(Int.random(in: 1...3, using: &g), answered - n)
                let ids = try store.save((0..<k).map { A.route(round * 10_000 + n + $0) })
                let place = try A.acked(store, oracle, records: k, exact: false)
                for id in ids { w.saved[id] = place }
                n += k
            }
            let pending = try store.withWriter { $0.bufferedSinceSync }
            let size = max(Self.interval + 1 - pending, 1) + Int.random(in: 0..<40, using: &g)
            gate.onSegmentSyncData.withLock { $0 = { _ in throw Errno(code: EIO) } }
            let activeBefore = try store.withWriter { ($0.log.active.path, $0.log.active.end) }
            let refusedIDs = try Self.nextIDs(store, size)
            let refused = (try? store.save((0..<size).map { A.route(900_000 + round * 10_000 + $0) })) == nil
            let activeAfter = try store.withWriter { ($0.log.active.path, $0.log.active.end) }
            if refused && activeAfter.0 == activeBefore.0 {
                #expect(Self.fileSize(URL(fileURLWithPath: activeBefore.0).deletingLastPathComponent(),
                                      URL(fileURLWithPath: activeBefore.0).lastPathComponent) == activeBefore.1,
                        "round \(round): the segment was not cut back to where the batch began")
            }
            try? store.close()
            gate.onSegmentSyncData.withLock { $0 = nil }
            try A.checkPowerLoss(trace, dir, oracle, w)
            #expect(refused, "round \(round): a batch of \(size) after \(pending) pending was answered")
            try Self.reopenAndCheck(dir.store(), present: base.union(w.saved.keys), refused: refused ? refusedIDs : 0..<0,
                                    "round \(round)")
        }
    }
}

/// The real file system without syncs, but: before each data sync of a segment (not a
/// new file's syncAll), `onSegmentSyncData` runs and may block, look around, or throw;
/// segment truncations fail once `failSegmentTruncate` is set.
final class CutGateFS: ForwardingFileSystem, @unchecked Sendable {
    let base: any FileSystem = PosixFileSystem.shared
    let onSegmentSyncData = StateLock<(@Sendable (String) throws -> Void)?>(nil)
    let failSegmentTruncate = StateLock(false)

    private func isSegment(_ file: FileRef) -> Bool { file.path.hasSuffix(FormatConstants.segmentSuffix) }

    private func gate(_ file: FileRef) throws {
        guard isSegment(file), let hook = onSegmentSyncData.withLock({ $0 }) else { return }
        try hook(file.path)
    }

    func truncate(_ file: FileRef, to length: Int64) throws {
        if isSegment(file), failSegmentTruncate.withLock({ $0 }) { throw Errno(code: EIO) }
        try base.truncate(file, to: length)
    }
    func syncData(_ file: FileRef) throws { try gate(file) }
    func syncBarrier(_ file: FileRef) throws { try gate(file) }
    func syncAll(_ file: FileRef) throws {}
    func syncDirectory(_ path: String) throws {}
}
