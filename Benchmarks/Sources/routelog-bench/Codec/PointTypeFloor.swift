import Foundation
@_spi(Benchmarks) import RouteLog

/// What the point type and the stored units cost by themselves, whatever the codec: the
/// least a save and a load of a walk can take while points are 80-byte `TrackPoint`s and
/// a loaded value is its stored integer divided by its scale (the exact quotient, as
/// format-spec.md's "Quantization" gives it). Measured on the same eight walks in turn as
/// the save and load figures, so that the points come from the same caches.
///
/// - read: one pass over every point's ten fields (a save's quantizing pass cannot read
///   less);
/// - divide: the eight stored columns of a walk divided by their scales, with the
///   library's own division loop (a load cannot do less to get its doubles);
/// - write: a new `[TrackPoint]` of as many points, each a copy of one point (a load
///   writes at least that much memory).
struct PointTypeFloor {
    var read: [Double] = []
    var divide: [Double] = []
    var build: [Double] = []
    var points = 0

    /// The eight columns the walks have, with their scales (format-spec.md, "Quantization").
    private static let scales: [Double] = [1e7, 1e7, 1000, 100, 100, 100, 100, 100]

    static func measure(_ walks: [Route], rounds: Int) -> PointTypeFloor {
        var floor = PointTypeFloor()
        floor.points = walks.first?.points.count ?? 0
        // Each walk's stored integers, column by column, made once.
        let stored: [[[Int64]]] = walks.map { walk in
            let fields: [(TrackPoint) -> Double] = [
                { $0.latitude }, { $0.longitude }, { $0.timestamp.timeIntervalSince1970 }, { $0.altitude ?? 0 },
                { $0.horizontalAccuracy ?? 0 }, { $0.verticalAccuracy ?? 0 }, { $0.speed ?? 0 }, { $0.course ?? 0 },
            ]
            return zip(fields, scales).map { field, scale in walk.points.map { Int64((field($0) * scale).rounded()) } }
        }
        let n = floor.points
        var doubles = [[Double]](repeating: [Double](repeating: 0, count: n), count: scales.count)
        var keep = 0.0
        for round in 0..<(rounds + 10) {
            let i = round % walks.count
            let points = walks[i].points
            var sum = 0.0
            let read = ThreadClock.seconds {
                for p in points {
                    sum += p.latitude + p.longitude + p.timestamp.timeIntervalSinceReferenceDate + (p.altitude ?? 0)
                        + (p.horizontalAccuracy ?? 0) + (p.verticalAccuracy ?? 0) + (p.speed ?? 0) + (p.course ?? 0)
                        + (p.heartRate ?? 0) + (p.cadence ?? 0)
                }
            }
            let divide = ThreadClock.seconds {
                for c in 0..<scales.count {
                    let scale = scales[c]
                    stored[i][c].withUnsafeBufferPointer { v in
                        doubles[c].withUnsafeMutableBufferPointer { CodecBenchmarkHooks.divideStored(v, by: scale, into: $0) }
                    }
                }
            }
            // The memory alone: one point copied into every slot of a new array, with no
            // reading of columns at all.
            let template = TrackPoint(latitude: doubles[0][0], longitude: doubles[1][0],
                                      timestamp: Date(timeIntervalSince1970: doubles[2][0]), altitude: doubles[3][0],
                                      horizontalAccuracy: doubles[4][0], verticalAccuracy: doubles[5][0],
                                      speed: doubles[6][0], course: doubles[7][0])
            var built: [TrackPoint] = []
            let build = ThreadClock.seconds { built = [TrackPoint](repeating: template, count: n) }
            keep += sum + (built.last?.latitude ?? 0)
            guard round >= 10 else { continue }
            floor.read.append(read)
            floor.divide.append(divide)
            floor.build.append(build)
        }
        // Printed nowhere; keeps the passes from being optimized away.
        if keep == .infinity { print(keep) }
        return floor
    }

    func report(loadGoal: Double) -> [String] {
        let read = SaveCost.median(self.read), divide = SaveCost.median(self.divide), build = SaveCost.median(self.build)
        return ["Floors of the point type (thread CPU, the same walks in turn, median of \(self.read.count)): "
                + "reading the ten fields of \(Format.count(points)) TrackPoints \(Format.seconds(read)); "
                + "dividing \(Format.count(points * Self.scales.count)) stored integers by their scales \(Format.seconds(divide)); "
                + "writing a new [TrackPoint] of as many points (one point copied) \(Format.seconds(build))",
                "  a load cannot take less than \(Format.seconds(divide + build)) (divide + write) of its "
                + "\(Format.seconds(loadGoal)) goal, nor a save less than \(Format.seconds(read)) (read)"]
    }
}
