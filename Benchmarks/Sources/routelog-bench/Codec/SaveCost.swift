import Foundation
@_spi(Benchmarks) import RouteLog
import RouteLogSamples

/// The CPU a save of a 3,600-point walk costs the calling thread (thread CPU time,
/// user and system): the whole buffered save (validation, quantization, summary,
/// encoding, checksum, write, index), and the codec's stages timed on their own. Point
/// blocks of version 1 and 2, and version 2 blocks of the walks with a GPX file's fields
/// only, are saved turn about through one store, so that whatever else the machine does
/// falls on all alike.
struct SaveCost {
    struct Version {
        var whole: [Double] = []
        /// Minor page faults of each whole save.
        var faults: [Int] = []
        /// What the save's codec part costs, called as the store calls it.
        var storeCodecPart: [Double] = []
        /// ``RouteEncoder``'s stages: one pass, shape, point block.
        var stages: [String: [Double]] = [:]
        var stageOrder: [String] = []
    }

    var versions: [Int: Version] = [1: Version(), 2: Version()]
    /// Whole v2 saves of the same walks with a GPX file's fields only, turn about with
    /// the others: a route with no speeds of its own, whose largest speed the save
    /// measures from its steps.
    var gpxWhole: [Double] = []
    var points = 0

    /// Distinct walks of `points` fixes, one second apart.
    static func walks(count: Int, points: Int) -> [Route] {
        var schedule = WalkSchedule(seed: 0xC0DE_C0DE)
        return (0..<count).map { _ in schedule.walk(pointCount: points) }
    }

    /// The walks as a GPX file gives them: latitude, longitude, time and elevation, no
    /// speed, course or accuracies.
    static func gpxFields(_ walks: [Route]) -> [Route] {
        walks.map { walk in
            Route(points: walk.points.map {
                TrackPoint(latitude: $0.latitude, longitude: $0.longitude, timestamp: $0.timestamp, altitude: $0.altitude)
            }, splits: walk.splits, metadata: walk.metadata, segmentStarts: walk.segmentStarts)
        }
    }

    static func measure(_ walks: [Route], saves: Int, directory: URL) throws -> SaveCost {
        let gpxWalks = gpxFields(walks)
        let url = directory.appendingPathComponent("save-cpu.routelog")
        let store = try RouteStore(at: url, options: .init(durability: .buffered, compaction: .manual))
        defer {
            CodecBenchmarkHooks.writePointBlocks(version: nil)
            try? store.close()
        }
        var cost = SaveCost()
        cost.points = walks.first?.points.count ?? 0
        for i in 0..<(3 * saves + 60) {
            let kind = i % 3  // 0, 1: v1, v2 blocks; 2: v2 blocks of a GPX file's fields
            let version = kind == 0 ? 1 : 2
            let walk = (kind == 2 ? gpxWalks : walks)[(i / 3) % walks.count]
            CodecBenchmarkHooks.writePointBlocks(version: version)
            let faultsBefore = ProcessStats.minorFaults()
            let whole = try ThreadClock.seconds { _ = try store.save(walk) }
            let faults = ProcessStats.minorFaults() - faultsBefore
            guard kind != 2 else {
                if i >= 60 { cost.gpxWhole.append(whole) }
                continue
            }
            let part = Double(try CodecBenchmarkHooks.saveCodecPart(walk, clock: ThreadClock.now)) / 1e9
            let stages = try CodecBenchmarkHooks.encodeStages(walk, version: version, clock: ThreadClock.now)
            guard i >= 60 else { continue }  // warm-up: caches, allocator, page cache
            cost.versions[version]!.whole.append(whole)
            cost.versions[version]!.faults.append(faults)
            cost.versions[version]!.storeCodecPart.append(part)
            for (stage, ns) in stages {
                if cost.versions[version]!.stages[stage] == nil { cost.versions[version]!.stageOrder.append(stage) }
                cost.versions[version]!.stages[stage, default: []].append(Double(ns) / 1e9)
            }
        }
        return cost
    }

    /// Buffered saves for `seconds` (a loop to run under `perf record`); returns how many, and the
    /// page faults the loop took.
    static func loop(_ walks: [Route], seconds: Double, version: Int, directory: URL) throws -> (count: Int, faults: Int) {
        CodecBenchmarkHooks.writePointBlocks(version: version)
        defer { CodecBenchmarkHooks.writePointBlocks(version: nil) }
        let url = directory.appendingPathComponent("save-loop.routelog")
        var store = try RouteStore(at: url, options: .init(durability: .buffered, compaction: .manual))
        let end = Stopwatch.now() + UInt64(seconds * 1e9), faults = ProcessStats.minorFaults()
        var saves = 0
        while Stopwatch.now() < end {
            _ = try store.save(walks[saves % walks.count])
            saves += 1
            // A fresh store now and then keeps the files small.
            if saves % 2_000 == 0 {
                try store.close()
                try FileManager.default.removeItem(at: url)
                store = try RouteStore(at: url, options: .init(durability: .buffered, compaction: .manual))
            }
        }
        let taken = ProcessStats.minorFaults() - faults
        try store.close()
        return (saves, taken)
    }

    static func median(_ samples: [Double]) -> Double { Percentiles(samples).value(at: 50) }

    func report() -> [String] {
        var lines = ["Save CPU: thread CPU time of a buffered save of a \(Format.count(points))-point walk, median of "
                     + "\(versions[2]?.whole.count ?? 0) per version (versions saved turn about through one store)"]
        for version in [1, 2] {
            guard let v = versions[version] else { continue }
            let whole = Self.median(v.whole), part = Self.median(v.storeCodecPart)
            lines.append("  v\(version): whole save \(Format.seconds(whole)) (p10 \(Format.seconds(Percentiles(v.whole).value(at: 10))), "
                         + "p90 \(Format.seconds(Percentiles(v.whole).value(at: 90)))), \(Format.decimal(whole * 1e9 / Double(points), 1)) ns a point, "
                         + "\(Format.decimal(Double(v.faults.reduce(0, +)) / Double(max(1, v.faults.count)), 1)) page faults a save")
            lines.append("      the codec part (validate, quantize, measure, derived fields, shape, point block): \(Format.seconds(part)); "
                         + "the rest (record, checksum, write, index): \(Format.seconds(whole - part))")
            for stage in v.stageOrder {
                lines.append("      stage \(stage): \(Format.seconds(Self.median(v.stages[stage] ?? [])))")
            }
        }
        if !gpxWhole.isEmpty {
            let whole = Self.median(gpxWhole)
            lines.append("  v2, the same walks with a GPX file's fields only (latitude, longitude, time, elevation; no speeds): "
                         + "whole save \(Format.seconds(whole)) (p10 \(Format.seconds(Percentiles(gpxWhole).value(at: 10))), "
                         + "p90 \(Format.seconds(Percentiles(gpxWhole).value(at: 90)))), "
                         + "\(Format.decimal(whole * 1e9 / Double(points), 1)) ns a point")
        }
        return lines
    }
}
