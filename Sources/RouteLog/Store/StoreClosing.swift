import Dispatch

/// The first close() of a handle, for the close() calls that come while it runs. A
/// caller told that the store is closed may open it again at once, in this process or
/// another: so a second close() returns only once the first has let go of the files,
/// the descriptors and the writer's lock, not as soon as it sees the handle closing.
///
/// Except on a thread the first close() may itself be waiting for, where that wait
/// would never end and the second returns at once: the first's own thread (a
/// subscriber told of the end calls close() again), a thread holding the writer lock
/// (close() takes it to sync), one compacting (close() waits for the compaction), one
/// delivering changes (close() waits for the delivery under way before it ends the
/// subscriptions), one running a read-only handle's catch-up (close() waits for it to
/// end). The first two are counted here (``threads``); the compactions, the deliveries
/// and the catch-ups count their own (``CompactionScheduler/threads``,
/// ``ChangeHub/delivering``, ``WriterFollowing/isCatchingUpOnThisThread``).
final class StoreClosing: Sendable {
    private let finished = DispatchGroup()
    /// The thread running the first close(), and those holding the writer lock through
    /// ``RouteStore/withWriter(_:)`` (where ``RouteStore/updateSettings(_:)`` runs the
    /// caller's change).
    let threads = ThreadsAtWork()

    /// The first close() begins: called under the state lock, in the same step that
    /// marks the handle closing, so that a close() that sees it closing always finds
    /// this begun.
    func begin() { finished.enter() }

    /// The first close() has let everything go.
    func end() { finished.leave() }

    /// True once the first close() has ended (or none began).
    var hasEnded: Bool { finished.wait(timeout: .now()) == .success }

    /// Returns once the first close() has ended.
    func waitForTheFirst() { finished.wait() }
}
