import Foundation
import RouteLog

/// A route measured along its length, for the charts under the map: the distance
/// travelled at each point, then the altitude and the speed in bins of distance.
struct RouteProfile {
    let points: [TrackPoint]
    /// Metres travelled up to each point (a step into a segment start is not travelled).
    let along: [Double]
    /// Whether the step into each point is travelled (false at 0 and at segment starts).
    let travelled: [Bool]

    var total: Double { along.last ?? 0 }

    init(_ route: Route) {
        points = route.points
        let starts = Set(route.segmentStarts)
        var along = [Double](repeating: 0, count: points.count)
        var travelled = [Bool](repeating: false, count: points.count)
        for i in points.indices.dropFirst() {
            travelled[i] = !starts.contains(i)
            let step = travelled[i] ? Geodesic.distance(points[i - 1].coordinate, points[i].coordinate) : 0
            along[i] = along[i - 1] + (step.isFinite ? step : 0)
        }
        self.along = along
        self.travelled = travelled
    }

    /// Whether enough points have an altitude for a profile.
    var hasAltitude: Bool { points.count >= 2 && points.filter { $0.altitude != nil }.count * 2 >= points.count && total > 0 }

    /// Whether time advances enough for a speed chart.
    var hasTime: Bool { total > 0 && RouteMetrics.duration(of: points) > 0 }

    /// The mean altitude of the points in each of `count` bins of distance (nil: none there).
    func altitudes(bins count: Int) -> [Double?] {
        var sums = [Double](repeating: 0, count: count), counts = [Int](repeating: 0, count: count)
        for (i, p) in points.enumerated() {
            guard let altitude = p.altitude else { continue }
            let bin = self.bin(along[i], count)
            sums[bin] += altitude
            counts[bin] += 1
        }
        var values: [Double?] = (0..<count).map { counts[$0] > 0 ? sums[$0] / Double(counts[$0]) : nil }
        // Bins between two known ones (points farther apart than a bin) are filled in
        // along a straight line: the ground does not stop between fixes.
        var last: Int?
        for i in 0..<count where values[i] != nil {
            if let last, i - last > 1, let a = values[last], let b = values[i] {
                for j in (last + 1)..<i { values[j] = a + (b - a) * Double(j - last) / Double(i - last) }
            }
            last = i
        }
        return values
    }

    /// Metres per second in each of `count` bins of distance: the distance of the steps
    /// ending in the bin and the `smoothing` bins on either side over their time (nil
    /// where no time passed), so that one late fix does not draw a spike.
    func speeds(bins count: Int, smoothing: Int = 2) -> [Double?] {
        var metres = [Double](repeating: 0, count: count), seconds = [Double](repeating: 0, count: count)
        for i in points.indices.dropFirst() where travelled[i] {
            let dt = points[i].timestamp.timeIntervalSince(points[i - 1].timestamp)
            guard dt > 0 else { continue }
            let bin = self.bin(along[i], count)
            metres[bin] += along[i] - along[i - 1]
            seconds[bin] += dt
        }
        return (0..<count).map { bin in
            guard seconds[bin] > 0 else { return nil }
            let window = max(0, bin - smoothing)...min(count - 1, bin + smoothing)
            return window.reduce(0) { $0 + metres[$1] } / window.reduce(0) { $0 + seconds[$1] }
        }
    }

    /// Metres climbed, counting a climb once it passes 5 m, so that the receiver's
    /// altitude noise is not summed as hills.
    var elevationGain: Double {
        var gain = 0.0
        var reference: Double?
        for altitude in points.compactMap(\.altitude) {
            guard let base = reference else { reference = altitude; continue }
            if abs(altitude - base) >= 5 {
                if altitude > base { gain += altitude - base }
                reference = altitude
            }
        }
        return gain
    }

    private func bin(_ metres: Double, _ count: Int) -> Int {
        guard total > 0 else { return 0 }
        return min(count - 1, max(0, Int(metres / total * Double(count))))
    }
}
