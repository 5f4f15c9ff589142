import Foundation
import RouteLog

/// `routelog-bench --query`: a pass-through query over 100,000 routes (10,000 with
/// `--quick`) that matches about 1% of them, against the aim of 5 ms; with the index's
/// bytes per route, which the grid cells, stats and previews it holds make larger; and
/// the totals (all, weekly, monthly) against the aim of 1 ms.
enum QueryScenario {
    /// The aim for a pass-through query matching 1% of 100,000 routes.
    static let aimSeconds = 0.005
    /// The aim for `totals()` and `weeklyTotals()` at 100,000 routes.
    static let totalsAimSeconds = 0.001

    static func run(_ options: BenchOptions) throws {
        let routeCount = options.quick ? 10_000 : 100_000
        let directory = options.stores.appendingPathComponent("query.routelog")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: options.stores, withIntermediateDirectories: true)
        defer { if !options.keepStores { try? FileManager.default.removeItem(at: directory) } }

        // Routes of 120 points, 5 s apart at 4 m/s (2.4 km), starting anywhere in a
        // 1° square around Milan, heading anywhere.
        var random = SplitMix(seed: 0x9E3779B9)
        func route(_ n: Int) -> Route {
            let lat0 = 45 + random.unit(), lon0 = 9 + random.unit()
            let heading = random.unit() * 2 * Double.pi
            let start = Date(timeIntervalSince1970: 1_704_096_000 + Double(n) * 3_600)
            let dLat = cos(heading) * 20 / 111_195, dLon = sin(heading) * 20 / (111_195 * cos(lat0 * .pi / 180))
            return Route(points: (0..<120).map { i in
                TrackPoint(latitude: lat0 + Double(i) * dLat, longitude: lon0 + Double(i) * dLon,
                           timestamp: start.addingTimeInterval(Double(i) * 5))
            })
        }
        let (_, growSeconds) = try Stopwatch.time {
            let store = try RouteStore(at: directory, options: .init(durability: .buffered, compaction: .manual))
            var next = 0
            while next < routeCount {
                let batch = (next..<min(routeCount, next + 256)).map(route)
                try store.save(batch)
                next += batch.count
            }
            try store.close()
        }
        print("Queries: \(Format.count(routeCount)) routes of 120 points (grown in \(Format.seconds(growSeconds)))")
        try IndexFootprint.measure(directory, routeCount: routeCount)
        let store = try RouteStore(at: directory, options: .init(compaction: .manual))
        defer { try? store.close() }
        let statistics = try store.statistics()
        print("  index: \(Format.count(Int(statistics.indexBytes))) bytes, \(Int(Double(statistics.indexBytes) / Double(routeCount))) bytes a route (stats, grid cells and a preview included)")

        var query = RouteQuery()
        query.passesThrough = BoundingBox(southWest: Coordinate(latitude: 45.455, longitude: 9.455),
                                          northEast: Coordinate(latitude: 45.545, longitude: 9.545))
        var matched = 0
        var times: [Double] = []
        for _ in 0..<25 {
            let (result, seconds) = try Stopwatch.time { try store.summaries(matching: query) }
            matched = result.count
            times.append(seconds)
        }
        times.sort()
        let median = times[times.count / 2]
        let share = Double(matched) / Double(routeCount) * 100
        let met = routeCount == 100_000 && share <= 2 ? (median < aimSeconds ? "met" : "not met") : "not measured at 100,000 routes"
        print("  pass-through, a 0.09° square: \(Format.count(matched)) routes (\(String(format: "%.2f", share))%), median of 25 "
              + "\(String(format: "%.2f", median * 1000)) ms, fastest \(String(format: "%.2f", times[0] * 1000)) ms; "
              + "aim under 5 ms at 100,000 routes matching 1%: \(met)")
        var byBox = RouteQuery()
        byBox.boundingBoxIntersects = query.passesThrough
        let (boxed, boxSeconds) = try Stopwatch.time { try store.summaries(matching: byBox) }
        print("  bounding boxes meeting the same square: \(Format.count(boxed.count)) routes in \(String(format: "%.2f", boxSeconds * 1000)) ms")
        try totals(store, routeCount: routeCount)
    }

    /// `totals()`, `weeklyTotals()` and monthly totals: the first call (which may build
    /// what later calls keep), then the median of 25.
    static func totals(_ store: RouteStore, routeCount: Int) throws {
        var calendar = Calendar.mondayFirst
        calendar.timeZone = TimeZone(identifier: "Europe/Rome")!
        let cases: [(String, () throws -> Int)] = [
            ("totals()", { try store.totals().routeCount }),
            ("weeklyTotals()", { try store.weeklyTotals(calendar: calendar).count }),
            ("totals(by: .month)", { try store.totals(by: .month, calendar: calendar).count }),
        ]
        for (name, call) in cases {
            let (_, first) = try Stopwatch.time { try call() }
            var times: [Double] = []
            var answer = 0
            for _ in 0..<25 {
                let (result, seconds) = try Stopwatch.time { try call() }
                answer = result
                times.append(seconds)
            }
            times.sort()
            let median = times[times.count / 2]
            let met = routeCount == 100_000 ? (median <= totalsAimSeconds ? "met" : "not met") : "not measured at 100,000 routes"
            print("  \(name): \(Format.count(answer)) \(name == "totals()" ? "routes" : "periods"), first call "
                  + "\(String(format: "%.2f", first * 1000)) ms, median of 25 \(String(format: "%.3f", median * 1000)) ms; "
                  + "aim at most 1 ms at 100,000 routes: \(met)")
        }
    }
}

/// A small deterministic generator (SplitMix64) so every run builds the same routes.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
    /// A value in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
