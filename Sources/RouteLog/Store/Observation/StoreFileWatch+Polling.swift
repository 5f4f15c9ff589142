#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation

/// The portable watch: every `interval` it lists the store's directory and calls when a
/// file's name, inode or size differs from the last look. Segments and the index only
/// grow between compactions, and the manifest is replaced by rename (a new inode), so
/// every commit changes the fingerprint. Each look first checks that the path still
/// names the same directory (device and inode): when not, the directory is gone.
///
/// Linux uses it only when inotify is refused. Apple builds use it for now: a version on
/// `DispatchSource.makeFileSystemObjectSource` (vnode events on the directory and the
/// active segment) is still to be written, and would go in `StoreFileWatch+Darwin.swift`.
final class PollingStoreWatch: StoreFileWatch {
    // A dispatch source is thread-safe; the Dispatch overlay does not say so in types.
    private nonisolated(unsafe) let timer: any DispatchSourceTimer

    init(directory: String, identity: DirectoryIdentity?, interval: DispatchTimeInterval = .milliseconds(100),
         onChange: @escaping @Sendable () -> Void, onGone: @escaping @Sendable () -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "RouteLog.PollingStoreWatch"))
        let expected = identity ?? DirectoryIdentity(of: directory)
        let last = StateLock(Self.fingerprint(of: directory))
        let gone = StateLock(false)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(20))
        timer.setEventHandler {
            guard !gone.withLock({ $0 }) else { return }
            guard let expected, DirectoryIdentity(of: directory) == expected else {
                gone.withLock { $0 = true }
                onGone()
                return
            }
            let now = Self.fingerprint(of: directory)
            let changed = last.withLock { seen -> Bool in
                defer { seen = now }
                return seen != now
            }
            if changed { onChange() }
        }
        timer.resume()
        self.timer = timer
    }

    func stop() {
        timer.cancel()
    }

    /// Each file's inode and size, by name; empty when the directory cannot be listed.
    static func fingerprint(of directory: String) -> [String: [UInt64]] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var result: [String: [UInt64]] = [:]
        for name in names {
            var info = stat()
            guard lstat(directory + "/" + name, &info) == 0 else { continue }
            result[name] = [UInt64(info.st_ino), UInt64(info.st_size)]
        }
        return result
    }
}
