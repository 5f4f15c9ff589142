import Foundation
import RouteLog
#if canImport(Glibc)
import Glibc
#endif

/// `routelog-bench --compaction`: what a compaction costs the app while it runs.
/// Grows a store of 10,000 walks (2,000 with `--quick`), deletes every other one, then
/// times durable saves with no compaction running, and again while compactions run one
/// after another on another thread; reports both latency distributions, the bytes before
/// and after the first compaction and its time.
///
/// Compaction rewrites only segments whose dead share reaches the rewrite threshold
/// (25 %), so a second compaction right after the first would find nothing to do: before
/// each later one the worker deletes every third of the grown routes still live, spread
/// over every sealed segment, so each compaction rewrites them all again.
enum CompactionScenario {
    static func run(_ options: BenchOptions) throws {
        let routeCount = options.quick ? 2_000 : 10_000
        let directory = options.stores.appendingPathComponent("compaction.routelog")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: options.stores, withIntermediateDirectories: true)
        defer { if !options.keepStores { try? FileManager.default.removeItem(at: directory) } }

        var pool = WalkSchedule(seed: 0x5EED_C0)
        pool.startSpacing = 0
        let walks = (0..<8).map { _ in pool.walk(pointCount: options.pointsPerRoute) }
        func shifted(_ route: Route, by seconds: TimeInterval) -> Route {
            var moved = route
            moved.points = route.points.map { var p = $0; p.timestamp += seconds; return p }
            return moved
        }
        var survivors: [RouteID] = []
        let (_, growSeconds) = try Stopwatch.time {
            let store = try RouteStore(at: directory, options: .init(durability: .buffered, compaction: .manual))
            var ids: [RouteID] = []
            var next = 0
            while next < routeCount {
                let batch = (next..<min(routeCount, next + 64)).map { shifted(walks[$0 % walks.count], by: Double($0) * 8 * 3_600) }
                ids += try store.save(batch)
                next += batch.count
            }
            for id in ids where id.rawValue % 2 == 0 { try store.delete(id) }
            survivors = ids.filter { $0.rawValue % 2 != 0 }
            try store.close()
        }
        sync()
        print("Compaction under load: \(Format.count(routeCount)) routes of \(options.pointsPerRoute) points, every other one deleted (grown in \(Format.seconds(growSeconds)))")

        let store = try RouteStore(at: directory, options: .init(durability: .full, compaction: .manual))
        var schedule = WalkSchedule(seed: 0x5EED_C1)
        schedule.firstStart = Date(timeIntervalSince1970: 1_900_000_000)
        let saves = options.quick ? 60 : 200
        var quiet: [Double] = []
        for _ in 0..<saves {
            let route = schedule.walk(pointCount: options.pointsPerRoute)
            quiet.append(try Stopwatch.time { try store.save(route) }.1)
        }
        let before = try store.statistics()
        // The first compaction reclaims the deleted half; more follow, each after deleting
        // a third of the grown routes left, until the saves beside them make a sample (or
        // too few grown routes are left to give a compaction work).
        let wanted = options.quick ? 30 : 100
        let first = StateLock<Result<CompactionReport, any Error>?>(nil)
        let enough = StateLock(false), finished = StateLock(false)
        let compactions = StateLock(0), rewrites = StateLock(0)
        let grown = survivors
        let worker = Thread {
            var live = grown
            repeat {
                if compactions.withLock({ $0 }) > 0 {
                    guard live.count >= 3 else { break }
                    var kept: [RouteID] = []
                    for (i, id) in live.enumerated() {
                        if i % 3 == 0 { try? store.delete(id) } else { kept.append(id) }
                    }
                    live = kept
                }
                let result = Result { try store.compact() }
                first.withLock { if $0 == nil { $0 = result } }
                compactions.withLock { $0 += 1 }
                if case .success(let report) = result, report.segmentsCompacted > 0 { rewrites.withLock { $0 += 1 } }
                if case .failure = result { break }
            } while !enough.withLock({ $0 })
            finished.withLock { $0 = true }
        }
        worker.start()
        var during: [Double] = []
        while !finished.withLock({ $0 }) {
            let route = schedule.walk(pointCount: options.pointsPerRoute)
            during.append(try Stopwatch.time { try store.save(route) }.1)
            if during.count >= wanted { enough.withLock { $0 = true } }
        }
        let compaction = try first.withLock { $0! }.get()
        let after = try store.statistics()
        try store.close()

        let q = Percentiles(quiet), d = Percentiles(during)
        print("")
        print("| durable saves | count | p50 | p90 | p99 | max |")
        print("|---|--:|--:|--:|--:|--:|")
        print("| no compaction running | \(q.count) | \(Format.seconds(q.value(at: 50))) | \(Format.seconds(q.value(at: 90))) | \(Format.seconds(q.value(at: 99))) | \(Format.seconds(q.max)) |")
        print("| while compact() runs | \(d.count) | \(Format.seconds(d.value(at: 50))) | \(Format.seconds(d.value(at: 90))) | \(Format.seconds(d.value(at: 99))) | \(Format.seconds(d.max)) |")
        print("")
        print("first compaction: \(Format.seconds(compaction.duration)), \(Format.count(compaction.recordsMoved)) records moved out of \(compaction.segmentsCompacted) segments; \(compactions.withLock { $0 }) compactions ran one after another while the saves were timed, \(rewrites.withLock { $0 }) of them rewrote segments (a third of the grown routes left was deleted before each after the first)")
        print("store files: \(Format.megabytes(compaction.bytesBefore)) MB before, \(Format.megabytes(compaction.bytesAfter)) MB after (live \(Format.megabytes(before.liveBytes)) MB, dead \(Format.megabytes(before.deadBytes)) MB before; dead \(Format.megabytes(after.deadBytes)) MB after)")
        print("saves made during the compaction are in the result: \(after.liveRoutes) routes live")
    }
}
