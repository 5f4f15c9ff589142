import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libdispatch sets up its event loop (on Linux an epoll descriptor and an eventfd) the
/// first time a process schedules timed work, and traps when it can get no descriptor.
/// A store schedules such work in the middle of a change, holding the writer's lock: a
/// buffered save arms the quiet sync (``QuietSync``), a change may start a background
/// compaction. A process that had run out of descriptors by then crashed inside a save
/// or a delete instead of getting an error. So the first store a process opens starts
/// the event loop while descriptors are still to be had (checked first by opening two,
/// as many as the loop takes; when there are none the store's own open fails with an
/// error, and the next open tries again).
enum DispatchEventLoop {
    private static let started = StateLock(false)

    static func start() {
        started.withLock { started in
            guard !started else { return }
            let first = open("/dev/null", O_RDONLY | O_CLOEXEC), second = open("/dev/null", O_RDONLY | O_CLOEXEC)
            if first >= 0 { _ = close(first) }
            if second >= 0 { _ = close(second) }
            guard first >= 0, second >= 0 else { return }
            // Timed work that does nothing: what makes libdispatch set up the loop.
            DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now()) {}
            started = true
        }
    }
}
