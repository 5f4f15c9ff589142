import Foundation
@_spi(Benchmarks) import RouteLog

/// What loading a route costs: `route(_:)` through the store (read, checksum, decode,
/// build `[TrackPoint]`), and decoding alone, columns and points apart, for point
/// blocks of both versions.
struct LoadCost {
    struct Version {
        var load: [Double] = []
        var loadCPU: [Double] = []
        var decodeColumns: [Double] = []
        var decodePoints: [Double] = []
        /// Minor page faults of the single loads counted in `load`.
        var loadFaults = 0
        /// Minor page faults of the decodes counted in `decodeColumns` and `decodePoints`.
        var decodeFaults = 0
        /// Wall time a load, loads back to back (each route dropped before the next one
        /// is loaded, as a list, a map or an export reads a store): one mean per batch.
        var backToBack: [Double] = []
        /// Minor page faults of the back-to-back loads, and how many loads.
        var backToBackFaults = 0, backToBackLoads = 0
    }

    /// Loads a batch of back-to-back loads takes.
    static let batch = 20

    var versions: [Int: Version] = [1: Version(), 2: Version()]
    var points = 0

    static func measure(_ walks: [Route], rounds: Int, directory: URL) throws -> LoadCost {
        let url = directory.appendingPathComponent("load.routelog")
        var ids: [Int: [RouteID]] = [:]
        do {
            let store = try RouteStore(at: url, options: .init(durability: .buffered, compaction: .manual))
            for version in [1, 2] {
                CodecBenchmarkHooks.writePointBlocks(version: version)
                ids[version] = try walks.map { try store.save($0) }
            }
            CodecBenchmarkHooks.writePointBlocks(version: nil)
            try store.close()
        }
        let store = try RouteStore(at: url, options: .init(durability: .buffered, compaction: .manual))
        defer { try? store.close() }
        let blocks = [1: walks.map { CodecBenchmarkHooks.pointBlock($0.points, version: 1) },
                      2: walks.map { CodecBenchmarkHooks.pointBlock($0.points, version: 2) }]
        var cost = LoadCost()
        cost.points = walks.first?.points.count ?? 0
        for round in 0..<(rounds + 10) {
            for version in (round % 2 == 0 ? [1, 2] : [2, 1]) {
                let i = round % walks.count
                let faults = ProcessStats.minorFaults(), wall = Stopwatch.now(), cpu = ThreadClock.now()
                let route = try store.route(ids[version]![i])
                let cpuSeconds = Double(ThreadClock.now() - cpu) / 1e9, wallSeconds = Double(Stopwatch.now() - wall) / 1e9
                let loadFaults = ProcessStats.minorFaults() - faults
                let decodeStart = ProcessStats.minorFaults()
                let decoded = try CodecBenchmarkHooks.decodeStages(blocks[version]![i], clock: ThreadClock.now)
                let decodeFaults = ProcessStats.minorFaults() - decodeStart
                guard round >= 10 else { continue }
                guard route.points.count == cost.points, decoded.points.count == cost.points else {
                    throw BenchError("a loaded walk has \(route.points.count) points, not \(cost.points)")
                }
                cost.versions[version]!.load.append(wallSeconds)
                cost.versions[version]!.loadCPU.append(cpuSeconds)
                cost.versions[version]!.loadFaults += loadFaults
                cost.versions[version]!.decodeFaults += decodeFaults
                cost.versions[version]!.decodeColumns.append(Double(decoded.columnsNanoseconds) / 1e9)
                cost.versions[version]!.decodePoints.append(Double(decoded.pointsNanoseconds) / 1e9)
            }
        }
        // Back to back: the route of each load is gone before the next, so whatever a
        // load frees is what the next one allocates again. The two versions' batches in
        // random order.
        var generator = SystemRandomNumberGenerator()
        for round in 0..<(rounds / 4 + 2) {
            for version in [1, 2].shuffled(using: &generator) {
                let start = Stopwatch.now(), faults = ProcessStats.minorFaults()
                for j in 0..<Self.batch { _ = try store.route(ids[version]![(round * Self.batch + j) % walks.count]) }
                guard round >= 2 else { continue }
                cost.versions[version]!.backToBack.append(Double(Stopwatch.now() - start) / 1e9 / Double(Self.batch))
                cost.versions[version]!.backToBackFaults += ProcessStats.minorFaults() - faults
                cost.versions[version]!.backToBackLoads += Self.batch
            }
        }
        return cost
    }

