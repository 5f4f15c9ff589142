import Foundation
import RouteLog

/// Deterministic, realistic 1 Hz walks: what a phone records on a walk, with GPS noise.
///
/// Depends only on Foundation and RouteLog's model, so it can move to a shared target
/// (the demo uses the same walks). The same seed gives the same route on every platform:
/// the generator uses its own PRNG and no system randomness.
///
/// ```swift
/// var walks = WalkGenerator(seed: 42)
/// let route = walks.walk(pointCount: 3_600)   // exactly one hour at 1 Hz
/// let other = walks.walk()                      // 20 to 90 minutes
/// ```
public struct WalkGenerator: Sendable {
    private var random: SplitMix64
    private var walkNumber = 0

    /// Where walks start: a point drawn within about 50 km of this coordinate.
    public var origin = Coordinate(latitude: 48.8566, longitude: 2.3522)
    /// The first walk starts on this date; each later one about 8 hours after the previous.
    public var firstStart = Date(timeIntervalSince1970: 1_704_096_000)  // 2024-01-01 08:00 UTC
    /// Seconds between the starts of consecutive walks (before a random offset of up to an hour).
    public var startSpacing: TimeInterval = 8 * 3_600

    /// Creates a generator; the same seed gives the same sequence of walks.
    public init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    /// The next walk: `pointCount` fixes one second apart, or 20 to 90 minutes when nil.
    ///
    /// A random walk at 1.2 to 1.6 m/s with a slowly wandering heading, correlated GPS
    /// noise scaled by the reported horizontal accuracy (3 to 15 m), altitude with
    /// noise, reported speed and course, and kilometre and mile splits.
    public mutating func walk(pointCount: Int? = nil) -> Route {
        let count = pointCount ?? Int(random.uniform(in: 1_200...5_400))
        precondition(count >= 1, "a walk has at least one point")
        let number = walkNumber
        walkNumber += 1

        let metresPerDegreeLatitude = 111_132.0
        var latitude = origin.latitude + random.uniform(in: -0.45...0.45)
        var longitude = origin.longitude + random.uniform(in: -0.65...0.65)
        let metresPerDegreeLongitude = metresPerDegreeLatitude * cos(latitude * .pi / 180)
        let cruise = random.uniform(in: 1.2...1.6)
        var speed = cruise
        var heading = random.uniform(in: 0..<(2 * .pi))
        var altitude = random.uniform(in: 20...300)
        var noiseNorth = 0.0, noiseEast = 0.0, noiseUp = 0.0
        var accuracy = random.uniform(in: 4...8)
        let start = firstStart.addingTimeInterval(
            Double(number) * startSpacing + random.uniform(in: 0..<3_600).rounded())
            .addingTimeInterval(Double(Int(random.uniform(in: 0..<1_000))) / 1_000)

        var points: [TrackPoint] = []
        points.reserveCapacity(count)
        var splits: [Split] = []
        var travelled = 0.0
        var nextKilometre = 1_000.0, nextMile = Split.Unit.mile.metres
        for i in 0..<count {
            if i > 0 {
                // Pace drifts around the walker's cruising speed; heading wanders, with
                // an occasional corner.
                speed += 0.05 * (cruise - speed) + random.gaussian() * 0.04
                speed = min(max(speed, 0.3), 2.2)
                heading += random.gaussian() * 0.03
                if random.uniform(in: 0..<1) < 0.004 { heading += random.uniform(in: -1.6...1.6) }
                let north = cos(heading) * speed, east = sin(heading) * speed
                latitude += north / metresPerDegreeLatitude
                longitude += east / metresPerDegreeLongitude
                altitude += random.gaussian() * 0.08
                travelled += speed
                if travelled >= nextKilometre {
                    splits.append(Split(unit: .kilometre, pointIndex: i, elapsedTime: Double(i)))
                    nextKilometre += 1_000
                }
                if travelled >= nextMile {
                    splits.append(Split(unit: .mile, pointIndex: i, elapsedTime: Double(i)))
                    nextMile += Split.Unit.mile.metres
                }
            }
            // GPS error drifts slowly from one fix to the next (AR(1), as a phone's
            // filtered fixes do): about a fifth of the reported accuracy, and a few
            // decimetres of jitter between consecutive fixes.
            accuracy = min(max(accuracy + random.gaussian() * 0.3, 3), 15)
            noiseNorth = 0.98 * noiseNorth + random.gaussian() * accuracy * 0.04
            noiseEast = 0.98 * noiseEast + random.gaussian() * accuracy * 0.04
            noiseUp = 0.98 * noiseUp + random.gaussian() * 0.1
            let verticalAccuracy = min(max(accuracy * 1.5, 4), 20)
            var course = (heading * 180 / .pi + random.gaussian() * 4)
                .truncatingRemainder(dividingBy: 360)
            if course < 0 { course += 360 }
            points.append(TrackPoint(
                latitude: latitude + noiseNorth / metresPerDegreeLatitude,
                longitude: longitude + noiseEast / metresPerDegreeLongitude,
                timestamp: start.addingTimeInterval(Double(i)),
                altitude: altitude + noiseUp,
                horizontalAccuracy: accuracy,
                verticalAccuracy: verticalAccuracy,
                speed: max(0, speed + random.gaussian() * 0.15),
                course: course))
        }
        let calories = (travelled / 1_000 * 62).rounded()
        return Route(points: points, splits: splits,
                     metadata: RouteMetadata(name: "Walk \(number + 1)", calories: calories))
    }
}

/// SplitMix64 (Steele, Lea and Flood, 2014): tiny, fast, and the same on every platform.
struct SplitMix64: Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1), 53 bits.
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    mutating func uniform(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }

    mutating func uniform(in range: Range<Double>) -> Double {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }

    /// Standard normal (Box-Muller; the second value is dropped to keep the state simple).
    mutating func gaussian() -> Double {
        let u1 = max(unit(), 0x1p-53), u2 = unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
