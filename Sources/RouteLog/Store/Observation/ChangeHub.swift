import Foundation

/// Hands every committed change to the store's subscribers, in commit order: the
/// `changes` streams and the value observations. The writer calls ``publish(_:)`` at
/// the one place it acknowledges a commit; close() calls ``finish()``.
///
/// Two locks: `delivery` orders deliveries (the writer's commits and a compaction's
/// end come from different threads); `subscribers` guards the list, and is never held
/// while a subscriber runs, so a stream that ends inside a delivery can unsubscribe.
final class ChangeHub: Sendable {
    struct Subscriber: Sendable {
        let deliver: @Sendable ([StoreChange]) -> Void
        let finish: @Sendable () -> Void
    }

    private struct List {
        var next = 0
        var entries: [Int: Subscriber] = [:]
        var finished = false
    }

    private let subscribers = StateLock(List())
    private let delivery = NSLock()
    /// Called when the first subscriber arrives (a read-only handle starts watching its files).
    let onFirstSubscriber: StateLock<(@Sendable () -> Void)?> = StateLock(nil)

    /// Adds a subscriber; nil when the store is closed (the caller finishes at once).
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

    /// Delivers `changes` to every subscriber, in the order of the calls.
    func publish(_ changes: [StoreChange]) {
        guard !changes.isEmpty else { return }
        delivery.lock()
        defer { delivery.unlock() }
        let current = subscribers.withLock { $0.entries.sorted { $0.key < $1.key }.map(\.value) }
        for subscriber in current { subscriber.deliver(changes) }
    }

    /// Ends every subscription (the store closed); later subscriptions end at once.
    func finish() {
        delivery.lock()
        defer { delivery.unlock() }
        let ended = subscribers.withLock { list -> [Subscriber] in
            list.finished = true
            defer { list.entries = [:] }
            return list.entries.sorted { $0.key < $1.key }.map(\.value)
        }
        for subscriber in ended { subscriber.finish() }
    }
}
