import Dispatch

/// One observation of a value read from a store (GRDB's ValueObservation is the
/// model): the value now, then again after every commit, handed on only when it
/// differs from the last one handed on. Fetches run on a serial queue of their own;
/// commits that arrive during a fetch are covered by one more fetch, not one each.
final class ValueObservation<Value: Equatable & Sendable>: Sendable {
    private struct State {
        var pending = false
        var last: Value?
        var ended = false
    }

    private let queue = DispatchQueue(label: "RouteLog.ValueObservation", qos: .userInitiated)
    private let state = StateLock(State())
    private let fetch: @Sendable (RouteStore) throws -> Value
    private weak let store: RouteStore?
    private let continuation: AsyncThrowingStream<Value, any Error>.Continuation

    init(store: RouteStore, fetch: @escaping @Sendable (RouteStore) throws -> Value,
         continuation: AsyncThrowingStream<Value, any Error>.Continuation) {
        self.store = store
        self.fetch = fetch
        self.continuation = continuation
    }

    /// Fetches again soon, unless a fetch is queued already.
    func schedule() {
        let queued = state.withLock { s -> Bool in
            guard !s.pending, !s.ended else { return false }
            s.pending = true
            return true
        }
        guard queued else { return }
        queue.async { self.fetchAndSend() }
    }

    /// Ends the stream after any queued fetch: quietly (the store closed) or with `error`.
    func end(_ error: (any Error)? = nil) {
        queue.async { self.finish(error) }
    }

    private func fetchAndSend() {
        state.withLock { $0.pending = false }
        guard let store else { return finish(nil) }
        do {
            let value = try fetch(store)
            let changed = state.withLock { s -> Bool in
                guard !s.ended, s.last != value else { return false }
                s.last = value
                return true
            }
            if changed { continuation.yield(value) }
        } catch let error as RouteLogError where error.code == .closed {
            finish(nil)
        } catch {
            finish(error)
        }
    }

    private func finish(_ error: (any Error)?) {
        let first = state.withLock { s -> Bool in
            defer { s.ended = true }
            return !s.ended
        }
        guard first else { return }
        continuation.finish(throwing: error)
    }
}
