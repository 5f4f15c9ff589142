import Foundation

/// What a detail or list screen shows of a route's effort, computed from its points when
/// it is saved and kept in the store's index (format-spec.md, "Derived fields"), so that
/// listing never decodes points.
///
/// A route saved before stats existed (or recorded with ``RouteRecorder``) has none:
/// ``RouteSummary/stats`` is nil, meaning unknown, not zero.
public struct RouteStats: Sendable, Equatable, Hashable, Codable {
    /// Seconds spent moving (steps of at least ``RouteMetrics/defaultMinimumMovingSpeed``).
    public var movingTime: TimeInterval
    /// The largest speed in metres per second: from the points' own speed when they have
    /// one, else the largest median step speed over windows of at least 5 seconds (a
    /// jittered fix makes no record).
    public var maxSpeed: Double
    /// Metres climbed, counting only changes of at least ``elevationNoiseThreshold``;
    /// nil when no point has an altitude.
    public var elevationGain: Double?
    /// Metres descended, with the same threshold; nil when no point has an altitude.
    public var elevationLoss: Double?
    /// Mean heart rate in beats per minute over the points that have one.
    public var averageHeartRate: Double?
    /// Largest heart rate in beats per minute.
    public var maxHeartRate: Double?
    /// Mean cadence per minute over the points that have one.
    public var averageCadence: Double?
    /// Largest cadence per minute.
    public var maxCadence: Double?

    /// Altitude changes smaller than this many metres (barometer and GPS noise) add
    /// nothing to ``elevationGain`` or ``elevationLoss``: 3 m.
    public static let elevationNoiseThreshold = 3.0
    /// The shortest span, in seconds, over which ``maxSpeed`` is measured from positions.
    public static let maxSpeedWindow = 5.0

    /// Creates stats (the store computes them; apps rarely need to).
    public init(movingTime: TimeInterval, maxSpeed: Double, elevationGain: Double? = nil, elevationLoss: Double? = nil,
                averageHeartRate: Double? = nil, maxHeartRate: Double? = nil,
                averageCadence: Double? = nil, maxCadence: Double? = nil) {
        self.movingTime = movingTime
        self.maxSpeed = maxSpeed
        self.elevationGain = elevationGain
        self.elevationLoss = elevationLoss
        self.averageHeartRate = averageHeartRate
        self.maxHeartRate = maxHeartRate
        self.averageCadence = averageCadence
        self.maxCadence = maxCadence
    }

    /// Computes the stats of `points` as the store does at save, before it rounds them
    /// to the stored units.
    /// - Parameter segmentStarts: indices where a new segment starts (not travelled).
    public static func compute(_ points: [TrackPoint], segmentStarts: [Int] = []) -> RouteStats {
        compute(points, segmentStarts: segmentStarts, movingTime: nil)
    }

    /// ``compute(_:segmentStarts:)`` for a save that has measured the moving time
    /// already (``RouteMetrics/movingTime(of:segmentStarts:minimumSpeed:)``'s, to the
    /// bit): when the points report their speed, no step is measured again.
    static func compute(_ points: [TrackPoint], segmentStarts: [Int], movingTime: TimeInterval?) -> RouteStats {
        // One pass over the points for everything but the steps: a 3,600-point route is
        // 288 KB of `TrackPoint`s, read once instead of four times.
        var gain: Double?, loss: Double?
        var heartRate = MeanAndMax(), cadence = MeanAndMax()
        var reported = -1.0
        // Each segment is measured alone: the jump across a break is not climbed, as
        // its distance is not travelled.
        let ends = segmentStarts.filter { $0 > 0 && $0 < points.count } + [points.count]
        points.withUnsafeBufferPointer { p in
            var start = 0
            for end in ends where end > start {
                var climb = ElevationHysteresis(threshold: elevationNoiseThreshold)
                for i in start..<end {
                    let point = p[i]
                    if let altitude = point.altitude { climb.add(altitude) }
                    if let rate = point.heartRate { heartRate.add(rate) }
                    if let rate = point.cadence { cadence.add(rate) }
                    if let speed = point.speed, speed.isFinite { reported = Swift.max(reported, speed) }
                }
                if let g = climb.gain, let l = climb.loss {
                    gain = (gain ?? 0) + g
                    loss = (loss ?? 0) + l
                }
                start = end
            }
        }
        let (moving, maxSpeed) = movingTimeAndMaxSpeed(points, segmentStarts: segmentStarts, knownMovingTime: movingTime,
                                                       reportedSpeed: reported)
        let hr = heartRate.result, rpm = cadence.result
        return RouteStats(movingTime: moving, maxSpeed: maxSpeed,
                          elevationGain: gain, elevationLoss: loss,
                          averageHeartRate: hr?.mean, maxHeartRate: hr?.max,
                          averageCadence: rpm?.mean, maxCadence: rpm?.max)
    }

