import Foundation

/// Hands every committed change to the store's subscribers, in commit order: the
/// `changes` streams and the value observations. The writer calls ``publish(_:)`` at
/// the one place it acknowledges a commit; close() calls ``finish(throwing:)``, and a
/// read-only handle whose directory went away calls it with the error.
///
/// Two locks: `delivery` orders deliveries (the writer's commits and a compaction's
/// end come from different threads); `subscribers` guards the list, and is never held
/// while a subscriber runs, so a stream that ends inside a delivery can unsubscribe.
final class ChangeHub: Sendable {
    struct Subscriber: Sendable {
        let deliver: @Sendable ([StoreChange]) -> Void
        /// Ends the subscription: quietly with nil, else with the error.
        let finish: @Sendable ((any Error)?) -> Void
    }

    private struct List {
        var next = 0
        var entries: [Int: Subscriber] = [:]
        var finished = false
        /// Why the subscriptions ended, when not because the store closed.
        var failure: RouteLogError?
    }

    private let subscribers = StateLock(List())
    private let delivery = NSLock()
    /// The threads running subscribers now: close() waits for a delivery under way
    /// before it ends the subscriptions, so a close() called from one must not wait for
    /// that close() (``StoreClosing``).
    let delivering = ThreadsAtWork()
    /// Called when the first subscriber arrives (a read-only handle starts watching its files).
    let onFirstSubscriber: StateLock<(@Sendable () -> Void)?> = StateLock(nil)

    /// Adds a subscriber; nil when the subscriptions ended (the caller finishes at once,
    /// with ``failure``).
    func subscribe(_ subscriber: Subscriber) -> Int? {
        let (token, first) = subscribers.withLock { list -> (Int?, Bool) in
            guard !list.finished else { return (nil, false) }
            list.next += 1
            list.entries[list.next] = subscriber
            return (list.next, list.entries.count == 1)
        }
        if first, let start = onFirstSubscriber.withLock({ $0 }) { start() }
        return token
    }

    func unsubscribe(_ token: Int) {
        subscribers.withLock { _ = $0.entries.removeValue(forKey: token) }
    }

    var count: Int { subscribers.withLock { $0.entries.count } }

    /// The error that ended every subscription, if one did.
    var failure: RouteLogError? { subscribers.withLock { $0.failure } }

    /// Delivers `changes` to every subscriber, in the order of the calls.
    func publish(_ changes: [StoreChange]) {
        guard !changes.isEmpty else { return }
        delivery.lock()
        defer { delivery.unlock() }
        let current = subscribers.withLock { $0.entries.sorted { $0.key < $1.key }.map(\.value) }
        guard !current.isEmpty else { return }
        delivering.run {
            for subscriber in current { subscriber.deliver(changes) }
        }
    }

    /// Ends every subscription: quietly (the store closed) or with `error`; later
    /// subscriptions end at once, the same way. Only the first call counts.
    func finish(throwing error: RouteLogError? = nil) {
        delivery.lock()
        defer { delivery.unlock() }
        let ended = subscribers.withLock { list -> [Subscriber] in
            guard !list.finished else { return [] }
            list.finished = true
            list.failure = error
            defer { list.entries = [:] }
            return list.entries.sorted { $0.key < $1.key }.map(\.value)
        }
        delivering.run {
            for subscriber in ended { subscriber.finish(error) }
        }
    }
}
