import Foundation
import RouteLog

/// `routelog-bench --concurrency`: what the store's locks cost an app.
///
/// 1. Reads beside a writer: one thread saves durably in a loop while another times
///    `summaries()` and `route(id)`; reads take only the state lock, so they should
///    not wait for the writer's sync. Aim: `summaries()` p99 at most 50 µs.
/// 2. Group commit: 8 threads save durably at once, against 1 thread; the writer writes
///    the saves that wait together and syncs once for them. Aim: at most 0.25 syncs a
///    save (from the store's own counters, `statistics().writes`), and more saves a
///    second than one thread.
enum ConcurrencyScenario {
    static func run(_ options: BenchOptions) throws {
        try FileManager.default.createDirectory(at: options.stores, withIntermediateDirectories: true)
        var aims: [(String, Bool, String)] = []
        aims.append(try readsBesideAWriter(options))
        aims += try groupCommit(options)
        print("")
        for (aim, met, measured) in aims { print("\(met ? "met    " : "NOT met") \(aim): \(measured)") }
    }

    private static func freshStore(_ name: String, _ options: BenchOptions) -> URL {
        let url = options.stores.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: url)
        return url
    }

    static func readsBesideAWriter(_ options: BenchOptions) throws -> (String, Bool, String) {
        let url = freshStore("concurrency-reads.routelog", options)
        defer { if !options.keepStores { try? FileManager.default.removeItem(at: url) } }
        let routeCount = options.quick ? 1_000 : 10_000
        var schedule = WalkSchedule(seed: 0xC0C0)
        do {
            let store = try RouteStore(at: url, options: .init(durability: .buffered, compaction: .manual))
            var made = 0
            while made < routeCount {
                try store.save((0..<min(64, routeCount - made)).map { _ in schedule.walk(pointCount: 600) })
                made += 64
            }
            try store.close()
        }
        let store = try RouteStore(at: url, options: .init(durability: .full, compaction: .manual))
        let ids = try store.summaries().map(\.id)
        let stop = StateLock(false)
        let saves = StateLock(0)
        let walks = (0..<16).map { _ in schedule.walk(pointCount: options.pointsPerRoute) }
        let writer = Thread {
            var i = 0
            while !stop.withLock({ $0 }) {
                _ = try? store.save(walks[i % walks.count])
                saves.withLock { $0 += 1 }
                i += 1
            }
        }
        writer.start()
        while saves.withLock({ $0 }) < 3 { usleep(1_000) }
        let samples = options.quick ? 2_000 : 10_000
        var listing: [Double] = [], loading: [Double] = []
        var pick = 0
        for i in 0..<samples {
            listing.append(try Stopwatch.time { _ = try store.summaries() }.1)
            if i % 5 == 0 {
                pick = (pick + 7919) % ids.count
                loading.append(try Stopwatch.time { _ = try store.route(ids[pick]) }.1)
            }
        }
        stop.withLock { $0 = true }
        while !writer.isFinished { usleep(1_000) }
        let written = saves.withLock { $0 }
        try store.close()
        let l = Percentiles(listing), r = Percentiles(loading)
        print("Reads beside a durable writer: \(Format.count(routeCount)) routes stored, \(Format.count(written)) saves of \(options.pointsPerRoute) points made meanwhile")
        print("| read | samples | p50 | p99 | max |")
        print("|---|---|---|---|---|")
        print("| summaries() | \(l.count) | \(Format.seconds(l.value(at: 50))) | \(Format.seconds(l.value(at: 99))) | \(Format.seconds(l.max)) |")
        print("| route(id) | \(r.count) | \(Format.seconds(r.value(at: 50))) | \(Format.seconds(r.value(at: 99))) | \(Format.seconds(r.max)) |")
        let p99 = l.value(at: 99)
        return ("summaries() p99 at most 50 µs while another thread saves durably", p99 <= 50e-6,
                "\(Format.seconds(p99)) at \(Format.count(routeCount)) routes")
    }

    /// Saves `perThread` walks from each of `threads` threads at once; returns saves a
    /// second and the store's write counters.
    static func saveConcurrently(_ url: URL, threads: Int, perThread: Int, _ options: BenchOptions) throws
        -> (perSecond: Double, writes: StoreStatistics.Writes) {
        let store = try RouteStore(at: url, options: .init(durability: .full, compaction: .manual))
        var schedule = WalkSchedule(seed: 0xC0C1)
        let walks = (0..<16).map { _ in schedule.walk(pointCount: options.pointsPerRoute) }
        let group = DispatchGroup()
        let failures = StateLock(0)
        let start = Stopwatch.now()
        for t in 0..<threads {
            group.enter()
            Thread {
                for i in 0..<perThread where (try? store.save(walks[(t * perThread + i) % walks.count])) == nil {
                    failures.withLock { $0 += 1 }
                }
                group.leave()
            }.start()
        }
        group.wait()
        let seconds = Double(Stopwatch.now() - start) / 1e9
        let writes = try store.statistics().writes
        try store.close()
        guard failures.withLock({ $0 }) == 0 else { throw BenchError("saves failed during the group-commit run") }
        return (Double(threads * perThread) / seconds, writes)
    }

    static func groupCommit(_ options: BenchOptions) throws -> [(String, Bool, String)] {
        let perThread = options.quick ? 25 : 100
        // One thread and eight, alternated so that the disk's mood falls on both alike.
        var single: [Double] = [], eight: [Double] = []
        var eightWrites = (changes: 0, groups: 0, dataSyncs: 0)
        for round in 0..<(options.quick ? 2 : 4) {
            for threads in round % 2 == 0 ? [1, 8] : [8, 1] {
                let url = freshStore("concurrency-\(threads).routelog", options)
                let (rate, writes) = try saveConcurrently(url, threads: threads, perThread: threads == 1 ? perThread * 2 : perThread, options)
                if threads == 1 { single.append(rate) } else {
                    eight.append(rate)
                    eightWrites.changes += writes.changes
                    eightWrites.groups += writes.groups
                    eightWrites.dataSyncs += writes.dataSyncs
                }
                if !options.keepStores { try? FileManager.default.removeItem(at: url) }
            }
        }
        let one = Percentiles(single).value(at: 50), many = Percentiles(eight).value(at: 50)
        let syncsPerSave = Double(eightWrites.dataSyncs) / Double(max(1, eightWrites.changes))
        print("Group commit: durable saves of \(options.pointsPerRoute)-point walks")
        print("| threads | saves/s (median of runs) | saves per write | syncs per save |")
        print("|---|---|---|---|")
        print("| 1 | \(Format.decimal(one, 0)) | 1 | 1 |")
        print("| 8 | \(Format.decimal(many, 0)) | \(Format.decimal(Double(eightWrites.changes) / Double(max(1, eightWrites.groups)), 2)) | \(Format.decimal(syncsPerSave, 3)) |")
        return [("8 threads saving durably: at most 0.25 syncs a save", syncsPerSave <= 0.25,
                 "\(Format.decimal(syncsPerSave, 3)) (\(eightWrites.dataSyncs) syncs for \(eightWrites.changes) saves)"),
                ("8 threads save more a second than 1", many > one,
                 "\(Format.decimal(many, 0)) vs \(Format.decimal(one, 0)) saves/s = \(Format.decimal(many / one, 2))x")]
    }
}
