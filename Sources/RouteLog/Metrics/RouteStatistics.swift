import CRouteLogSystem
import Foundation

/// What a save measures about a route besides its points, right after the pass that
/// validates and quantizes them (``PointColumns``), from what that pass kept: the
/// distance (for the RouteShape) and the moving time (for the stats).
///
/// Both are defined as ``RouteMetrics`` defines them and equal its results to the bit:
/// over the app's (unquantized) points, steps into a segment start not travelled.
/// Nothing here grows with the distance: a route may jump round the globe at every step.
struct RouteStatistics: Equatable, Sendable {
    /// Metres travelled (``RouteMetrics/distance(of:segmentStarts:)``).
    var distance = 0.0
    /// Seconds moving at ``RouteMetrics/defaultMinimumMovingSpeed`` or faster
    /// (``RouteMetrics/movingTime(of:segmentStarts:minimumSpeed:)``).
    var movingTime = 0.0

    init() {}

    /// Measures the track the gathering pass kept: the steps
    /// ``RouteMetrics/forEachStep(_:_:_:)`` visits, summed in the same order. Leaves in
    /// `track.lengths` each travelled step's length and NaN for the others (the largest
    /// speed of a route without speeds of its own is measured from them).
    init(track: TrackScratch, segmentStarts: [Int]) {
        let lat = track.latitudes, lon = track.longitudes, time = track.times, n = track.count
        guard n > 1 else { return }
        var breaks = SegmentBreaks(segmentStarts)
        var distance = 0.0, moving = 0.0
        let minimumSpeed = RouteMetrics.defaultMinimumMovingSpeed
        // Every short step's length at once (four at a time where the processor can),
        // the same bits as Geodesic.distance gives; the others are measured here.
        let lengths = track.lengths
        routelog_short_step_lengths(lat, lon, n, lengths)
        lengths[0] = .nan
        // Each segment's steps are added by routelog_sum_steps, in order (four steps'
        // terms at a time where the processor can; a loop here cost about 30
        // instructions a step): it stops at each step that is not short, which is
        // measured and added here, and goes on after it.
        var i = 1
        while i < n {
            let end = Swift.min(breaks.next, n)
            while i < end {
                i = routelog_sum_steps(time, lengths, i, end, minimumSpeed, &distance, &moving)
                guard i < end else { break }
                let length = Geodesic.distance(lat[i - 1], lon[i - 1], lat[i], lon[i])
                let seconds = time[i] - time[i - 1]
                // Adding +0 leaves a sum of non-negative terms as it was, to the bit.
                let finite = length.isFinite
                lengths[i] = finite ? length : .nan
                distance += finite ? length : 0
                moving += finite && RouteMetrics.isMoving(length, seconds, minimumSpeed) ? seconds : 0
                i += 1
            }
            guard end < n else { break }
            lengths[end] = .nan  // the step into a segment start is not travelled
            breaks.advance(past: end)
            i = end + 1
        }
        self.distance = distance
        movingTime = moving
    }
}

/// Walks a route's segment starts with a cursor, in increasing order of the points.
private struct SegmentBreaks {
    private let starts: [Int]
    private var cursor = 0
    /// The next start after the points passed (Int.max when none is left): the first
    /// point after them that starts a segment.
    private(set) var next = Int.max

    init(_ starts: [Int]) {
        self.starts = starts
        advance(past: 0)
    }

    /// Passes every point up to `index`.
    mutating func advance(past index: Int) {
        while cursor < starts.count && starts[cursor] <= index { cursor += 1 }
        next = cursor < starts.count ? starts[cursor] : .max
    }
}
