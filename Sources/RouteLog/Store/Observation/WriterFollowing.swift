import Dispatch
import Foundation

/// A read-only handle following the writer process: from its first subscriber (to
/// `changes` or an observation) until it closes, a ``StoreFileWatch`` wakes it and it
/// catches up with the files (``RouteStore/catchUpWithWriter()``), which hands the
/// changes it finds to the subscribers. Wake-ups that come during a catch-up are
/// covered by one more catch-up, not one each. When the watch says the directory is
/// gone the following stops for good, after any catch-up already queued.
final class WriterFollowing: Sendable {
    private struct State {
        var watch: (any StoreFileWatch)?
        var pending = false
        var stopped = false
        /// When the catch-ups began failing without one succeeding since, and the wait
        /// before the next attempt.
        var failingSince: DispatchTime?
        var retryDelay = WriterFollowing.firstRetryDelay
    }

    /// How long to wait before trying again after a catch-up failed (a compaction
    /// switching files underneath, a file system hiccup): the next attempt covers
    /// everything the failed one missed. The wait doubles while the attempts fail, up
    /// to ``lastRetryDelay``.
    static let firstRetryDelay = DispatchTimeInterval.milliseconds(200)
    static let lastRetryDelay = DispatchTimeInterval.seconds(5)
    /// How long catch-ups may keep failing before the following ends with the error
    /// (30 s; tests shorten it): a failure that lasts is not a passing switch of files,
    /// and the subscribers hear it instead of waiting for changes that cannot come.
    let giveUpAfter: StateLock<DispatchTimeInterval> = StateLock(.seconds(30))

    private let state = StateLock(State())
    private let queue = DispatchQueue(label: "RouteLog.WriterFollowing", qos: .utility)
    /// Serialises catch-ups: the watch's and those of `refresh()`.
    private let catchUpLock = NSLock()
    /// The thread running a catch-up, while one runs: a close() from inside it (a
    /// subscriber told of a change it delivers) must not wait for itself.
    private let catchingUp = StateLock<pthread_t?>(nil)
    /// Which watch ``start(directory:catchUp:)`` uses (tests pick polling).
    let kind: StateLock<StoreFileWatchKind> = StateLock(.platform)

    /// Starts watching `directory` (once; never after ``stop()``) and catches up once
    /// at once, for what the writer did between the handle's opening and now.
    /// `catchUp` returns the error of an attempt that failed and should be tried again,
    /// nil otherwise. `onEnd` runs once if the following ends for good: with nil when the
    /// directory stops being the one of `identity` (deleted, moved away), with the
    /// error when catch-ups kept failing for ``giveUpAfter``.
    func start(directory: String, identity: DirectoryIdentity?, catchUp: @escaping @Sendable () -> RouteLogError?,
               onEnd: @escaping @Sendable (RouteLogError?) -> Void) {
        let kind = self.kind.withLock { $0 }
        let attempt: @Sendable () -> Bool = { [weak self] in
            guard let self else { return true }
            return self.noteAttempt(catchUp(), onEnd: onEnd)
        }
        let started = state.withLock { s -> Bool in
            guard s.watch == nil, !s.stopped else { return false }
            s.watch = kind.start(directory: directory, identity: identity,
                                 onChange: { [weak self] in self?.schedule(attempt) },
                                 onGone: { [weak self] in self?.end { onEnd(nil) } })
            return true
        }
        if started { schedule(attempt) }
    }

    /// Notes how a catch-up went: true when it succeeded, or when it failed for so long
    /// that the following ends now (no retry then).
    private func noteAttempt(_ failure: RouteLogError?, onEnd: @escaping @Sendable (RouteLogError?) -> Void) -> Bool {
        guard let failure else {
            state.withLock { ($0.failingSince, $0.retryDelay) = (nil, Self.firstRetryDelay) }
            return true
        }
        let giveUp = giveUpAfter.withLock { $0 }
        let ended = state.withLock { s -> Bool in
            let since = s.failingSince ?? .now()
            s.failingSince = since
            return DispatchTime.now() >= since + giveUp
        }
        if ended { end { onEnd(failure) } }
        return ended
    }

    /// Stops for good, then runs `onGone`, on the catch-ups' queue: after the catch-up
    /// under way, if any, and instead of any later one.
    private func end(_ onGone: @escaping @Sendable () -> Void) {
        queue.async { [weak self] in
            guard let self else { return }
            let first = self.state.withLock { !$0.stopped }
            self.stop()
            if first { onGone() }
        }
    }

    private func schedule(_ catchUp: @escaping @Sendable () -> Bool, after delay: DispatchTimeInterval? = nil) {
        let queued = state.withLock { s -> Bool in
            guard !s.pending, !s.stopped else { return false }
            s.pending = true
            return true
        }
        guard queued else { return }
        let work: @Sendable () -> Void = { [weak self] in
            guard let self else { return }
            self.state.withLock { $0.pending = false }
            guard !catchUp() else { return }
            let delay = self.state.withLock { s -> DispatchTimeInterval in
                defer { s.retryDelay = Self.doubled(s.retryDelay) }
                return s.retryDelay
            }
            self.schedule(catchUp, after: delay)
        }
        if let delay { queue.asyncAfter(deadline: .now() + delay, execute: work) } else { queue.async(execute: work) }
    }

    /// Twice `delay`, at most ``lastRetryDelay``.
    private static func doubled(_ delay: DispatchTimeInterval) -> DispatchTimeInterval {
        guard case .milliseconds(let ms) = delay, case .seconds(let last) = lastRetryDelay else { return lastRetryDelay }
        return .milliseconds(min(ms * 2, last * 1000))
    }

    /// Stops the watch for good (the handle closed).
    func stop() {
        let watch = state.withLock { s -> (any StoreFileWatch)? in
            s.stopped = true
            defer { s.watch = nil }
            return s.watch
        }
        watch?.stop()
    }

    /// Runs `body`, a catch-up, alone: after any other catch-up, and with close() told
    /// which thread runs it (``waitForCatchUp()``).
    func catchingUp<T>(_ body: () throws -> T) rethrows -> T {
        catchUpLock.lock()
        catchingUp.withLock { $0 = pthread_self() }
        defer {
            catchingUp.withLock { $0 = nil }
            catchUpLock.unlock()
        }
        return try body()
    }

    /// Returns once no catch-up runs on another thread. A catch-up has the store's
    /// files open (`LOCK` for the writer's mark, the MANIFEST, segments) until it ends:
    /// close(), which promises a handle that holds nothing open, waits for it (the
    /// catch-up then finds the handle closed at its next look). From inside a catch-up
    /// (a subscriber that closes the store as it hears a change) it returns at once,
    /// and that catch-up's files close as it ends.
    func waitForCatchUp() {
        if isCatchingUpOnThisThread { return }
        catchUpLock.lock()
        catchUpLock.unlock()
    }

    /// True on the thread running a catch-up, while it runs: one the first close()
    /// waits for (``waitForCatchUp()``), so a second close() there must not wait for
    /// the first.
    var isCatchingUpOnThisThread: Bool {
        guard let thread = catchingUp.withLock({ $0 }) else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }
}
