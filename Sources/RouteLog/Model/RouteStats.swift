import CRouteLogSystem
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
    /// - Parameter measured: the steps the same pass measured, when the points have no
    ///   speed of their own: the largest speed comes from them, with no step measured again.
    static func compute(_ points: [TrackPoint], segmentStarts: [Int], movingTime: TimeInterval?,
                        measured: TrackScratch? = nil) -> RouteStats {
        var heartRate = MeanAndMax(), cadence = MeanAndMax()
        var reported = -1.0
        let n = points.count
        let (gain, loss): (Double?, Double?)
        // The copies are read through pointers: `measured` owns them.
        defer { withExtendedLifetime(measured) {} }
        if let fields = measured?.statsFields, measured?.count == n {
            // The copies the save's first pass made, a field at a time over contiguous
            // doubles, and nothing for a field no point has. An absent value is a NaN,
            // which the rates and the speed skip as they skip any value not finite.
            (gain, loss) = climbs(segmentStarts, count: n) { range, climb in
                guard let altitudes = fields.altitudes else { return }
                climb.add(altitudes, range)
            }
            if let rates = fields.heartRates { for i in 0..<n { heartRate.add(rates[i]) } }
            if let rates = fields.cadences { for i in 0..<n { cadence.add(rates[i]) } }
            if let speeds = fields.speeds { reported = largestFinite(speeds, count: n, startingAt: reported) }
        } else {
            // One pass over the points for everything but the steps: a 3,600-point route
            // is 288 KB of `TrackPoint`s, read once instead of four times.
            (gain, loss) = points.withUnsafeBufferPointer { p in
                climbs(segmentStarts, count: n) { range, climb in
                    for i in range {
                        let point = p[i]
                        if let altitude = point.altitude { climb.add(altitude) }
                        if let rate = point.heartRate { heartRate.add(rate) }
                        if let rate = point.cadence { cadence.add(rate) }
                        if let speed = point.speed, speed.isFinite { reported = Swift.max(reported, speed) }
                    }
                }
            }
        }
        let (moving, maxSpeed) = movingTimeAndMaxSpeed(points, segmentStarts: segmentStarts, knownMovingTime: movingTime,
                                                       reportedSpeed: reported, measured: measured)
        let hr = heartRate.result, rpm = cadence.result
        return RouteStats(movingTime: moving, maxSpeed: maxSpeed,
                          elevationGain: gain, elevationLoss: loss,
                          averageHeartRate: hr?.mean, maxHeartRate: hr?.max,
                          averageCadence: rpm?.mean, maxCadence: rpm?.max)
    }

    /// The largest finite value of `values[0..<count]` and `start`, as a loop of
    /// `Swift.max(largest, value)` over them in order gives it, to the bit
    /// (``routelog_largest_finite``: four running maxima side by side, four values at a
    /// time where the processor can; a save's speeds are 3,600 values, and a Swift loop
    /// of four maxima took about 9 instructions a value).
    static func largestFinite(_ values: UnsafePointer<Double>, count: Int, startingAt start: Double) -> Double {
        routelog_largest_finite(values, count, start)
    }

    /// Gain and loss over the segments of `count` points, each measured alone (the jump
    /// across a break is not climbed, as its distance is not travelled): `segment` adds
    /// the altitudes of a range of points, in order, to the segment's hysteresis. Nil,
    /// nil when no segment had an altitude.
    @inline(__always)
    private static func climbs(_ segmentStarts: [Int], count: Int,
                               _ segment: (Range<Int>, inout ElevationHysteresis) -> Void) -> (Double?, Double?) {
        var gain: Double?, loss: Double?, start = 0
        for end in segmentStarts.filter({ $0 > 0 && $0 < count }) + [count] where end > start {
            var climb = ElevationHysteresis(threshold: elevationNoiseThreshold)
            segment(start..<end, &climb)
            if let g = climb.gain, let l = climb.loss {
                gain = (gain ?? 0) + g
                loss = (loss ?? 0) + l
            }
            start = end
        }
        return (gain, loss)
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
    /// - Parameters:
    ///   - reportedSpeed: the points' largest finite speed (-1 when none has one), when
    ///     the caller has found it already.
    ///   - measured: the steps a save's gathering pass measured (``TrackScratch``, with
    ///     ``knownMovingTime`` from the same pass): no step is measured again.
    static func movingTimeAndMaxSpeed(_ points: [TrackPoint], segmentStarts: [Int], knownMovingTime: TimeInterval? = nil,
                                      reportedSpeed: Double? = nil,
                                      measured: TrackScratch? = nil) -> (moving: TimeInterval, maxSpeed: Double) {
        guard points.count > 1 else { return (0, max(0, points.first?.speed ?? 0)) }
        var reported = -1.0
        if let reportedSpeed {
            reported = reportedSpeed
        } else {
            for point in points { if let speed = point.speed, speed.isFinite { reported = Swift.max(reported, speed) } }
        }
        if reported >= 0, let knownMovingTime { return (knownMovingTime, reported) }
        if let measured, let knownMovingTime, measured.count == points.count {
            return (knownMovingTime, StepSpeedWindows.largestMedian(count: measured.count, lengths: measured.lengths,
                                                                    times: measured.times))
        }
        // Each travelled step's length, NaN for the others (as the gathering pass keeps
        // them), and the times as `Date` keeps them.
        let n = points.count
        var steps = [Double](repeating: .nan, count: n)
        var moving = 0.0
        RouteMetrics.forEachStep(points, segmentStarts) { i, length in
            steps[i] = length
            let seconds = points[i].timestamp.timeIntervalSince(points[i - 1].timestamp)
            if RouteMetrics.isMoving(length, seconds, RouteMetrics.defaultMinimumMovingSpeed) { moving += seconds }
        }
        if reported >= 0 { return (moving, reported) }
        let times = points.map(\.timestamp.timeIntervalSinceReferenceDate)
        let best = steps.withUnsafeBufferPointer { l in
            times.withUnsafeBufferPointer { t in StepSpeedWindows.largestMedian(count: n, lengths: l.baseAddress!, times: t.baseAddress!) }
        }
        return (moving, best)
    }
}

