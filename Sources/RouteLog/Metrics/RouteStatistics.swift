import Foundation

/// What a save records about a route besides its points, measured right after the pass
/// that validates and quantizes them (``PointColumns``), from what that pass kept.
///
/// Distance, moving time and splits are defined as ``RouteMetrics`` defines them and
/// equal its results to the bit: over the app's (unquantized) points, steps into a
/// segment start not travelled. The other figures are of the stored (quantized) values.
struct RouteStatistics: Equatable, Sendable {
    /// Metres travelled (``RouteMetrics/distance(of:segmentStarts:)``).
    var distance = 0.0
    /// Seconds moving at ``RouteMetrics/defaultMinimumMovingSpeed`` or faster
    /// (``RouteMetrics/movingTime(of:segmentStarts:minimumSpeed:)``).
    var movingTime = 0.0
    /// Kilometre and mile splits as ``RouteMetrics/splits(of:segmentStarts:)`` computes
    /// them, for a route saved without splits.
    var splits: [Split] = []
    /// Metres climbed and descended over the points with an altitude: a change counts
    /// once the altitude is ``elevationThreshold`` or more from the last counted one
    /// (segment starts do not break it: the altitude is the same ground).
    var elevationGain = 0.0
    var elevationLoss = 0.0
    /// The largest valid (non-negative) `speed`, m/s; nil when no point has one (a
    /// negative speed means invalid, as in CLLocation).
    var maxSpeed: Double?
    /// Average and largest heart rate and cadence over the points that have one.
    var heartRate: Rate?
    var cadence: Rate?

    /// An average and a maximum, per minute.
    struct Rate: Equatable, Sendable {
        var average: Double
        var max: Double
    }

    /// GPS altitude wanders by a metre or two while standing still; changes smaller
    /// than this between counted altitudes are not counted as climbing.
    static let elevationThreshold = 2.0

    init() {}

    /// Measures the track the gathering pass kept and its optional columns.
    init(track: TrackScratch, segmentStarts: [Int],
         optional: [(tag: FormatConstants.ColumnTag, values: Int64Column, bitmap: [UInt8]?)]) {
        measureSteps(track, segmentStarts)
        for column in optional {
            let values = column.values.buffer
            switch column.tag {
            case .altitude: measureClimb(values)
            case .speed:
                let fastest = values.max() ?? -1
                maxSpeed = fastest >= 0 ? Double(fastest) / FormatConstants.centimetreScale : nil
            case .heartRate: heartRate = Self.rate(values)
            case .cadence: cadence = Self.rate(values)
            default: break
            }
        }
    }

    /// Distance, moving time and splits: the steps ``RouteMetrics/forEachStep(_:_:_:)``
    /// visits, summed in the same order.
    private mutating func measureSteps(_ track: TrackScratch, _ segmentStarts: [Int]) {
        let lat = track.latitudes, lon = track.longitudes, time = track.times, n = track.count
        guard n > 1 else { return }
        var breaks = SegmentBreaks(segmentStarts)
        var distance = 0.0, moving = 0.0
        var splitLine = SplitLine(start: time[0])
        for i in 1..<n {
            if breaks.isBreak(i) { continue }  // the step into a segment start is not travelled
            let length = Geodesic.distance(lat[i - 1], lon[i - 1], lat[i], lon[i])
            guard length.isFinite else { continue }
            distance += length
            let seconds = time[i] - time[i - 1]
            if RouteMetrics.isMoving(length, seconds, RouteMetrics.defaultMinimumMovingSpeed) { moving += seconds }
            splitLine.pass(distance, at: i, time: time[i])
        }
        self.distance = distance
        movingTime = moving
        splits = splitLine.kilometres + splitLine.miles
    }

    private mutating func measureClimb(_ altitudes: UnsafeBufferPointer<Int64>) {
        guard let first = altitudes.first else { return }
        var anchor = Double(first) / FormatConstants.centimetreScale
        var gain = 0.0, loss = 0.0
        for value in altitudes.dropFirst() {
            let altitude = Double(value) / FormatConstants.centimetreScale
            let change = altitude - anchor
            guard abs(change) >= Self.elevationThreshold else { continue }
            if change > 0 { gain += change } else { loss -= change }
            anchor = altitude
        }
        elevationGain = gain
        elevationLoss = loss
    }

    private static func rate(_ values: UnsafeBufferPointer<Int64>) -> Rate? {
        guard let top = values.max() else { return nil }
        let sum = values.reduce(0.0) { $0 + Double($1) }
        return Rate(average: sum / Double(values.count), max: Double(top))
    }
}

/// Walks a route's segment starts with a cursor, point by point.
private struct SegmentBreaks {
    private let starts: [Int]
    private var cursor = 0
    /// The next start after the points seen (Int.max when none is left).
    private var next = Int.max

    init(_ starts: [Int]) {
        self.starts = starts
        advance(past: 0)
    }

    private mutating func advance(past index: Int) {
        while cursor < starts.count && starts[cursor] <= index { cursor += 1 }
        next = cursor < starts.count ? starts[cursor] : .max
    }

    /// True when point `index` starts a segment. Indices must come in increasing order.
    @inline(__always)
    mutating func isBreak(_ index: Int) -> Bool {
        guard index == next else { return false }
        advance(past: index)
        return true
    }
}

/// Kilometre and mile splits as the distance grows (rare: one a kilometre).
private struct SplitLine {
    let start: Double
    var kilometres: [Split] = [], miles: [Split] = []
    private var nextKilometre = 1, nextMile = 1
    private var kilometreMark = Split.Unit.kilometre.metres, mileMark = Split.Unit.mile.metres

    init(start: Double) { self.start = start }

    @inline(__always)
    mutating func pass(_ distance: Double, at index: Int, time: Double) {
        if distance >= kilometreMark || distance >= mileMark { record(distance, at: index, time: time) }
    }

    @inline(never)
    private mutating func record(_ distance: Double, at index: Int, time: Double) {
        while distance >= kilometreMark {
            kilometres.append(Split(unit: .kilometre, pointIndex: index, elapsedTime: max(0, time - start)))
            nextKilometre += 1
            kilometreMark = Double(nextKilometre) * Split.Unit.kilometre.metres
        }
        while distance >= mileMark {
            miles.append(Split(unit: .mile, pointIndex: index, elapsedTime: max(0, time - start)))
            nextMile += 1
            mileMark = Double(nextMile) * Split.Unit.mile.metres
        }
    }
}
