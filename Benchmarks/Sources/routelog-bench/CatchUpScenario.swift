import Foundation
import RouteLog

/// `routelog-bench --catch-up`: what an app pays at its next open when its buffered
/// writer was killed with the most saves the index can be missing (format-spec.md,
/// "Downsides": buffered saves' index records wait for the segment's sync, every 1,024).
/// The store's killed copy and the same store closed are opened in random order, each
/// read-only (the reader replays the unindexed records) and, on fresh synced copies, as a
/// writer (which also syncs them and appends their index records). Reports, never asserts.
enum CatchUpScenario {
    /// One less than the saves that make a buffered writer sync: the most a killed one
    /// leaves unindexed.
    static let unindexed = 1_023

    static func run(_ options: BenchOptions) throws {
        let directory = options.stores.appendingPathComponent("catch-up")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { if !options.keepStores { try? FileManager.default.removeItem(at: directory) } }
        let indexed = options.quick ? 2_000 : 10_000
        let walks = SaveCost.walks(count: 8, points: options.pointsPerRoute)
        print("RouteLog catch-up benchmark: routelog-bench \(CommandLine.arguments.dropFirst().joined(separator: " "))")
        print(TableReport.machine(MachineInfo.current(dataDirectory: directory)))

        let closed = directory.appendingPathComponent("closed.routelog")
        let killed = directory.appendingPathComponent("killed.routelog")
        var store = try RouteStore(at: closed, options: .init(durability: .buffered, compaction: .manual))
        for i in 0..<indexed { try store.save(walk(walks, i)) }
        try store.close()
        store = try RouteStore(at: closed, options: .init(durability: .buffered, compaction: .manual))
        for i in indexed..<(indexed + unindexed) { try store.save(walk(walks, i)) }
        try FileManager.default.copyItem(at: closed, to: killed)  // the writer killed here
        try store.close()
        print("\(indexed) routes closed, then \(unindexed) buffered saves of \(options.pointsPerRoute)-point walks; "
              + "the killed copy's index lacks those \(unindexed)")

        let rounds = options.quick ? 5 : 11
        var reads: [String: [Double]] = [:], writes: [String: [Double]] = [:]
        var order = Array(repeating: ["killed", "closed"], count: rounds).flatMap { $0 }
        order.shuffle()
        for (n, which) in order.enumerated() {
            let source = which == "killed" ? killed : closed
            let (reader, seconds) = try Stopwatch.time { try RouteStore(at: source, options: .init(mode: .readOnly)) }
            guard try reader.count == indexed + unindexed else { throw BenchError("the \(which) store lost routes") }
            try reader.close()
            reads[which, default: []].append(seconds)
            let copy = directory.appendingPathComponent("writer-\(n).routelog")
            try FileManager.default.copyItem(at: source, to: copy)
            // The copy's own write-out is not the open's work: synced first, so the
            // writer's time is the catch-up (a killed writer's unsynced bytes would add
            // their write-out, the sync it skipped).
            for name in try FileManager.default.contentsOfDirectory(atPath: copy.path) {
                let handle = try FileHandle(forUpdating: copy.appendingPathComponent(name))
                try handle.synchronize()
                try handle.close()
            }
            let (writer, writerSeconds) = try Stopwatch.time { try RouteStore(at: copy, options: .init(compaction: .manual)) }
            try writer.close()
            try FileManager.default.removeItem(at: copy)
            writes[which, default: []].append(writerSeconds)
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        for (label, times) in [("read-only open", reads), ("writer's open", writes)] {
            let k = median(times["killed"]!), c = median(times["closed"]!)
            print("  \(label), median of \(rounds): killed \(Format.seconds(k)), closed \(Format.seconds(c)): "
                  + "\(Format.decimal(k / c, 2))x, \(Format.seconds(k - c)) more")
        }
    }

    private static func walk(_ walks: [Route], _ i: Int) -> Route {
        var route = walks[i % walks.count]
        route.metadata.name = "walk \(i)"
        return route
    }
}