    /// Gain and loss of `altitudes` with a hysteresis of `threshold` metres: the
    /// reference moves only once the altitude is `threshold` past it (or further in the
    /// direction already being followed). Nil, nil for no altitude.
    public static func elevationChange(_ altitudes: some Sequence<Double>, threshold: Double) -> (gain: Double?, loss: Double?) {
        var climb = ElevationHysteresis(threshold: threshold)
        for altitude in altitudes { climb.add(altitude) }
        return (climb.gain, climb.loss)
    }

    /// Moving time and the largest speed from one pass over the steps (each geodesic
    /// step is measured once): the points' own largest speed when any has one, else the
    /// largest median step speed over windows of consecutive travelled steps spanning at
    /// least ``maxSpeedWindow`` seconds. The moving time is exactly ``RouteMetrics/movingTime(of:segmentStarts:minimumSpeed:)``'s.
    /// - Parameter reportedSpeed: the points' largest finite speed (-1 when none has
    ///   one), when the caller has found it already.
    static func movingTimeAndMaxSpeed(_ points: [TrackPoint], segmentStarts: [Int], knownMovingTime: TimeInterval? = nil,
                                      reportedSpeed: Double? = nil) -> (moving: TimeInterval, maxSpeed: Double) {
        guard points.count > 1 else { return (0, max(0, points.first?.speed ?? 0)) }
        var reported = -1.0
        if let reportedSpeed {
            reported = reportedSpeed
        } else {
            for point in points { if let speed = point.speed, speed.isFinite { reported = Swift.max(reported, speed) } }
        }
        if reported >= 0, let knownMovingTime { return (knownMovingTime, reported) }
        var steps = [Double](repeating: 0, count: points.count)
        var travelled = [Bool](repeating: false, count: points.count)
        var moving = 0.0
        RouteMetrics.forEachStep(points, segmentStarts) { i, length in
            steps[i] = length
            travelled[i] = true
            let seconds = points[i].timestamp.timeIntervalSince(points[i - 1].timestamp)
            if RouteMetrics.isMoving(length, seconds, RouteMetrics.defaultMinimumMovingSpeed) { moving += seconds }
        }
        if reported >= 0 { return (moving, reported) }
        // A window (start, end] of travelled steps spanning at least the minimum; its
        // speed is the median of its steps' speeds, so a fix or two jittered far away
        // (two fast steps, out and back) make no record. At most 64 steps a window keeps
        // the work linear whatever the sampling rate.
        var best = 0.0, start = 0
        var speeds: [Double] = []
        for end in 1..<points.count {
            guard travelled[end] else {
                start = end
                continue
            }
            func span(_ from: Int) -> Double { points[end].timestamp.timeIntervalSince(points[from].timestamp) }
            while start + 1 < end, span(start + 1) >= maxSpeedWindow || end - start > 64 { start += 1 }
            guard span(start) >= maxSpeedWindow else { continue }
            speeds.removeAll(keepingCapacity: true)
            for i in (start + 1)...end {
                let seconds = points[i].timestamp.timeIntervalSince(points[i - 1].timestamp)
                if seconds > 0 { speeds.append(steps[i] / seconds) }
            }
            guard !speeds.isEmpty else { continue }
            speeds.sort()
            best = Swift.max(best, speeds[speeds.count / 2])
        }
        return (moving, best)
    }
}

/// Elevation gain and loss with a hysteresis, one altitude at a time
/// (``RouteStats/elevationChange(_:threshold:)``): the first altitude is the reference;
/// later ones that are not finite are skipped.
struct ElevationHysteresis {
    private let threshold: Double
    private var reference = 0.0, started = false
    private var direction = 0  // 1 climbing, -1 descending, 0 not yet known
    private var climbed = 0.0, descended = 0.0

    init(threshold: Double) { self.threshold = threshold }

    /// Metres climbed and descended; nil before any altitude.
    var gain: Double? { started ? climbed : nil }
    var loss: Double? { started ? descended : nil }

    @inline(__always)
    mutating func add(_ altitude: Double) {
        guard started else {
            (reference, started) = (altitude, true)
            return
        }
        guard altitude.isFinite else { return }
        let change = altitude - reference
        switch direction {
        case 1 where change > 0, 0 where change >= threshold, -1 where change >= threshold:
            climbed += change
            reference = altitude
            direction = 1
        case -1 where change < 0, 0 where change <= -threshold, 1 where change <= -threshold:
            descended -= change
            reference = altitude
            direction = -1
        default:
            break
        }
    }
}

/// The mean and largest of the finite values added, in the order added.
struct MeanAndMax {
    private var sum = 0.0, count = 0, largest = -Double.infinity

    @inline(__always)
    mutating func add(_ value: Double) {
        guard value.isFinite else { return }
        sum += value
        count += 1
        largest = Swift.max(largest, value)
    }

    var result: (mean: Double, max: Double)? { count == 0 ? nil : (sum / Double(count), largest) }
}
