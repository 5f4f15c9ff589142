import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// Attacks on the promise of the counted buffered sync (StoreWriter.bufferedSinceSync):
/// with buffered durability at most ``IndexFile/syncInterval`` records of acknowledged
/// changes are ever unsynced, whatever the index does, and nothing synced is lost or
/// reported as damage.
///
/// The oracle never asks the writer's counter: it follows the segment files' writes and
/// syncs through the file system, and each acknowledged change's place in its segment.
@Suite struct BufferedSyncIntervalAttackTests {
    static let interval = IndexFile.syncInterval

    static func route(_ i: Int, points: Int = 2) -> Route { Fixtures.sampleWalk(seed: UInt64(i), points: points) }

    static func options(_ durability: RouteStore.Durability = .buffered, limit: Int = 64 << 20,
                        quiet: Double? = nil) -> RouteStore.Options {
        var o = RouteStore.Options(durability: durability, segmentSizeLimit: limit, compaction: .manual)
        o.bufferedQuietSyncDelay = quiet
        return o
    }

    // MARK: The oracle

    /// Follows the segments' written and synced ends (by file name) and the acknowledged
    /// changes (segment, end of their last record, records).
    final class Oracle: @unchecked Sendable {
        private let lock = NSLock()
        private var written: [String: Int64] = [:]
        private var synced: [String: Int64] = [:]
        private var acked: [(name: String, end: Int64, records: Int)] = []
        private(set) var segmentSyncs = 0
        /// The largest count of acknowledged unsynced records seen by ``check``.
        private(set) var worst = 0

        init(_ fs: InterceptingFileSystem) {
            fs.observe { [self] op in
                switch op {
                case .write(let f, let offset, let bytes):
                    let n = Self.name(f.path)
                    guard Self.isSegment(n) else { return }
                    lock.withLock { written[n] = max(written[n, default: 0], offset + Int64(bytes.count)) }
                case .truncate(let f, let length):
                    let n = Self.name(f.path)
                    guard Self.isSegment(n) else { return }
                    lock.withLock { written[n] = min(written[n, default: 0], length) }
                case .syncData(let f), .syncBarrier(let f), .syncAll(let f):
                    let n = Self.name(f.path)
                    guard Self.isSegment(n) else { return }
                    lock.withLock {
                        synced[n] = max(synced[n, default: 0], written[n, default: 0])
                        segmentSyncs += 1
                    }
                default: break
                }
            }
        }

        static func name(_ path: String) -> String { URL(fileURLWithPath: path).lastPathComponent }
        static func isSegment(_ name: String) -> Bool { name.hasSuffix(FormatConstants.segmentSuffix) }

        func ack(name: String, end: Int64, records: Int) {
            guard records > 0 else { return }
            lock.withLock { acked.append((name, end, records)) }
        }

        /// Acknowledged records whose bytes are not all synced.
        var unsyncedAcked: Int {
            lock.withLock {
                acked.reduce(0) { sum, a in
                    a.end > max(synced[a.name, default: 0], Int64(FormatConstants.fileHeaderSize)) ? sum + a.records : sum
                }
            }
        }

        /// The synced ends now.
        var syncedEnds: [String: Int64] { lock.withLock { synced } }

        static func isSynced(_ ends: [String: Int64], name: String, end: Int64) -> Bool {
            end <= max(ends[name, default: 0], Int64(FormatConstants.fileHeaderSize))
        }

        @discardableResult
        func noteWorst() -> Int {
            let u = unsyncedAcked
            lock.withLock { worst = max(worst, u) }
            return u
        }
    }

