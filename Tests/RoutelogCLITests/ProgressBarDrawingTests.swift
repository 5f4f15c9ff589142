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

    @Test func drawsTheFractionAndClearsTheLine() {
        let capture = Capture()
        let bar = ProgressBar.make("verifying", storeBytes: 1 << 30, console: capture.console)!
        bar.update(0.5)
        bar.update(0.6)  // within a tenth of a second: not drawn
        bar.finish()
        bar.finish()
        let text = capture.text.withLock { $0 }
        #expect(text.hasPrefix("\rverifying [###############...............]  50%  0.0 s"))
        #expect(!text.contains("60%"))
        #expect(text.hasSuffix("\r\u{1B}[K"))
        #expect(text.components(separatedBy: "\u{1B}[K").count == 2, "cleared once")
    }

    @Test func workWithoutAFractionShowsTheTimeAndNothingAfter() throws {
        let capture = Capture()
        let bar = ProgressBar.make("compacting", storeBytes: 1 << 30, console: capture.console)!
        let result = bar.whileRunning { () -> Int in
            Thread.sleep(forTimeInterval: 0.25)
            return 42
        }
        #expect(result == 42)
        Thread.sleep(forTimeInterval: 0.2)
        let text = capture.text.withLock { $0 }
        #expect(text.hasPrefix("\rcompacting ... "))
        #expect(text.hasSuffix("\r\u{1B}[K"), "nothing drawn after the line is cleared")
    }
}
