#if os(Linux)
import Dispatch
import Glibc

/// Linux: inotify on the store's directory. A segment growing (IN_MODIFY), a segment
/// or index file made (IN_CREATE), the manifest switched by rename (IN_MOVED_TO) and
/// files a compaction removes (IN_DELETE) each wake the handle. The directory itself
/// deleted (IN_DELETE_SELF), moved (IN_MOVE_SELF), its file system unmounted
/// (IN_UNMOUNT) or the watch dropped by the kernel (IN_IGNORED) means it is gone. The
/// inotify descriptor is read from a dispatch read source (epoll underneath), so no
/// thread blocks on it.
///
/// Those events are not enough alone: a directory whose files a process still holds
/// open (this handle holds its segments) sends IN_DELETE_SELF only once they are
/// closed, and a parent directory moved away sends nothing at all. So the directory's
/// identity is also checked at every wake-up and once a second.
///
/// Only this file knows about inotify; everything else goes through ``StoreFileWatch``.
final class InotifyStoreWatch: StoreFileWatch {
    // A dispatch source is thread-safe; the Dispatch overlay does not say so in types.
    private nonisolated(unsafe) let source: any DispatchSourceRead
    private nonisolated(unsafe) let identityCheck: any DispatchSourceTimer

    /// How often the directory's identity is checked between events.
    static let identityInterval = DispatchTimeInterval.seconds(1)

    /// The events that say the watched directory is gone.
    private static let goneMask = UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_IGNORED)

    /// nil when inotify refuses (no descriptors left, the per-user watch limit reached,
    /// a file system that has no events, no directory at `directory`): the caller polls
    /// instead.
    init?(directory: String, identity: DirectoryIdentity?, onChange: @escaping @Sendable () -> Void,
          onGone: @escaping @Sendable () -> Void) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            Glibc.close(fd)
            return nil
        }
        let queue = DispatchQueue(label: "RouteLog.InotifyStoreWatch")
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        let gone = StateLock(false)
        let goneOnce: @Sendable () -> Void = {
            guard !gone.withLock({ s in defer { s = true }; return s }) else { return }
            onGone()
        }
        // Taken now when the handle gave none: the directory the watch was put on.
        let expected = identity ?? DirectoryIdentity(of: directory)
        let isGone: @Sendable () -> Bool = { expected == nil || DirectoryIdentity(of: directory) != expected }
        source.setEventHandler {
            // The catch-up looks at every file anyway, so the events are drained and one
            // call covers them all; only whether the directory itself went matters.
            var buffer = [UInt8](repeating: 0, count: 4096)
            var went = false
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                went = went || Self.holdsGone(buffer.prefix(count))
            }
            if went || isGone() { goneOnce() } else if !gone.withLock({ $0 }) { onChange() }
        }
        source.setCancelHandler { Glibc.close(fd) }
        // The first check also covers a directory replaced between the handle's opening
        // and the watch's start (the watch would be on another directory).
        let identityCheck = DispatchSource.makeTimerSource(queue: queue)
        identityCheck.schedule(deadline: .now(), repeating: Self.identityInterval, leeway: .milliseconds(100))
        identityCheck.setEventHandler { if isGone() { goneOnce() } }
        source.resume()
        identityCheck.resume()
        self.source = source
        self.identityCheck = identityCheck
    }

    /// Whether any of the `struct inotify_event`s in `events` says the directory went.
    private static func holdsGone(_ events: ArraySlice<UInt8>) -> Bool {
        let header = MemoryLayout<inotify_event>.size
        var at = events.startIndex
        while at + header <= events.endIndex {
            let (mask, length) = events.withUnsafeBytes { raw -> (UInt32, UInt32) in
                let base = at - events.startIndex
                return (raw.loadUnaligned(fromByteOffset: base + MemoryLayout<inotify_event>.offset(of: \.mask)!, as: UInt32.self),
                        raw.loadUnaligned(fromByteOffset: base + MemoryLayout<inotify_event>.offset(of: \.len)!, as: UInt32.self))
            }
            if mask & goneMask != 0 { return true }
            at += header + Int(length)
        }
        return false
    }

    func stop() {
        identityCheck.cancel()
        source.cancel()
    }
}
#endif
