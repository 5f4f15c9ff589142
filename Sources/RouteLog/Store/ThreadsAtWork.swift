import Foundation

/// The threads inside some work of a store right now (a compaction, a delivery of
/// changes, the first close(), a hold of the writer lock), counted, as the work may
/// nest on one thread. A second close() asks whether it runs on one of them: the first
/// close() may be waiting for that very work to end, so the second must not wait for
/// the first (``StoreClosing``).
final class ThreadsAtWork: Sendable {
    private let counts = StateLock([ObjectIdentifier: Int]())

    /// Runs `body` with this thread counted in.
    func run<T>(_ body: () throws -> T) rethrows -> T {
        let thread = ObjectIdentifier(Thread.current)
        counts.withLock { $0[thread, default: 0] += 1 }
        defer {
            counts.withLock { counts in
                let left = counts[thread, default: 1] - 1
                counts[thread] = left > 0 ? left : nil
            }
        }
        return try body()
    }

    /// True while this thread runs inside ``run(_:)``.
    var includesThisThread: Bool {
        let thread = ObjectIdentifier(Thread.current)
        return counts.withLock { $0[thread] != nil }
    }
}
