import Foundation
import RouteLog
import RouteLogSamples

/// The benchmark's walks: RouteLogSamples' realistic 1 Hz walks (the same the demo and
/// the tests use), started at a steady spacing so the store spans years of use.
struct WalkSchedule {
    private var walks: WalkGenerator
    private var number = 0
    /// The first walk starts within an hour after this date.
    var firstStart = Date(timeIntervalSince1970: 1_704_096_000)  // 2024-01-01 08:00 UTC
    /// Seconds between the starts of consecutive walks (before the random offset).
    var startSpacing: TimeInterval = 8 * 3_600

    init(seed: UInt64) { walks = WalkGenerator(seed: seed) }

    /// The next walk, of exactly `pointCount` fixes one second apart.
    mutating func walk(pointCount: Int) -> Route {
        let start = firstStart.addingTimeInterval(Double(number) * startSpacing + walks.uniform(0, 3_600).rounded())
        number += 1
        return walks.walk(points: pointCount, start: start)
    }
}
