import Foundation

extension RouteStore {
    /// The async API of this store: ``AsyncRouteStore``, the same calls as the
    /// synchronous API, none of which blocks the calling thread.
    ///
    /// ```swift
    /// let id = try await store.async.save(route)
    /// let list = try await store.async.summaries()
    /// ```
    public var async: AsyncRouteStore { AsyncRouteStore(store: self) }
}

/// The async API: the same calls as ``RouteStore``'s synchronous one, for code running
/// in Swift concurrency. None of them blocks the calling thread: the work runs on the
/// store's own serial queue (never on Swift's cooperative thread pool, which a blocking
/// sync would starve) and the task waits in a continuation. Cancellation is checked
/// before the work begins; work that has begun finishes, so a cancelled save is either
/// refused (`CancellationError`) or complete, never half done.
///
/// A view of its own rather than `async` overloads of the same names: an overload would
/// take over every synchronous call written inside an async function (a test's task
/// group, say) and silently move it onto the one serial queue.
public struct AsyncRouteStore: Sendable {
    /// The store the calls go to.
    public let store: RouteStore
    private var work: StoreWorkQueue { store.work }

    /// Saves a route without blocking the caller; see ``RouteStore/save(_:)-1h4hx``.
    /// - Throws: `CancellationError` when the task was cancelled before the save began;
    ///   otherwise what ``RouteStore/save(_:)-1h4hx`` throws.
    @discardableResult
    public func save(_ route: Route) async throws -> RouteID {
        try await work.run { try store.save(route) }
    }

    /// Saves several routes all or nothing without blocking the caller; see the
    /// synchronous `save(_:)` for an array.
    /// - Throws: `CancellationError` when the task was cancelled before the save began;
    ///   otherwise what the synchronous call throws.
    @discardableResult
    public func save(_ routes: [Route]) async throws -> [RouteID] {
        try await work.run { try store.save(routes) }
    }

    /// Deletes route `id` without blocking the caller; see ``RouteStore/delete(_:)``.
    /// - Throws: `CancellationError` when the task was cancelled first; `.notFound`,
    ///   `.io`, `.closed` as ``RouteStore/delete(_:)``.
    public func delete(_ id: RouteID) async throws {
        try await work.run { try store.delete(id) }
    }

    /// Edits route `id`'s metadata without blocking the caller; see ``RouteStore/edit(_:_:)``.
    /// - Throws: `CancellationError` when the task was cancelled first; otherwise what
    ///   ``RouteStore/edit(_:_:)`` throws.
    @discardableResult
    public func edit(_ id: RouteID, _ edit: RouteEdit) async throws -> RouteSummary {
        try await work.run { try store.edit(id, edit) }
    }

    /// Reads route `id`'s points without blocking the caller; see ``RouteStore/route(_:)``.
    /// - Throws: `CancellationError` when the task was cancelled first; `.notFound`,
    ///   `.corrupted`, `.closed` as ``RouteStore/route(_:)``.
    public func route(_ id: RouteID) async throws -> Route {
        try await work.run { try store.route(id) }
    }

    /// Every route's summary, oldest first, without blocking the caller; see
    /// ``RouteStore/summaries()``.
    /// - Throws: `CancellationError` when the task was cancelled first; `.closed`.
    public func summaries() async throws -> [RouteSummary] {
        try await work.run { try store.summaries() }
    }

    /// Compacts without blocking the caller; see ``RouteStore/compact()``.
    /// - Throws: `CancellationError` when the task was cancelled before the compaction
    ///   began; otherwise what ``RouteStore/compact()`` throws.
    @discardableResult
    public func compact() async throws -> CompactionReport {
        try await work.run { try store.compact() }
    }

    /// Verifies every file without blocking the caller; see ``RouteStore/verify(progress:)``.
    /// - Throws: `CancellationError` when the task was cancelled first; `.closed`.
    public func verify(progress: (@Sendable (Double) -> Void)? = nil) async throws -> VerificationReport {
        try await work.run { try store.verify(progress: progress) }
    }
}
