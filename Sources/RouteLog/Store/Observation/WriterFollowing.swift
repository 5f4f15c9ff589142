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
    }

    /// How long to wait before trying again after a catch-up failed (a compaction
    /// switching files underneath, a file system hiccup): the next attempt covers
    /// everything the failed one missed.
    static let retryDelay = DispatchTimeInterval.milliseconds(200)

    private let state = StateLock(State())
    private let queue = DispatchQueue(label: "RouteLog.WriterFollowing", qos: .utility)
    /// Serialises catch-ups: the watch's and those of `refresh()`.
    let catchUpLock = NSLock()
    /// Which watch ``start(directory:catchUp:)`` uses (tests pick polling).
    let kind: StateLock<StoreFileWatchKind> = StateLock(.platform)

    /// Starts watching `directory` (once; never after ``stop()``) and catches up once
    /// at once, for what the writer did between the handle's opening and now.
    /// `catchUp` returns false when it failed and should be tried again; `onGone` runs
    /// once if the directory stops being the one of `identity` (deleted, moved away).
    func start(directory: String, identity: DirectoryIdentity?, catchUp: @escaping @Sendable () -> Bool,
               onGone: @escaping @Sendable () -> Void) {
        let kind = self.kind.withLock { $0 }
        let started = state.withLock { s -> Bool in
            guard s.watch == nil, !s.stopped else { return false }
            s.watch = kind.start(directory: directory, identity: identity,
                                 onChange: { [weak self] in self?.schedule(catchUp) },
                                 onGone: { [weak self] in self?.end(onGone) })
            return true
        }
        if started { schedule(catchUp) }
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
            if !catchUp() { self.schedule(catchUp, after: Self.retryDelay) }
        }
        if let delay { queue.asyncAfter(deadline: .now() + delay, execute: work) } else { queue.async(execute: work) }
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
}