    /// After a change of `records` records (single-threaded, or in the same lock as the
    /// check): registers it at the active segment's end and checks the bound and that the
    /// writer's counter is what is really unsynced. Returns (segment, end).
    @discardableResult
    static func acked(_ store: RouteStore, _ oracle: Oracle, records: Int, exact: Bool = true,
                      _ label: String = "", sourceLocation: SourceLocation = #_sourceLocation) throws -> (String, Int64) {
        try store.withWriter { w in
            let place = (Oracle.name(w.log.active.path), w.log.active.end)
            oracle.ack(name: place.0, end: place.1, records: records)
            let unsynced = oracle.noteWorst()
            #expect(unsynced <= interval, "\(label): \(unsynced) acknowledged records unsynced",
                    sourceLocation: sourceLocation)
            if exact && w.options.durability == .buffered && w.log.failure == nil {
                #expect(w.bufferedSinceSync == unsynced, "\(label): counter \(w.bufferedSinceSync), really unsynced \(unsynced)",
                        sourceLocation: sourceLocation)
            }
            if w.options.durability != .buffered {
                #expect(unsynced == 0, "\(label): \(w.options.durability) left \(unsynced) unsynced", sourceLocation: sourceLocation)
                #expect(w.bufferedSinceSync == 0, sourceLocation: sourceLocation)
            }
            return place
        }
    }

    /// Saves, batches, deletes, edits and recordings in a seeded mix; returns the ids
    /// saved, when each was acknowledged (segment, end), and the deletes.
    struct Workload {
        var saved: [RouteID: (String, Int64)] = [:]
        var deleted: [RouteID: (String, Int64)] = [:]
        var ops = 0
    }

    static func mixed(_ store: RouteStore, _ oracle: Oracle, steps: Int, seed: UInt64,
                      maxBatch: Int = 300, midway: () -> Void = {}) throws -> Workload {
        var g = SeededGenerator(state: seed)
        var w = Workload()
        var live: [RouteID] = []
        var recorder: RouteRecorder?
        var recordingPoints = 0
        var n = 0
        for step in 0..<steps {
            if step == steps / 2 { midway() }
            let roll = Int.random(in: 0..<100, using: &g)
            switch roll {
            case 0..<50:
                n += 1
                let id = try store.save(route(n))
                w.saved[id] = try acked(store, oracle, records: 1, "step \(step) save")
                live.append(id)
            case 50..<58:
                let k = Int.random(in: 2...maxBatch, using: &g)
                let ids = try store.save((0..<k).map { route(n + 1 + $0) })
                n += k
                let place = try acked(store, oracle, records: k, "step \(step) batch of \(k)")
                for id in ids { w.saved[id] = place }
                live += ids
            case 58..<70 where !live.isEmpty:
                let id = live.remove(at: Int.random(in: 0..<live.count, using: &g))
                try store.delete(id)
                w.deleted[id] = try acked(store, oracle, records: 1, "step \(step) delete")
            case 70..<82 where !live.isEmpty:
                let id = live[Int.random(in: 0..<live.count, using: &g)]
                _ = try store.edit(id, RouteEdit(shift: Double(step)))
                try acked(store, oracle, records: 1, "step \(step) edit")
            default:
                if recorder == nil {
                    recorder = try store.startRecording(flushPolicy: .init(points: nil, interval: nil))
                    recordingPoints = 0
                    try acked(store, oracle, records: 1, "step \(step) recording start")
                }
                let points = Self.route(9_000 + step, points: 8).points
                for p in points {
                    var q = p
                    q.timestamp = Date(timeIntervalSince1970: 1_767_225_600 + Double(recordingPoints))
                    recordingPoints += 1
                    try recorder!.append(q)
                }
                try recorder!.flush()
                try acked(store, oracle, records: 1, "step \(step) recording flush")
                if Int.random(in: 0..<4, using: &g) == 0 {
                    let id = try recorder!.finish()
                    try acked(store, oracle, records: 1, "step \(step) recording finish")
                    live.append(id)
                    recorder = nil
                }
            }
            w.ops += 1
        }
        return w
    }

    /// Opens the store at `url` for writing and checks it whole: no damage at open,
    /// `verify()` clean, every listed route readable; then calls `body` with the store
    /// and the ids listed, before closing it. Returns the ids listed.
    static func reopenWhole(_ url: URL, _ label: String, sourceLocation: SourceLocation = #_sourceLocation,
                            then body: (RouteStore, Set<RouteID>) throws -> Void = { _, _ in }) throws -> Set<RouteID> {
        let reopened = try RouteStore(at: url, options: .init(compaction: .manual))
        defer { try? reopened.close() }
        let damage = reopened.state.withLock { $0.openDamage }
        #expect(damage.isEmpty, "\(label): damage at open \(damage)", sourceLocation: sourceLocation)
        let report = try reopened.verify()
        #expect(report.isClean, "\(label): \(report.problems.prefix(3))", sourceLocation: sourceLocation)
        let ids = Set(try reopened.summaries().map(\.id))
        let unreadable = ids.filter { (try? reopened.route($0)) == nil }
        #expect(unreadable.isEmpty, "\(label): \(unreadable.count) routes listed but unreadable: \(unreadable.sorted().prefix(5))",
                sourceLocation: sourceLocation)
        try body(reopened, ids)
        return ids
    }

    /// Opens the state a power loss leaves (only synced data) and the worst one for the
    /// index, and checks neither has damage and every route saved and synced is there.
    static func checkPowerLoss(_ trace: DirectoryTrace, _ dir: TemporaryDirectory, _ oracle: Oracle,
                               _ w: Workload, store: RouteStore? = nil,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        // The trace and the synced ends taken together: the quiet-sync timer needs the
        // writer lock to sync.
        let (model, ends) = try store.map { s in try s.withWriter { _ in (CrashStateModel(trace), oracle.syncedEnds) } }
            ?? (CrashStateModel(trace), oracle.syncedEnds)
        let end = model.operations.count
        for (label, files) in [("synced only", model.filesSyncedOnly(at: end)),
                               ("index ahead", model.filesWithTheIndexAhead(at: end))] {
            let crashed = dir.store("crashed-\(label.replacingOccurrences(of: " ", with: "-")).routelog")
            try materialize(files, at: crashed)
            let ids = try reopenWhole(crashed, label, sourceLocation: sourceLocation)
            var missing = 0
            for (id, place) in w.saved where Oracle.isSynced(ends, name: place.0, end: place.1) {
                let deletedSynced = w.deleted[id].map { Oracle.isSynced(ends, name: $0.0, end: $0.1) } ?? false
                if !deletedSynced && w.deleted[id] == nil && !ids.contains(id) { missing += 1 }
                if deletedSynced && ids.contains(id) {
                    Issue.record("\(label): \(id) deleted and synced, back after power loss", sourceLocation: sourceLocation)
                }
            }
            #expect(missing == 0, "\(label): \(missing) synced saves lost", sourceLocation: sourceLocation)
            let lost = w.saved.keys.filter { w.deleted[$0] == nil && !ids.contains($0) }.count
            #expect(lost <= interval, "\(label): \(lost) acknowledged saves lost", sourceLocation: sourceLocation)
        }
    }

    /// Opens a store (3 closed routes first) traced, with the oracle.
    static func open(_ dir: TemporaryDirectory, options: RouteStore.Options, base: (any FileSystem)? = nil)
        throws -> (RouteStore, Oracle, DirectoryTrace, InterceptingFileSystem)
    {
        let url = dir.store()
        let first = try RouteStore(at: url, options: .init(compaction: .manual))
        for i in 0..<3 { try first.save(route(100_000 + i)) }
        try first.close()
        let fs = base.map { InterceptingFileSystem(base: $0) } ?? InterceptingFileSystem(skipSyncs: true)
        let trace = try fs.trace(url)
        let store = try RouteStore(at: url, options: options, fileSystem: fs)
        let oracle = Oracle(fs)
        return (store, oracle, trace, fs)
    }

    /// Compacts the store and rewrites its index in turn, on a thread of its own, until
    /// the returned function is called; that waits for the thread and says how many of
    /// each succeeded.
    static func churnInBackground(_ store: RouteStore, counting background: StateLock<(compactions: Int, rewrites: Int)> = StateLock((0, 0)))
        -> () -> (compactions: Int, rewrites: Int)
    {
        let stop = StateLock(false)
        let done = DispatchSemaphore(value: 0)
        Thread {
            var k = 0
            while !stop.withLock({ $0 }) {
                if k % 2 == 0 {
                    if (try? store.compact()) != nil { background.withLock { $0.compactions += 1 } }
                } else if (try? BackgroundIndexRewrite(store: store).run(evenIfFew: true)) == true {
                    background.withLock { $0.rewrites += 1 }
                }
                k += 1
            }
            done.signal()
        }.start()
        return {
            stop.withLock { $0 = true }
            done.wait()
            return background.withLock { $0 }
        }
    }

    // MARK: Attacks

    /// Singles, batches up to 60, deletes, edits, recordings, rolls every 512 KiB; with
    /// a working index and with one that broke first.
    @Test(arguments: [false, true])
    func mixedWorkloadWithRolls(indexBroken: Bool) throws {
        let dir = TemporaryDirectory("mixed-\(indexBroken)")
        let failing = FailingWrites()
        let (store, oracle, trace, _) = try Self.open(dir, options: Self.options(limit: 512 << 10), base: failing)
        defer { try? store.close() }
        if indexBroken {
            failing.indexWrites.withLock { $0 = true }
            try store.save(Self.route(0))
            try store.withWriter { try $0.syncActive() }
            #expect(try store.withWriter { $0.index.broken })
        }
        let w = try Self.mixed(store, oracle, steps: 1_000, seed: indexBroken ? 7 : 3, maxBatch: 60)
        #expect(oracle.worst >= Self.interval - 300, "the workload never came near the bound (\(oracle.worst))")
        #expect(oracle.segmentSyncs >= 3)
        try Self.checkPowerLoss(trace, dir, oracle, w, store: store)
        try store.close()
        let reopened = try RouteStore(at: dir.store(), options: .init(compaction: .manual))
        defer { try? reopened.close() }
        #expect(reopened.state.withLock { $0.openDamage }.isEmpty)
        #expect(try reopened.verify().isClean)
    }

    /// The index breaks at open (catching up a record its write refuses): the counted
    /// sync must come all the same.
    @Test func indexBrokenAtOpen() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let failing = FailingWrites()
        failing.indexWrites.withLock { $0 = true }
        // A full save whose index record was refused: the next open catches it up.
        try RouteStore(at: url).close()
        failing.indexWrites.withLock { $0 = false }
        let first = try RouteStore(at: url, options: .init(compaction: .manual), fileSystem: failing)
        failing.indexWrites.withLock { $0 = true }
        for i in 0..<3 { try first.save(Self.route(i)) }
        try? first.close()
        let fs = InterceptingFileSystem(base: failing)
        let trace = try fs.trace(url)
        let store = try RouteStore(at: url, options: Self.options(), fileSystem: fs)
        defer { try? store.close() }
        let oracle = Oracle(fs)
        #expect(try store.withWriter { $0.index.broken }, "the index did not break at open")
        var w = Workload()
        for i in 0..<(2 * Self.interval + 100) {
            let id = try store.save(Self.route(10 + i))
            w.saved[id] = try Self.acked(store, oracle, records: 1, "save \(i)")
        }
        #expect(oracle.segmentSyncs == 2)
        try Self.checkPowerLoss(trace, dir, oracle, w, store: store)
    }

    /// The exact cadence: 1,023 records stay unsynced, the 1,024th syncs; a batch larger
    /// than the interval is synced before it is answered and leaves nothing counted.
    @Test func cadenceAndOversizedBatches() throws {
        let dir = TemporaryDirectory()
        let (store, oracle, _, _) = try Self.open(dir, options: Self.options())
        defer { try? store.close() }
        for i in 0..<(Self.interval - 1) {
            try store.save(Self.route(i))
            try Self.acked(store, oracle, records: 1)
        }
        #expect(oracle.segmentSyncs == 0)
        #expect(oracle.unsyncedAcked == Self.interval - 1)
        try store.save(Self.route(5_000))
        try Self.acked(store, oracle, records: 1)
        #expect(oracle.segmentSyncs == 1)
        #expect(oracle.unsyncedAcked == 0)
        // 1,023 pending, then a batch of 3,000 in one change: synced before the answer.
        for i in 0..<(Self.interval - 1) { try store.save(Self.route(6_000 + i)); try Self.acked(store, oracle, records: 1) }
        try store.save((0..<3_000).map { Self.route(10_000 + $0) })
        try Self.acked(store, oracle, records: 3_000)
        #expect(oracle.segmentSyncs == 2)
        #expect(try store.withWriter { $0.bufferedSinceSync } == 0, "a sync must not carry the batch's records over")
        for i in 0..<(Self.interval - 1) { try store.save(Self.route(20_000 + i)); try Self.acked(store, oracle, records: 1) }
        #expect(oracle.segmentSyncs == 2)
    }

    /// Full and ordered durability: every change synced, the counter untouched.
    @Test(arguments: [RouteStore.Durability.full, .ordered])
    func fullAndOrderedAreUnaffected(durability: RouteStore.Durability) throws {
        let dir = TemporaryDirectory("\(durability)")
        let (store, oracle, _, _) = try Self.open(dir, options: Self.options(durability, limit: 16 << 10))
        defer { try? store.close() }
        for i in 0..<300 {
            if i % 10 == 0 {
                try store.save((0..<40).map { Self.route(1_000 + i * 40 + $0) })
                try Self.acked(store, oracle, records: 40)
            } else {
                try store.save(Self.route(i))
                try Self.acked(store, oracle, records: 1)
            }
        }
        #expect(try store.withWriter { $0.bufferedSinceSync } == 0)
        try store.close()
    }

    /// The quiet-sync timer (a few ms) firing among the saves, racing the counted sync.
    @Test func quietSyncRacesTheCountedSync() throws {
        let dir = TemporaryDirectory()
        let (store, oracle, trace, _) = try Self.open(dir, options: Self.options(limit: 256 << 10, quiet: 0.002))
        defer { try? store.close() }
        var g = SeededGenerator(state: 11)
        var w = Workload()
        var pauses = 0
        for i in 0..<2_200 {
            let id = try store.save(Self.route(i))
            w.saved[id] = try Self.acked(store, oracle, records: 1, "save \(i)")
            if Int.random(in: 0..<60, using: &g) == 0 {
                // A pause: the timer syncs what is buffered (it may have begun already).
                #expect(try QuietSyncTests.eventually { try QuietSyncTests.held(store) == 0 }, "pause after save \(i)")
                pauses += 1
            }
        }
        #expect(pauses >= 4)
        #expect(oracle.segmentSyncs >= 1)
        try Self.checkPowerLoss(trace, dir, oracle, w, store: store)
    }

    /// Compaction and the background index rewrite running meanwhile, with rolls.
    @Test func compactionAndIndexRewriteMeanwhile() throws {
        let dir = TemporaryDirectory()
        let (store, oracle, trace, _) = try Self.open(dir, options: Self.options(limit: 32 << 10))
        defer { try? store.close() }
        let churned = StateLock((compactions: 0, rewrites: 0))
        let stopChurn = Self.churnInBackground(store, counting: churned)
        // Halfway, the workload waits for one of each to have run among its changes.
        let w = try Self.mixed(store, oracle, steps: 700, seed: 21, maxBatch: 60) {
            #expect(QuietSyncTests.eventually { churned.withLock { $0.compactions > 0 && $0.rewrites > 0 } })
        }
        let b = stopChurn()
        #expect(b.compactions > 0 && b.rewrites > 0, "\(b)")
        try Self.checkPowerLoss(trace, dir, oracle, w, store: store)
    }

    /// Several threads saving at once (singles and batches, groups past 1,024 records).
    @Test func savesFromSeveralThreads() throws {
        let dir = TemporaryDirectory()
        let (store, oracle, trace, _) = try Self.open(dir, options: Self.options(limit: 256 << 10))
        defer { try? store.close() }
        let saved = StateLock([RouteID: (String, Int64)]())
        let threads = 6
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for i in 0..<200 {
                let batch = i % 25 == 0 ? 40 : 1
                let routes = (0..<batch).map { Self.route(t * 100_000 + i * 100 + $0) }
                guard let ids = try? store.save(routes) else { Issue.record("save failed"); return }
                // Where the change landed, from the published index (no compaction here).
                let places = store.state.withLock { s in ids.map { s.index.routes[$0]!.location } }
                for (id, loc) in zip(ids, places) {
                    let name = FormatConstants.segmentName(loc.segment)
                    oracle.ack(name: name, end: loc.end, records: 1)
                    saved.withLock { $0[id] = (name, loc.end) }
                }
                let unsynced = oracle.noteWorst()
                #expect(unsynced <= Self.interval, "thread \(t) save \(i): \(unsynced) unsynced")
            }
        }
        try store.withWriter { w in #expect(w.bufferedSinceSync == oracle.unsyncedAcked) }
        #expect(oracle.segmentSyncs >= 2)
        var w = Workload()
        w.saved = saved.withLock { $0 }
        try Self.checkPowerLoss(trace, dir, oracle, w, store: store)
    }

    /// The counted sync fails (EIO, ENOSPC): the changes after it fail, close() throws,
    /// and what the earlier counted sync made durable survives a power loss.
    @Test(arguments: [EIO, ENOSPC])
    func failingCountedSyncThenClose(errno code: Int32) throws {
        let dir = TemporaryDirectory("sync-\(code)")
        let failing = FailingWrites()
        let (store, oracle, trace, _) = try Self.open(dir, options: Self.options(), base: failing)
        var w = Workload()
        for i in 0..<(Self.interval + 500) {
            let id = try store.save(Self.route(i))
            w.saved[id] = try Self.acked(store, oracle, records: 1)
        }
        #expect(oracle.segmentSyncs == 1)
        failing.segmentSyncErrno.withLock { $0 = code }
        var answered = 0
        var refused = 0
        for i in 0..<600 {
            if let id = try? store.save(Self.route(50_000 + i)) {
                answered += 1
                w.saved[id] = try Self.acked(store, oracle, records: 1, exact: false)
            } else {
                refused += 1
            }
        }
        #expect(answered == Self.interval - 500, "answered \(answered)")
        #expect(refused == 600 - answered)
        #expect(oracle.unsyncedAcked <= Self.interval)
        #expect(throws: RouteLogError.self, "close() must report the failed sync") { try store.close() }
        failing.segmentSyncErrno.withLock { $0 = nil }
        try Self.checkPowerLoss(trace, dir, oracle, w)
    }

    /// A single change (or one group) larger than the interval, whose sync fails: it is
    /// answered as saved, with more than 1,024 records unsynced.
    @Test func oversizedBatchWhoseSyncFails() throws {
        let dir = TemporaryDirectory()
        let failing = FailingWrites()
        let (store, oracle, _, _) = try Self.open(dir, options: Self.options(), base: failing)
        defer { try? store.close() }
        failing.segmentSyncErrno.withLock { $0 = EIO }
        let batch = (0..<(2 * Self.interval)).map { Self.route($0) }
        if (try? store.save(batch)) != nil {
            try Self.acked(store, oracle, records: batch.count, exact: false)
            #expect(oracle.unsyncedAcked <= Self.interval,
                    "one save of \(batch.count) routes was answered, its sync having failed")
        }
    }

    /// The same with single-route saves only: 1,014 saved, then 64 threads save one
    /// route each while the writer is busy, so that they go as one group whose counted
    /// sync fails. Each of them is answered as saved.
    @Test func groupOfSingleSavesWhoseSyncFails() throws {
        let dir = TemporaryDirectory()
        let failing = FailingWrites()
        let (store, oracle, _, _) = try Self.open(dir, options: Self.options(), base: failing)
        defer { try? store.close() }
        for i in 0..<(Self.interval - 10) {
            try store.save(Self.route(i))
            try Self.acked(store, oracle, records: 1)
        }
        failing.segmentSyncErrno.withLock { $0 = EIO }
        let answered = StateLock(0)
        let threads = WriteQueue.maxGroup + 1
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        // The writer lock held while they queue: they then go in (at most) two groups.
        try store.withWriter { _ in
            for t in 0..<threads {
                finished.enter()
                Thread {
                    started.signal()
                    if let id = try? store.save(Self.route(100_000 + t)) {
                        let loc = store.state.withLock { $0.index.routes[id]!.location }
                        oracle.ack(name: FormatConstants.segmentName(loc.segment), end: loc.end, records: 1)
                        answered.withLock { $0 += 1 }
                    }
                    finished.leave()
                }.start()
            }
            for _ in 0..<threads { started.wait() }
            Thread.sleep(forTimeInterval: 0.2)
        }
        finished.wait()
        let n = answered.withLock { $0 }
        #expect(oracle.unsyncedAcked <= Self.interval,
                "\(n) single saves answered in the group whose sync failed: \(oracle.unsyncedAcked) acknowledged unsynced")
    }

    /// A segment write refused (ENOSPC, taken back): the change fails, the counter is
    /// not moved, and the counted sync still comes on time.
    @Test func refusedSegmentWritesLeaveTheCountRight() throws {
        let dir = TemporaryDirectory()
        let failing = FailingWrites()
        let (store, oracle, trace, _) = try Self.open(dir, options: Self.options(), base: failing)
        defer { try? store.close() }
        var w = Workload()
        var refused = 0
        for i in 0..<2_500 {
            failing.segmentWrites.withLock { $0 = i % 7 == 3 }
            if let id = try? store.save(i % 50 == 0 ? [Self.route(i), Self.route(i + 1)] : [Self.route(i)]) {
                w.saved[id[0]] = try Self.acked(store, oracle, records: id.count, "save \(i)")
            } else {
                refused += 1
                try Self.acked(store, oracle, records: 0, "refused save \(i)")
            }
        }
        failing.segmentWrites.withLock { $0 = false }
        #expect(refused > 300)
        #expect(oracle.segmentSyncs >= 2)
        try Self.checkPowerLoss(trace, dir, oracle, w, store: store)
    }
}

