#if os(Linux)
import Dispatch
import Glibc

/// Linux: inotify on the store's directory. A segment growing (IN_MODIFY), a segment
/// or index file made (IN_CREATE), the manifest switched by rename (IN_MOVED_TO) and
/// files a compaction removes (IN_DELETE) each wake the handle. The inotify descriptor
/// is read from a dispatch read source (epoll underneath), so no thread blocks on it.
///
/// Only this file knows about inotify; everything else goes through ``StoreFileWatch``.
final class InotifyStoreWatch: StoreFileWatch {
    // A dispatch source is thread-safe; the Dispatch overlay does not say so in types.
    private nonisolated(unsafe) let source: any DispatchSourceRead

    /// nil when inotify refuses (no descriptors left, the per-user watch limit reached,
    /// a file system that has no events): the caller polls instead.
    init?(directory: String, onChange: @escaping @Sendable () -> Void) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_DELETE)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            Glibc.close(fd)
            return nil
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "RouteLog.InotifyStoreWatch"))
        source.setEventHandler {
            // The events say which file changed; the catch-up looks at every file anyway,
            // so they are drained and one call covers them all.
            var buffer = [UInt8](repeating: 0, count: 4096)
            while buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
            onChange()
        }
        source.setCancelHandler { Glibc.close(fd) }
        source.resume()
        self.source = source
    }

    func stop() {
        source.cancel()
    }
}
#endif
