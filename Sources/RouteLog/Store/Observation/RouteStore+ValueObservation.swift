extension RouteStore {
    /// The summaries that `isIncluded` accepts, sorted by `areInIncreasingOrder`
    /// (oldest first when nil), observed: the current list first, then a new list after
    /// each commit that changes it. A reader slower than the commits gets the newest
    /// list, never a backlog. Ends when the store closes or the iterating task stops;
    /// on a read-only handle, by throwing `.notFound` when the store's directory goes.
    ///
    /// ```swift
    /// for try await rides in store.observeSummaries(matching: { $0.activity == .ride }) {
    ///     self.rows = rides
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - isIncluded: Which summaries belong in the list.
    ///   - areInIncreasingOrder: The list's order; nil keeps ``summaries()``'s.
    public func observeSummaries(
        matching isIncluded: @escaping @Sendable (RouteSummary) -> Bool = { _ in true },
        sortedBy areInIncreasingOrder: (@Sendable (RouteSummary, RouteSummary) -> Bool)? = nil
    ) -> AsyncThrowingStream<[RouteSummary], any Error> {
        observe { store in
            let list = try store.summaries().filter(isIncluded)
            return areInIncreasingOrder.map { list.sorted(by: $0) } ?? list
        }
    }

    /// Any value read from the store, observed: `fetch`'s result now, then again after
    /// each commit, handed on whenever it differs from the last one. `fetch` runs on a
    /// queue of the observation's own, never on the caller's thread.
    ///
    /// ```swift
    /// for try await total in store.observe({ try $0.totals().distance }) { ... }
    /// ```
    ///
    /// - Parameter fetch: Reads the value; an error other than `.closed` ends the
    ///   stream with that error (`.closed` ends it quietly).
    /// - Throws: Nothing when called: what `fetch` throws reaches the caller through
    ///   the stream, which ends with it.
    public func observe<Value: Equatable & Sendable>(
        _ fetch: @escaping @Sendable (RouteStore) throws -> Value
    ) -> AsyncThrowingStream<Value, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Value, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let observation = ValueObservation(store: self, fetch: fetch, continuation: continuation)
        let subscriber = ChangeHub.Subscriber(deliver: { _ in observation.schedule() }, finish: { observation.end($0) })
        guard let token = changeHub.subscribe(subscriber) else {
            continuation.finish(throwing: changeHub.failure)
            return stream
        }
        continuation.onTermination = { [weak hub = changeHub] _ in hub?.unsubscribe(token) }
        observation.schedule()
        return stream
    }
}
