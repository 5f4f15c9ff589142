import Foundation

/// Finds the point whose timestamp is nearest a given time, to the millisecond (the
/// store's precision), ties going to the earliest point, in time linear in points plus
/// queries when the queries come in order.
///
/// The migration matches each archived split (a time) to a point. Scanning all points
/// for each split made an archive of 400,000 points and 40,000 splits take 78 s. Here
/// the points' distinct times are sorted once (no work when the points are already in
/// time order, as recordings are), each with the earliest point that has it; a cursor
/// then moves forward over them as the queries' times grow, and a query earlier than
/// the one before is answered by binary search. ``steps`` counts the comparisons, so a
/// test can see the cost grow linearly.
struct NearestTimeIndex {
    /// Distinct point times in milliseconds, ascending.
    private let times: [Int64]
    /// For each of `times`, the earliest point index with that time.
    private let firstIndex: [Int]
    private var cursor = 0
    private var lastQuery: Int64?
    /// Comparisons made so far (building the index included).
    private(set) var steps = 0

    /// Indexes `points` (at least one).
    init(_ points: [TrackPoint]) {
        precondition(!points.isEmpty)
        var keyed = points.indices.map { (time: Self.milliseconds(points[$0].timestamp), index: $0) }
        var steps = keyed.count
        var inOrder = true
        for i in keyed.indices.dropFirst() where keyed[i].time < keyed[i - 1].time {
            inOrder = false
            break
        }
        if !inOrder {
            keyed.sort { ($0.time, $0.index) < ($1.time, $1.index) }
            steps += keyed.count * max(1, Int.bitWidth - keyed.count.leadingZeroBitCount)
        }
        var times: [Int64] = [], firstIndex: [Int] = []
        for entry in keyed where times.last != entry.time {
            times.append(entry.time)
            firstIndex.append(entry.index)
        }
        self.times = times
        self.firstIndex = firstIndex
        self.steps = steps
    }

    /// Milliseconds since 1970, clamped to what an Int64 holds (a NaN counts as 0).
    static func milliseconds(_ date: Date) -> Int64 {
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        guard ms.isFinite else { return ms.isNaN ? 0 : (ms > 0 ? .max : .min) }
        return ms >= 9.2e18 ? .max : ms <= -9.2e18 ? .min : Int64(ms)
    }

    /// The index of the point nearest `date` in time (the earliest of equally near ones).
    mutating func nearest(to date: Date) -> Int {
        let query = Self.milliseconds(date)
        if let lastQuery, query >= lastQuery {
            while cursor + 1 < times.count, times[cursor + 1] <= query {
                cursor += 1
                steps += 1
            }
        } else {
            // The last index whose time is at most `query`, or 0 when none is.
            var low = 0, high = times.count - 1
            while low < high {
                steps += 1
                let middle = (low + high + 1) / 2
                if times[middle] <= query { low = middle } else { high = middle - 1 }
            }
            cursor = low
        }
        lastQuery = query
        steps += 1
        let before = cursor
        guard before + 1 < times.count, times[before] < query else { return firstIndex[before] }
        let after = before + 1
        let gapBefore = query.subtractingReportingOverflow(times[before])
        let gapAfter = times[after].subtractingReportingOverflow(query)
        if gapBefore.overflow || gapAfter.overflow { return firstIndex[gapAfter.overflow ? before : after] }
        if gapBefore.partialValue != gapAfter.partialValue {
            return firstIndex[gapBefore.partialValue < gapAfter.partialValue ? before : after]
        }
        return min(firstIndex[before], firstIndex[after])
    }
}
