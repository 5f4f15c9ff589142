import Foundation
import RouteLog

/// Realistic, reproducible walks for demos, tests and benchmarks: a 1 Hz recording of
/// someone walking at 1.2-1.6 m/s along a wandering path, with GPS noise, altitude,
/// accuracies, speed and course, as a phone would record it.
public struct WalkGenerator: Sendable {
    private var rng: SeededRandom

    /// A generator whose routes depend only on `seed`.
    public init(seed: UInt64) { rng = SeededRandom(seed: seed) }

    /// A walk of `points` seconds starting at `start` near `origin`, with kilometre and
    /// mile splits and calories.
    public mutating func walk(points: Int, start: Date,
                              origin: Coordinate = Coordinate(latitude: 45.4642, longitude: 9.19)) -> Route {
        precondition(points >= 1)
        let metresPerDegreeLat = 111_132.0
        let metresPerDegreeLon = 111_320.0 * cos(origin.latitude * .pi / 180)
        var lat = origin.latitude + rng.uniform(-0.05, 0.05)
        var lon = origin.longitude + rng.uniform(-0.05, 0.05)
        var heading = rng.uniform(0, 2 * .pi)
        var altitude = rng.uniform(100, 400)
        let pace = rng.uniform(1.2, 1.6)
        var horizontalAccuracy = 5.0, verticalAccuracy = 8.0
        var noiseNorth = 0.0, noiseEast = 0.0
        var result: [TrackPoint] = []
        result.reserveCapacity(points)
        var travelled = 0.0
        var splits: [Split] = []
        var nextKm = 1000.0, nextMile = 1609.344
        for i in 0..<points {
            heading += rng.uniform(-0.15, 0.15)
            let speed = max(0, pace + rng.uniform(-0.2, 0.2))
            lat += speed * cos(heading) / metresPerDegreeLat
            lon += speed * sin(heading) / metresPerDegreeLon
            altitude += rng.uniform(-0.3, 0.3)
            // Phones report accuracy in steps that change every few seconds, not every fix.
            if rng.uniform(0, 1) < 0.1 { horizontalAccuracy = max(3, min(30, horizontalAccuracy + rng.uniform(-2, 2).rounded())) }
            if rng.uniform(0, 1) < 0.1 { verticalAccuracy = max(3, min(30, verticalAccuracy + rng.uniform(-2, 2).rounded())) }
            travelled += speed
            // GPS error drifts: a slowly wandering offset of a few metres, not fresh noise
            // at every fix (which would add metres of false distance each second).
            noiseNorth = 0.95 * noiseNorth + rng.uniform(-0.4, 0.4)
            noiseEast = 0.95 * noiseEast + rng.uniform(-0.4, 0.4)
            let noiseLat = noiseNorth / metresPerDegreeLat
            let noiseLon = noiseEast / metresPerDegreeLon
            var course = heading * 180 / .pi
            course = course.truncatingRemainder(dividingBy: 360)
            if course < 0 { course += 360 }
            result.append(TrackPoint(
                latitude: lat + noiseLat, longitude: lon + noiseLon,
                timestamp: start.addingTimeInterval(Double(i) + rng.uniform(0, 0.004)),
                altitude: altitude, horizontalAccuracy: horizontalAccuracy,
                verticalAccuracy: verticalAccuracy, speed: speed, course: course))
            if travelled >= nextKm {
                splits.append(Split(unit: .kilometre, pointIndex: i, elapsedTime: Double(i)))
                nextKm += 1000
            }
            if travelled >= nextMile {
                splits.append(Split(unit: .mile, pointIndex: i, elapsedTime: Double(i)))
                nextMile += 1609.344
            }
        }
        let calories = (travelled / 1000 * 55).rounded()
        return Route(points: result, splits: splits, metadata: RouteMetadata(calories: calories))
    }

    /// A walk of 20 to 90 minutes.
    public mutating func walk(start: Date) -> Route {
        walk(points: Int(rng.uniform(20 * 60, 90 * 60)), start: start)
    }

    /// A number in `low..<high`.
    public mutating func uniform(_ low: Double, _ high: Double) -> Double { rng.uniform(low, high) }
}

/// A small, fast, seedable random number generator (SplitMix64): the same seed gives
/// the same numbers on every platform, so generated routes and test cases replay.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose numbers depend only on `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `low..<high`.
    public mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }
}
