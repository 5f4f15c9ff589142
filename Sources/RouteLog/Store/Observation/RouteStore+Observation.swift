extension RouteStore {
    /// How many changes a subscriber of ``changes`` may leave unread before it falls
    /// behind.
    public static let changeBufferLimit = 10_000

    /// Every change committed from now on, in commit order, each delivered once it is
    /// durable. Each access is a new subscription; any number may be open at once.
    /// The stream ends when the store is closed, and the subscription ends when the
    /// task iterating it stops (breaks out, or is cancelled). On a read-only handle it
    /// ends by throwing `.notFound` when the store's directory is deleted or moved away
    /// (another directory put at the same path is not the store the handle follows).
    ///
    /// A subscriber that never reads cannot make the store hold memory without bound:
    /// its buffer keeps at most ``changeBufferLimit`` changes, and when it would take
    /// one more the stream delivers what it holds and then throws `.fellBehind`, so a
    /// missed change is never silent.
    ///
    /// On a read-only handle (an app's widget or extension, another process) the changes
    /// are those the writer process made, read from the store's files: on Linux as soon
    /// as inotify reports the write, elsewhere within about 100 ms (polling, for now).
    /// They come in commit order while the writer only appends; when a compaction
    /// replaced the files the handle reads the store again and delivers what differs
    /// (by kind, then id), then ``StoreChange/compacted``. A catch-up that fails is tried
    /// again, each wait twice the last (200 ms up to 5 s); when the failures last 30 s the
    /// stream ends by throwing the error (open the store again to follow it).
    ///
    /// ```swift
    /// for try await change in store.changes {
    ///     if case .saved(let id) = change { print("new route", id) }
    /// }
    /// ```
    public var changes: AsyncThrowingStream<StoreChange, any Error> {
        changes(bufferingAtMost: Self.changeBufferLimit)
    }

    /// ``changes`` with a buffer of `limit` changes (at least 1) instead of
    /// ``changeBufferLimit``.
    public func changes(bufferingAtMost limit: Int) -> AsyncThrowingStream<StoreChange, any Error> {
        let (stream, continuation) = AsyncThrowingStream<StoreChange, any Error>.makeStream(bufferingPolicy: .bufferingOldest(max(1, limit)))
        let directory = self.directory
        let subscriber = ChangeHub.Subscriber(deliver: { changes in
            for change in changes {
                if case .dropped = continuation.yield(change) {
                    continuation.finish(throwing: RouteLogError(.fellBehind,
                        "a subscriber to changes left \(limit) changes unread and missed later ones; read the store again and subscribe again",
                        path: directory))
                    return
                }
            }
        }, finish: { continuation.finish(throwing: $0) })
        guard let token = changeHub.subscribe(subscriber) else {
            continuation.finish(throwing: changeHub.failure)
            return stream
        }
        continuation.onTermination = { [weak hub = changeHub] _ in hub?.unsubscribe(token) }
        return stream
    }
}
