import Foundation

/// Distances and timings computed from a route's points.
///
/// Every distance is measured on the WGS84 ellipsoid (``Geodesic``), and agrees with
/// GeographicLib's geodesic inverse to far better than 0.01 %. A step into an index
/// of `segmentStarts` (a pause, a new GPX `<trkseg>`, or a jump the importer refused
/// to count) is not travelled: it adds no distance and no moving time.
///
/// ```swift
/// let measures = RouteMetrics.measure(route)
/// print(measures.distance, measures.movingTime, measures.splits.count)
/// ```
public enum RouteMetrics {
    /// The slowest step, in metres per second, that ``movingTime(of:segmentStarts:minimumSpeed:)``
    /// counts as moving by default: 0.3 m/s (about 1 km/h), below any walking pace
    /// and above most of the drift of a receiver standing still.
    public static let defaultMinimumMovingSpeed = 0.3

    /// Metres travelled along `points`, skipping the step into each index of
    /// `segmentStarts` (a pause or a new GPX segment is not travelled).
    public static func distance(of points: [TrackPoint], segmentStarts: [Int] = []) -> Double {
        guard points.count > 1 else { return 0 }
        var total = 0.0
        forEachStep(points, segmentStarts) { _, length in total += length }
        return total
    }

    /// The elapsed time from the first to the last point, in seconds; 0 when time
    /// went backwards overall or the route has one point.
    public static func duration(of points: [TrackPoint]) -> TimeInterval {
        guard let first = points.first, let last = points.last else { return 0 }
        return max(0, last.timestamp.timeIntervalSince(first.timestamp))
    }

    /// Seconds spent moving: the sum of the time steps whose average speed is at
    /// least `minimumSpeed` metres per second. Steps into a segment start, and steps
    /// whose time does not advance, count as not moving.
    public static func movingTime(of points: [TrackPoint], segmentStarts: [Int] = [],
                                  minimumSpeed: Double = defaultMinimumMovingSpeed) -> TimeInterval {
        var total = 0.0
        forEachStep(points, segmentStarts) { index, length in
            let seconds = points[index].timestamp.timeIntervalSince(points[index - 1].timestamp)
            if isMoving(length, seconds, minimumSpeed) { total += seconds }
        }
        return total
    }

    /// One split each time the distance travelled passes a whole kilometre and a whole
    /// mile: the index of the point where it was passed and the time since the first
    /// point. Kilometre splits come first, then mile splits, each in order. A single
    /// step that crosses several marks yields one split per mark, at the same point.
    ///
    /// The result grows with the distance, about 1.6 splits a kilometre: a track whose
    /// fixes jump round the globe (a receiver's glitch) gets millions. Check
    /// ``distance(of:segmentStarts:)`` first when the points are not trusted; RouteLog's
    /// importers and exports make no splits past ``ImportLimits/splitsPerRoute``.
    public static func splits(of points: [TrackPoint], segmentStarts: [Int] = []) -> [Split] {
        guard let start = points.first?.timestamp else { return [] }
        var cumulative = [Double](repeating: 0, count: points.count)
        forEachStep(points, segmentStarts) { index, length in cumulative[index] = length }
        for i in points.indices.dropFirst() { cumulative[i] += cumulative[i - 1] }
        var result: [Split] = []
        for unit in Split.Unit.allCases {
            var next = 1
            for i in points.indices.dropFirst() {
                while cumulative[i] >= Double(next) * unit.metres {
                    let elapsed = points[i].timestamp.timeIntervalSince(start)
                    result.append(Split(unit: unit, pointIndex: i, elapsedTime: max(0, elapsed)))
                    next += 1
                }
            }
        }
        return result
    }

    /// Everything above at once, for a route: what the importer stores and what a
    /// detail screen shows.
    public static func measure(_ route: Route,
                               minimumMovingSpeed: Double = defaultMinimumMovingSpeed) -> RouteMeasures {
        let points = route.points, starts = route.segmentStarts
        let distance = distance(of: points, segmentStarts: starts)
        let duration = duration(of: points)
        let moving = movingTime(of: points, segmentStarts: starts, minimumSpeed: minimumMovingSpeed)
        return RouteMeasures(distance: distance, duration: duration, movingTime: moving,
                             splits: splits(of: points, segmentStarts: starts))
    }

    /// Metres of one step, exactly as ``distance(of:segmentStarts:)`` counts it (0 for a
    /// step with a NaN coordinate), for code that adds steps one at a time, such as a
    /// recording's running distance.
    static func stepDistance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let length = Geodesic.distance(a, b)
        return length.isFinite ? length : 0
    }

    /// The former name of ``stepDistance(_:_:)``, kept for the recording code. Despite
    /// the name it measures the WGS84 ellipsoid, like every distance in RouteLog.
    static func greatCircleDistance(_ a: Coordinate, _ b: Coordinate) -> Double {
        stepDistance(a, b)
    }

    /// True for a step of `length` metres in `seconds` at `minimumSpeed` or faster: time
    /// advanced and length ≥ minimumSpeed × seconds (a multiplication, not a division,
    /// because the save measures every step).
    @inline(__always)
    static func isMoving(_ length: Double, _ seconds: Double, _ minimumSpeed: Double) -> Bool {
        seconds > 0 && length >= minimumSpeed * seconds
    }

    /// Calls `body(index, metres)` for each travelled step into `points[index]`.
    /// Steps with a non-finite length (a NaN coordinate) are skipped, so no result is
    /// ever NaN.
    @inline(__always)
    static func forEachStep(_ points: [TrackPoint], _ segmentStarts: [Int],
                            _ body: (Int, Double) -> Void) {
        guard points.count > 1 else { return }
        // The breaks are walked with a cursor, not looked up in a set: a save measures
        // every step, and hashing each index cost more than the distance itself.
        let breaks = isSorted(segmentStarts) ? segmentStarts : segmentStarts.sorted()
        var nextBreak = 0
        points.withUnsafeBufferPointer { p in
            for i in 1..<p.count {
                while nextBreak < breaks.count && breaks[nextBreak] < i { nextBreak += 1 }
                if nextBreak < breaks.count && breaks[nextBreak] == i { continue }
                let length = Geodesic.distance(p[i - 1].latitude, p[i - 1].longitude, p[i].latitude, p[i].longitude)
                if length.isFinite { body(i, length) }
            }
        }
    }
}

/// True when every element is at least the one before it.
private func isSorted(_ values: [Int]) -> Bool {
    var previous = Int.min
    for value in values {
        if value < previous { return false }
        previous = value
    }
    return true
}

/// A route's distance, times and splits, as ``RouteMetrics/measure(_:minimumMovingSpeed:)``
/// computes them.
public struct RouteMeasures: Sendable, Equatable, Hashable {
    /// Metres travelled (segment breaks excluded).
    public var distance: Double
    /// Seconds from the first to the last point.
    public var duration: TimeInterval
    /// Seconds spent moving.
    public var movingTime: TimeInterval
    /// Kilometre and mile splits.
    public var splits: [Split]

    /// Creates measures.
    public init(distance: Double, duration: TimeInterval, movingTime: TimeInterval, splits: [Split]) {
        self.distance = distance
        self.duration = duration
        self.movingTime = movingTime
        self.splits = splits
    }

    /// Metres per second over the whole duration (0 without duration).
    public var averageSpeed: Double { duration > 0 ? distance / duration : 0 }
    /// Metres per second over the moving time (0 without moving time).
    public var movingSpeed: Double { movingTime > 0 ? distance / movingTime : 0 }
}
