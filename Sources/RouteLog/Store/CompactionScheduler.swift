import Dispatch
import Foundation

/// Runs compactions one at a time: the app's ``RouteStore/compact()`` and the
/// automatic ones the policy starts in the background after a change. Keeps the last
/// outcome for ``RouteStore/statistics()``, backs off after a failure instead of
/// retrying on every write, and lets close() wait until none runs.
final class CompactionScheduler: Sendable {
    struct Status: Sendable {
        var running = false
        var last: StoreStatistics.CompactionOutcome?
        var consecutiveFailures = 0
        /// No automatic compaction before this, after a failure: nanoseconds of the
        /// monotonic clock (`DispatchTime`), which a change of the wall clock leaves
        /// alone (the wall clock set back a day once paused compaction for a day).
        var notBefore: UInt64?
        /// Dead bytes when an automatic compaction last found nothing worth rewriting:
        /// the next waits until more are dead.
        var idleAtDeadBytes: Int64?
        /// Segments the last compaction found holding damaged live records (kept as found).
        var damaged: Set<UInt32> = []
        /// The index file's single records when a background rewrite of it last began
        /// and did not rewrite (too few were left to gather, or it failed).
        var indexRewriteTriedAt: Int?
    }

    let status = StateLock(Status())
    private let idle = DispatchGroup()
    /// The threads running a compaction (or a background rewrite of the index) now:
    /// close() waits for it, so a close() called from one must not wait for that
    /// close() (``StoreClosing``).
    let threads = ThreadsAtWork()

    /// Nanoseconds since boot (not counting sleep on Linux), for waits.
    static func monotonicNow() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Backoff after the nth failure in a row: 1 s, doubling, at most 10 minutes.
    static func backoff(afterFailures n: Int) -> TimeInterval { min(600, pow(2, Double(max(0, n - 1)))) }

    /// Claims the right to compact, unless one runs or the store is closing. The
    /// check of the store's lifecycle and the claim are one step under the state lock,
    /// so no compaction can start after close() began waiting.
    func tryBegin(_ store: RouteStore) -> Bool {
        store.state.withLock { state in
            guard state.lifecycle == .open else { return false }
            return status.withLock { s in
                guard !s.running else { return false }
                s.running = true
                idle.enter()
                return true
            }
        }
    }

    func end() {
        status.withLock { $0.running = false }
        idle.leave()
    }

    /// Returns once no compaction runs (close() calls it after marking the store closing).
    func waitUntilIdle() { idle.wait() }

    /// Runs one compaction now (for ``RouteStore/compact()``), after a running one ends.
    func runNow(_ store: RouteStore) throws -> CompactionReport {
        while !tryBegin(store) {
            try store.state.withLock { try $0.checkOpen() }
            idle.wait()
        }
        defer { end() }
        return try threads.run { try run(store) }
    }

    private func run(_ store: RouteStore) throws -> CompactionReport {
        let started = Self.monotonicNow()
        do {
            let (report, found) = try Compactor(store: store, threshold: store.options.compactionRewriteThreshold).run()
            let dead = store.deadBytes()
            status.withLock { s in
                s.damaged = found
                s.last = .init(finished: Date(), duration: report.duration, bytesReclaimed: report.bytesReclaimed,
                               segmentsCompacted: report.segmentsCompacted, error: nil)
                s.consecutiveFailures = 0
                s.notBefore = nil
                s.idleAtDeadBytes = report.segmentsCompacted == 0 ? dead : nil
                // A compaction that rewrote segments wrote the index as runs: the count
                // a failed or idle background rewrite left no longer says anything.
                if report.segmentsCompacted > 0 { s.indexRewriteTriedAt = nil }
            }
            if report.segmentsCompacted > 0 { store.changeHub.publish([.compacted]) }
            return report
        } catch {
            status.withLock { s in
                s.consecutiveFailures += 1
                s.notBefore = Self.monotonicNow() &+ UInt64(Self.backoff(afterFailures: s.consecutiveFailures) * 1e9)
                s.last = .init(finished: Date(), duration: Double(Self.monotonicNow() &- started) / 1e9, bytesReclaimed: 0,
                               segmentsCompacted: 0, error: (error as? RouteLogError) ?? RouteLogError(.io, "\(error)"))
            }
            throw error
        }
    }

    /// After a change: starts a background compaction when the policy says dead bytes
    /// are due, unless one runs, the last failed a short while ago, or the last found
    /// nothing worth rewriting and no more bytes died since. Otherwise (none due, or one
    /// due that waits so), with the automatic policy, writes the index again as runs in
    /// the background when records appended one by one have piled up
    /// (``BackgroundIndexRewrite``): a compaction that waits, perhaps for as long as the
    /// store is open, does not leave them piling up meanwhile.
    func compactIfDue(_ store: RouteStore) {
        guard case .automatic(let fraction, let minimum) = store.options.compaction else { return }
        let (total, dead, chunked) = store.deadByteCounts()
        let due = (dead >= minimum && Double(dead) >= fraction * Double(total))
            || (chunked >= minimum && Double(chunked) >= fraction * Double(total))
        let waits = due && status.withLock { s -> Bool in
            if let notBefore = s.notBefore, Self.monotonicNow() < notBefore { return true }
            if let idleAt = s.idleAtDeadBytes, dead < idleAt + minimum { return true }
            return false
        }
        guard due, !waits else {
            rewriteIndexIfSprawling(store)
            return
        }
        guard tryBegin(store) else { return }
        DispatchQueue.global(qos: .utility).async { [self] in
            defer { end() }
            // The outcome, success or failure, is kept in `status` for statistics().
            _ = threads.run { try? run(store) }
        }
    }

    /// Starts a background rewrite of the index when its single records look enough
    /// (the count the writer publishes); the rewrite counts exactly under the writer
    /// lock. One that found too few, or failed, is not tried again until as many more
    /// single records piled up.
    private func rewriteIndexIfSprawling(_ store: RouteStore) {
        let (singles, routes) = store.state.withLock { ($0.indexSingleRecords, $0.index.routes.count) }
        let enough = StoreWriter.sprawlingEnough(routes: routes)
        guard singles >= enough else { return }
        let allowed = status.withLock { s -> Bool in
            if s.running { return false }
            if let tried = s.indexRewriteTriedAt, singles < tried + enough { return false }
            s.indexRewriteTriedAt = singles
            return true
        }
        guard allowed, tryBegin(store) else { return }
        DispatchQueue.global(qos: .utility).async { [self] in
            defer { end() }
            if threads.run({ try? BackgroundIndexRewrite(store: store).run() }) == true {
                status.withLock { $0.indexRewriteTriedAt = nil }
            }
        }
    }
}