/// The real file system without syncs, but: index writes fail once `indexWrites` is set;
/// segment syncs fail with `segmentSyncErrno` once set.
final class FailingWrites: ForwardingFileSystem, @unchecked Sendable {
    let base: any FileSystem = PosixFileSystem.shared
    let indexWrites = StateLock(false)
    let segmentSyncErrno = StateLock<Int32?>(nil)
    let segmentWrites = StateLock(false)

    private func failSync(_ file: FileRef) throws {
        if file.path.hasSuffix(FormatConstants.segmentSuffix), let code = segmentSyncErrno.withLock({ $0 }) {
            throw Errno(code: code)
        }
    }

    func pwrite(_ file: FileRef, _ buffer: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        if URL(fileURLWithPath: file.path).lastPathComponent.hasPrefix(FormatConstants.indexPrefix), indexWrites.withLock({ $0 }) {
            throw Errno(code: EIO)
        }
        if file.path.hasSuffix(FormatConstants.segmentSuffix), offset > 0, segmentWrites.withLock({ $0 }) {
            throw Errno(code: ENOSPC)
        }
        return try base.pwrite(file, buffer, at: offset)
    }
    func syncData(_ file: FileRef) throws { try failSync(file) }
    func syncBarrier(_ file: FileRef) throws { try failSync(file) }
    func syncAll(_ file: FileRef) throws { try failSync(file) }
    func syncDirectory(_ path: String) throws {}
}
