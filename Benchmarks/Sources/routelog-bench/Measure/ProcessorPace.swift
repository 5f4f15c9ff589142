import Foundation

/// How fast the processor ran at one moment. This machine is a shared virtual one, and
/// its pace changes by as much as two times between hours: the same build's figures are
/// only comparable with the pace beside them. The figure is the time of one step of a
/// chain of 64-bit multiply-adds, x = x × x + c, each waiting on the last (about four
/// cycles a step on current x86-64 and arm64 cores; squaring, so that no compiler can
/// sum the chain up in closed form), best of five runs of 2^22 steps.
enum ProcessorPace {
    static let steps = 1 << 22

    /// Nanoseconds a step, with the clock rate it implies at four cycles a step.
    static func measure() -> (nanosecondsPerStep: Double, impliedGHz: Double) {
        var best = Double.infinity
        // Start and step from the clock: known only when the run starts.
        var x = UInt64(truncatingIfNeeded: DispatchTime.now().uptimeNanoseconds)
        let c = x | 1
        for _ in 0..<5 {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<steps { x = x &* x &+ c }
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
            best = min(best, elapsed / Double(steps))
        }
        // The chain's end is used, so that the loop cannot be left out.
        if x == 0 { print("", terminator: "") }
        return (best, 4 / best)
    }

    /// "1.42 ns a step (about 2.8 GHz)".
    static func describe() -> String {
        let pace = measure()
        return "\(Format.decimal(pace.nanosecondsPerStep, 2)) ns a step (about \(Format.decimal(pace.impliedGHz, 1)) GHz)"
    }
}
