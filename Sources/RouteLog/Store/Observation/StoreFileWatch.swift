/// Tells a read-only handle that the store's files changed, so that it can catch up
/// with the writer process (Store/Observation/WriterFollowing.swift). A watch only
/// says "something changed, look": it may call more often than the writer commits,
/// and several commits may come as one call; the catch-up reads what is new.
///
/// A watch also says, once, when the directory itself is gone: deleted, moved away, or
/// moved away and replaced by another directory at the same path (a different
/// ``DirectoryIdentity``). No change can come after that, so it calls no more.
protocol StoreFileWatch: Sendable {
    /// Stops calling. No call begins after this returns (one already running may end).
    func stop()
}

/// Which kind of watch a handle starts.
enum StoreFileWatchKind: Sendable {
    /// The platform's file events where they exist (inotify on Linux), polling elsewhere
    /// or when the events cannot be had (say, the inotify watch limit is reached).
    case platform
    /// Polling, wherever it runs (the tests use it to check the fallback).
    case polling

    /// Starts a watch on `directory` that calls `onChange` when its files change and
    /// `onGone` once when the directory is no longer the one of `identity` (the one there
    /// now when nil), from a queue of its own.
    func start(directory: String, identity: DirectoryIdentity?, onChange: @escaping @Sendable () -> Void,
               onGone: @escaping @Sendable () -> Void) -> any StoreFileWatch {
        #if os(Linux)
        if self == .platform,
           let watch = InotifyStoreWatch(directory: directory, identity: identity, onChange: onChange, onGone: onGone) {
            return watch
        }
        #endif
        return PollingStoreWatch(directory: directory, identity: identity, onChange: onChange, onGone: onGone)
    }
}