/// The largest speed measured from positions (format-spec.md, "Derived fields", stats:
/// `maxSpeed`): over each window (start, end] of consecutive travelled steps that spans
/// at least ``RouteStats/maxSpeedWindow`` seconds, at most 64 steps, the median of its
/// steps' speeds, so that a fix or two jittered far away (two fast steps, out and back)
/// make no record.
enum StepSpeedWindows {
    /// Steps a window holds at most: the work stays linear whatever the sampling rate.
    static let maxSteps = 64

    /// - Parameters:
    ///   - lengths: each step's length into point i, NaN for a step not travelled (into
    ///     a segment start, or of no finite length: any length that is not finite is
    ///     taken as one, so that no speed is NaN); `lengths[0]` is not read.
    ///   - times: each point's seconds (any fixed origin).
    ///
    /// The median of a window is only worked out when it can be a new record: a
    /// window's median is larger than the record exactly when at least half its speeds,
    /// rounded up, are (the top `count - count / 2` of them), and how many are is
    /// counted as steps come and go. Sorting every window (up to 64 speeds at 10 Hz and
    /// more), or keeping it sorted with a branch per comparison, took a third of the save
    /// of a route without speeds of its own. The steps' speeds are divided out first, in
    /// a loop of their own: in the window's loop, a division was what the count waited on.
    ///
    /// The result has the value the median of every window sorted anew gives (a window
    /// whose median equals the record changes nothing; only the sign of a zero record
    /// could tell them apart, and the stored cm/s cannot).
    static func largestMedian(count n: Int, lengths: UnsafePointer<Double>, times: UnsafePointer<Double>) -> Double {
        guard n > 1 else { return 0 }
        // Each step's speed; NaN where time did not advance (no speed, in no window's
        // count), and whatever it is for a step not travelled (no window holds one).
        let speeds = ScratchMemory.take(Double.self, count: n)
        defer { ScratchMemory.give(speeds, count: n) }
        for i in 1..<n {
            let seconds = times[i] - times[i - 1]
            speeds[i] = seconds > 0 ? lengths[i] / seconds : .nan
        }
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: maxSteps + 1) { sorted in
            // The window is the steps (start, end]: `count` of them have a speed, `above`
            // of those are larger than `best`.
            var best = 0.0, start = 0, count = 0, above = 0
            for end in 1..<n {
                guard lengths[end].isFinite else {
                    (start, count, above) = (end, 0, 0)
                    continue
                }
                let speed = speeds[end]
                count += speed.isNaN ? 0 : 1
                above += speed > best ? 1 : 0
                func span(_ from: Int) -> Double { times[end] - times[from] }
                while start + 1 < end, span(start + 1) >= RouteStats.maxSpeedWindow || end - start > maxSteps {
                    let leaving = speeds[start + 1]
                    count -= leaving.isNaN ? 0 : 1
                    above -= leaving > best ? 1 : 0
                    start += 1
                }
                guard span(start) >= RouteStats.maxSpeedWindow, count > 0, above >= count - count / 2 else { continue }
                var k = 0
                for i in (start + 1)...end where !speeds[i].isNaN {
                    sorted[k] = speeds[i]
                    k += 1
                }
                var window = UnsafeMutableBufferPointer(rebasing: sorted[0..<k])  // k is count
                window.sort()
                best = sorted[k / 2]
                above = 0
                for v in window where v > best { above += 1 }
            }
            return best
        }
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

    /// Adds `altitudes[range]` in order, leaving out absent ones, as ``add(_:)`` one by
    /// one would (``routelog_climb_add``: most altitudes change nothing, and those are
    /// skipped four at a time where the processor can; one by one, a save's 3,600 took
    /// about 22 instructions each).
    mutating func add(_ altitudes: UnsafePointer<Double>, _ range: Range<Int>) {
        var climb = routelog_climb(reference: reference, climbed: climbed, descended: descended,
                                   started: started ? 1 : 0, direction: Int32(direction))
        routelog_climb_add(&climb, altitudes, range.lowerBound, range.upperBound, threshold, TrackPoint.absentBitPattern)
        (reference, climbed, descended) = (climb.reference, climb.climbed, climb.descended)
        (started, direction) = (climb.started != 0, Int(climb.direction))
    }

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