    /// `route(_:)` of the walks in turn for `seconds` (a loop to run under `perf record`); returns how many,
    /// and the page faults the loop took.
    static func loop(_ walks: [Route], seconds: Double, directory: URL) throws -> (count: Int, faults: Int) {
        let url = directory.appendingPathComponent("load-loop.routelog")
        let store = try RouteStore(at: url, options: .init(durability: .buffered, compaction: .manual))
        defer { try? store.close() }
        let ids = try walks.map { try store.save($0) }
        let end = Stopwatch.now() + UInt64(seconds * 1e9), faults = ProcessStats.minorFaults()
        var loads = 0
        while Stopwatch.now() < end {
            _ = try store.route(ids[loads % ids.count])
            loads += 1
        }
        return (loads, ProcessStats.minorFaults() - faults)
    }

    static func median(_ samples: [Double]) -> Double { Percentiles(samples).value(at: 50) }

    /// Points decoded a second, block to `[TrackPoint]`.
    func decodeRate(_ version: Int) -> Double {
        guard let v = versions[version] else { return .nan }
        return Double(points) / (Self.median(v.decodeColumns) + Self.median(v.decodePoints))
    }

    func report() -> [String] {
        var lines = ["Load: `route(_:)` of a \(Format.count(points))-point walk (wall and thread CPU time, warm page cache), "
                     + "median of \(versions[2]?.load.count ?? 0) per version; decoding alone (thread CPU)"]
        for version in [1, 2] {
            guard let v = versions[version] else { continue }
            let columns = Self.median(v.decodeColumns), built = Self.median(v.decodePoints)
            let faults = Double(v.loadFaults) / Double(max(1, v.load.count))
            lines.append("  v\(version): load \(Format.seconds(Self.median(v.load))) (CPU \(Format.seconds(Self.median(v.loadCPU))), "
                         + "\(Format.decimal(faults, 1)) page faults); "
                         + "decode \(Format.seconds(columns + built))"
                         + (version == 2 ? " = columns \(Format.seconds(columns)) + [TrackPoint] \(Format.seconds(built))" : "")
                         + " (\(Format.decimal(Double(v.decodeFaults) / Double(max(1, v.load.count)), 1)) page faults)"
                         + ": \(Format.decimal(decodeRate(version) / 1e6, 1)) million points a second"
                         + (version == 2 ? " (columns alone \(Format.decimal(Double(points) / columns / 1e6, 1)) million)" : ""))
        }
        lines.append("  back to back (each loaded route dropped before the next load, batches of \(Self.batch), versions in random order, "
                     + "median of \(versions[2]?.backToBack.count ?? 0) batches): "
                     + [1, 2].map { v in
                         let faults = Double(versions[v]?.backToBackFaults ?? 0) / Double(max(1, versions[v]?.backToBackLoads ?? 0))
                         return "v\(v) \(Format.seconds(Self.median(versions[v]?.backToBack ?? []))) (\(Format.decimal(faults, 1)) page faults)"
                     }.joined(separator: ", ")
                     + " a load")
        return lines
    }

    /// A v2 load as the goal counts it: the slower of a single load and one of a run of
    /// back-to-back loads.
    var goalLoad: Double { max(Self.median(versions[2]!.load), Self.median(versions[2]!.backToBack)) }
}
