import Foundation
import RouteLog
import Testing
@testable import routelog

/// The progress line: only on a terminal, only for large stores, cleared at the end.
@Suite struct ProgressBarDrawingTests {
    final class Capture: Sendable {
        let text = StateLock("")
        var console: Console {
            Console(writeOut: { _ in }, writeError: { [self] s in text.withLock { $0 += s } }, errorIsTerminal: true)
        }
    }

    @Test func onlyOnATerminalAndForLargeStores() {
        let capture = Capture()
        var pipe = capture.console
        pipe.errorIsTerminal = false
        #expect(ProgressBar.make("verifying", storeBytes: 1 << 30, console: pipe) == nil)
        #expect(ProgressBar.make("verifying", storeBytes: ProgressBar.minimumStoreBytes - 1, console: capture.console) == nil)
        #expect(ProgressBar.make("verifying", storeBytes: ProgressBar.minimumStoreBytes, console: capture.console) != nil)
    }

    /// A clock that moves only when told, so that what the bar draws does not depend
    /// on how fast the test runs.
    final class FakeClock: Sendable {
        private let time = StateLock(Date(timeIntervalSinceReferenceDate: 0))
        var now: @Sendable () -> Date { { [time] in time.withLock { $0 } } }
        func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
    }

    @Test func drawsTheFractionAndClearsTheLine() {
        let capture = Capture()
        let clock = FakeClock()
        let bar = ProgressBar.make("verifying", storeBytes: 1 << 30, console: capture.console, now: clock.now)!
        bar.update(0.5)
        clock.advance(0.05)
        bar.update(0.6)  // within a tenth of a second: not drawn
        clock.advance(0.45)
        bar.update(0.75)  // half a second after the last: drawn
        bar.finish()
        bar.finish()
        let text = capture.text.withLock { $0 }
        #expect(text == "\rverifying [###############...............]  50%  0.0 s"
                      + "\rverifying [######################........]  75%  0.5 s"
                      + "\r\u{1B}[K", "cleared once, at the end")
    }

    /// A wall clock set back (the default clock is `Date()`) does not stop the bar: the
    /// next update is drawn at once, not only once the clock has passed the time of the
    /// last drawing again, which after a step back of an hour would leave the line
    /// frozen for that hour. A clock that jumps far ahead draws too, and nothing after
    /// finish().
    @Test func aClockSetBackOrJumpingAheadKeepsTheBarDrawn() {
        let capture = Capture()
        let clock = FakeClock()
        let bar = ProgressBar.make("verifying", storeBytes: 1 << 30, console: capture.console, now: clock.now)!
        bar.update(0.1)
        clock.advance(-3_600)
        bar.update(0.2)  // the clock went back: drawn
        clock.advance(0.05)
        bar.update(0.3)  // within a tenth of a second of that: not drawn
        clock.advance(1e9)
        bar.update(0.4)
        bar.finish()
        clock.advance(1)
        bar.update(0.9)
        bar.finish()
        let lines = capture.text.withLock { $0 }.split(separator: "\r").map(String.init)
        #expect(lines.count == 4, "\(lines)")
        #expect(lines.first?.contains(" 10%") == true)
        #expect(lines.dropFirst().first?.contains(" 20%  -3600.0 s") == true, "\(lines)")
        #expect(lines.dropFirst(2).first?.contains(" 40%") == true, "\(lines)")
        #expect(lines.last == "\u{1B}[K")
    }

    @Test func workWithoutAFractionShowsTheTimeAndNothingAfter() throws {
        let capture = Capture()
        let bar = ProgressBar.make("compacting", storeBytes: 1 << 30, console: capture.console, now: FakeClock().now)!
        let result = bar.whileRunning { () -> Int in
            // The work lasts until the bar has drawn its line (or half a minute, which fails).
            let deadline = Date().addingTimeInterval(30)
            while !capture.text.withLock({ $0.contains("compacting ... ") }) && Date() < deadline { usleep(1_000) }
            return 42
        }
        #expect(result == 42)
        // Two ticks of the drawing thread: a line drawn after the clearing would be here.
        Thread.sleep(forTimeInterval: 0.2)
        let text = capture.text.withLock { $0 }
        #expect(text.hasPrefix("\rcompacting ... 0.0 s"))
        #expect(text.hasSuffix("\r\u{1B}[K"), "nothing drawn after the line is cleared")
    }
}
