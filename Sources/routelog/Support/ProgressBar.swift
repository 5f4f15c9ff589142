import Foundation
import RouteLog

/// A progress line on stderr for long work (verify, compact), drawn only when stderr
/// is a terminal and the store is large enough for the wait to be noticed: pipes,
/// files and quick runs get nothing extra.
final class ProgressBar: Sendable {
    /// Stores smaller than this finish before a bar would be seen.
    static let minimumStoreBytes: Int64 = 8 << 20

    private struct State {
        var lastDrawn = Date.distantPast
        var finished = false
    }

    private let label: String
    private let console: Console
    /// The clock behind the elapsed time and the ten-a-second limit on redraws.
    private let now: @Sendable () -> Date
    private let started: Date
    private let state = StateLock(State())

    private init(label: String, console: Console, now: @escaping @Sendable () -> Date) {
        self.label = label
        self.console = console
        self.now = now
        self.started = now()
    }

    /// A bar, or nil when stderr is not a terminal or the store is small. `now` is the
    /// clock the bar reads (the system's unless a test gives its own).
    static func make(_ label: String, storeBytes: Int64, console: Console,
                     now: @escaping @Sendable () -> Date = { Date() }) -> ProgressBar? {
        guard console.errorIsTerminal, storeBytes >= minimumStoreBytes else { return nil }
        return ProgressBar(label: label, console: console, now: now)
    }

    /// Redraws with `fraction` (0...1) done, at most ten times a second.
    func update(_ fraction: Double) {
        let due = state.withLock { state -> Bool in
            // A clock set back (the wall clock can be) draws at once, rather than
            // leaving the line as it is until the clock passes the last drawing again.
            let time = now(), since = time.timeIntervalSince(state.lastDrawn)
            guard !state.finished, since >= 0.1 || since < 0 else { return false }
            state.lastDrawn = time
            return true
        }
        guard due else { return }
        let width = 30
        let clamped = min(1, max(0, fraction))
        let filled = Int((clamped * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        console.writeError("\r\(label) [\(bar)] \(String(format: "%3d", Int(clamped * 100)))%  \(elapsed)")
    }

    /// For work that cannot say how far it is: redraws the elapsed time until `body`
    /// returns.
    func whileRunning<T>(_ body: () throws -> T) rethrows -> T {
        let thread = Thread { [self] in
            // Drawn under the lock, so nothing is drawn after finish() cleared the line.
            while state.withLock({ state -> Bool in
                if !state.finished { console.writeError("\r\(label) ... \(elapsed)") }
                return !state.finished
            }) {
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        thread.start()
        defer { finish() }
        return try body()
    }

    /// Clears the line.
    func finish() {
        state.withLock { state in
            if !state.finished { console.writeError("\r\u{1B}[K") }
            state.finished = true
        }
    }

    private var elapsed: String { String(format: "%.1f s", now().timeIntervalSince(started)) }
}
