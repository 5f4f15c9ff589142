import Dispatch

/// The store's own serial queue for the async API. Every call of the synchronous API
/// may block its thread (a sync, the writer's lock, a compaction), and a blocked thread
/// of Swift's cooperative pool is a thread every other task lost: the async calls park
/// their task in a continuation and do the blocking work here instead.
struct StoreWorkQueue: Sendable {
    let queue: DispatchQueue
    /// Calls queued whose turn has not come yet.
    private let waiting = StateLock(0)

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    /// True while a call waits for its turn (the tests cancel one there).
    var hasQueuedCall: Bool { waiting.withLock { $0 > 0 } }

    /// Runs `body` on the queue and resumes the calling task with its result. The
    /// task's cancellation is checked before the work is queued and again when its
    /// turn comes; once `body` has begun it runs to the end (a half-done save would be
    /// worse than a late one).
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try Task.checkCancellation()
        let cancelled = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                waiting.withLock { $0 += 1 }
                queue.async {
                    waiting.withLock { $0 -= 1 }
                    if cancelled.isSet {
                        continuation.resume(throwing: CancellationError())
                        return
                    }
                    continuation.resume(with: Result { try body() })
                }
            }
        } onCancel: {
            cancelled.set()
        }
    }
}

/// Set once by a task's cancellation handler, read on the store's queue.
final class CancellationFlag: Sendable {
    private let flag = StateLock(false)
    var isSet: Bool { flag.withLock { $0 } }
    func set() { flag.withLock { $0 = true } }
}
