import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic time in nanoseconds.
enum Stopwatch {
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Runs `body` and returns what it returned and the seconds it took.
    static func time<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let start = now()
        let value = try body()
        return (value, Double(now() - start) / 1e9)
    }

    /// Runs `body` up to `repeats` times and returns the median seconds; stops repeating
    /// once a run takes longer than `enough` seconds (slow baselines run once).
    static func median(repeats: Int, enough: Double = 0.5, _ body: () throws -> Void) rethrows -> Double {
        var samples: [Double] = []
        for _ in 0..<max(1, repeats) {
            let start = now()
            try body()
            samples.append(Double(now() - start) / 1e9)
            if samples.last! > enough { break }
        }
        return Percentiles(samples).value(at: 50)
    }
}
