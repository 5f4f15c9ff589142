import Foundation
@_spi(Benchmarks) import RouteLog
import RouteLogSamples

/// The CPU a save of a 3,600-point walk costs the calling thread (thread CPU time,
/// user and system): the whole buffered save (validation, quantization, summary,
/// encoding, checksum, write, index), and the codec's stages timed on their own. Point
/// blocks of version 1 and 2 are saved turn about through one store, so that whatever
/// else the machine does falls on both alike.
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
    var points = 0

    /// Distinct walks of `points` fixes, one second apart.
    static func walks(count: Int, points: Int) -> [Route] {
        var schedule = WalkSchedule(seed: 0xC0DE_C0DE)
        return (0..<count).map { _ in schedule.walk(pointCount: points) }
    }

    static func measure(_ walks: [Route], saves: Int, directory: URL) throws -> SaveCost {
        let url = directory.appendingPathComponent("save-cpu.routelog")
        let store = try RouteStore(at: url, options: .init(durability: .buffered, compaction: .manual))
        defer {
            CodecBenchmarkHooks.writePointBlocks(version: nil)
            try? store.close()
        }
        var cost = SaveCost()
        cost.points = walks.first?.points.count ?? 0
        for i in 0..<(2 * saves + 40) {
            let version = i % 2 + 1
            let walk = walks[(i / 2) % walks.count]
            CodecBenchmarkHooks.writePointBlocks(version: version)
            let faultsBefore = ProcessStats.minorFaults()
            let whole = try ThreadClock.seconds { _ = try store.save(walk) }
            let faults = ProcessStats.minorFaults() - faultsBefore
            let part = Double(try CodecBenchmarkHooks.saveCodecPart(walk, clock: ThreadClock.now)) / 1e9
            let stages = try CodecBenchmarkHooks.encodeStages(walk, version: version, clock: ThreadClock.now)
            guard i >= 40 else { continue }  // warm-up: caches, allocator, page cache
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
        return lines
    }
}
