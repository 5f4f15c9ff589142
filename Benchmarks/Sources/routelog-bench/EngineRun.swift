import Foundation
import RouteLog
#if canImport(Glibc)
import Glibc
#endif

/// Grows one engine's store checkpoint by checkpoint and measures it. Runs in a child
/// process of its own, so that peak memory is the engine's and not the others'.
///
/// At each checkpoint N:
/// 1. grow the store to N routes with buffered bulk saves (the fill pool, below);
/// 2. time a window of durable saves of fresh 3,600-point walks, one save at a time;
/// 3. time one durable save of each real GPX track;
/// 4. time a window of buffered saves of fresh walks;
/// 5. close, measure the files, then time open, list summaries, weekly totals and
///    loading one route (medians of a few runs, warm page cache).
struct EngineRun {
    let kind: EngineKind
    let options: BenchOptions
    let tracks: [GPXTracks.Track]

    /// Fill routes repeat a pool of walks, every timestamp shifted so that each fill
    /// route starts at its own date. Baselines that store RouteLog's bytes store the
    /// pool walk's bytes, encoded once (the same size within a few bytes).
    static let poolSize = 8
    /// Seconds between the starts of consecutive fill routes.
    static let fillSpacing: TimeInterval = 8 * 3_600

    func run(in directory: URL) throws -> EngineReport {
        let started = Stopwatch.now()
        var poolWalks = WalkGenerator(seed: 0x5EED_F111)
        poolWalks.startSpacing = 0
        let pool = try (0..<Self.poolSize).map { _ -> FillRoute in
            let route = poolWalks.walk(pointCount: options.pointsPerRoute)
            return try FillRoute(route)
        }
        var windowWalks = WalkGenerator(seed: 0x5EED_0001)
        windowWalks.firstStart = Date(timeIntervalSince1970: 1_704_096_000 + 4 * 3_600)
        windowWalks.startSpacing = Self.fillSpacing
        let harnessResident = ProcessStats.peakResidentBytes()

        let engine = try kind.make(directory: directory)
        var report = EngineReport(engine: kind.rawValue, title: kind.title, checkpoints: [],
                                  harnessResidentBytes: harnessResident, stopped: nil, notes: [], seconds: 0)
        var routes = 0, points = 0
        var slowest = 0.0

        func log(_ message: String) {
            FileHandle.standardError.write(Data("[\(kind.rawValue)] \(message)\n".utf8))
        }

        /// Times saves of fresh walks until the window is full or its time is up.
        func window(durable: Bool, _ count: Int) throws -> [Double] {
            try engine.prepare(durable: durable)
            var samples: [Double] = []
            let windowStart = Stopwatch.now()
            while samples.count < count {
                let route = windowWalks.walk(pointCount: options.pointsPerRoute)
                if let pre = engine as? PreEncodedSaves { pre.pending = try EncodedRoute(route) }
                let ((), seconds) = try Stopwatch.time { try engine.save(route) }
                samples.append(seconds)
                slowest = max(slowest, seconds)
                routes += 1
                points += route.points.count
                let elapsed = Double(Stopwatch.now() - windowStart) / 1e9
                if samples.count >= options.minimumSaves, elapsed > options.windowSeconds { break }
                if kind == .keyedArchive, seconds > options.keyedArchiveLimit { break }
            }
            return samples
        }

        for checkpoint in options.checkpoints(for: kind) {
            // 1. Grow.
            let fillStart = Stopwatch.now()
            if routes < checkpoint {
                try engine.prepare(durable: false)
                while routes < checkpoint {
                    let batch = (routes..<min(checkpoint, routes + 64)).map { i -> FillRoute in
                        var fill = pool[i % Self.poolSize]
                        fill.shift = Double(i) * Self.fillSpacing
                        return fill
                    }
                    try engine.fill(batch)
                    routes += batch.count
                    points += batch.reduce(0) { $0 + $1.base.points.count }
                }
            }
            let fillSeconds = Double(Stopwatch.now() - fillStart) / 1e9
            log("grown to \(routes) routes in \(Format.seconds(fillSeconds))")
            // The growth's writes go to disk now, not inside the first timed fdatasync.
            sync()

            // 2-4. Windows of saves.
            let durable = try window(durable: true, options.windowSaves)
            var gpx: [Double] = []
            // The keyed archive rewrites its whole array on every save: a replay would
            // time the array, not the track, and take minutes.
            if kind != .keyedArchive {
                try engine.prepare(durable: true)
                for track in tracks {
                    if let pre = engine as? PreEncodedSaves { pre.pending = try EncodedRoute(track.route) }
                    do {
                        let ((), seconds) = try Stopwatch.time { try engine.save(track.route) }
                        gpx.append(seconds)
                        routes += 1
                        points += track.route.points.count
                    } catch {
                        if report.checkpoints.isEmpty { report.notes.append("GPX \(track.file) not saved: \(error)") }
                    }
                }
            }
            let buffered = kind == .keyedArchive && slowest > options.keyedArchiveLimit
                ? [] : try window(durable: false, options.windowSaves)

            // 5. Files, open, queries.
            try engine.close()
            let bytes = engine.diskBytes
            var openSeconds, listSeconds, weeklySeconds, loadSeconds: Double?
            if engine.isQueryable {
                var opens: [Double] = []
                for attempt in 0..<3 {
                    opens.append(try Stopwatch.time { try engine.open() }.1)
                    if attempt == 2 || opens.last! > 0.5 { break }
                    try engine.close()
                }
                openSeconds = Percentiles(opens).value(at: 50)
                listSeconds = try Stopwatch.median(repeats: 5) { _ = try engine.listSummaries() }
                weeklySeconds = try Stopwatch.median(repeats: 5) { _ = try engine.weeklyTotals() }
                let ordinals = (0..<10).map { ($0 * 7_919 + 13) % routes }
                var loads: [Double] = []
                for ordinal in ordinals { loads.append(try Stopwatch.time { _ = try engine.loadRoute(ordinal: ordinal) }.1) }
                loadSeconds = Percentiles(loads).value(at: 50)
            } else {
                try engine.open()
            }

            let result = CheckpointResult(
                checkpoint: checkpoint, routesStored: routes, pointsStored: points, fillSeconds: fillSeconds,
                durable: LatencyStats(durable), buffered: LatencyStats(buffered), gpxDurable: LatencyStats(gpx),
                bytesOnDisk: bytes, bytesPerPoint: points > 0 ? Double(bytes) / Double(points) : 0,
                openSeconds: openSeconds, listSeconds: listSeconds, weeklySeconds: weeklySeconds,
                loadSeconds: loadSeconds, peakResidentBytes: ProcessStats.peakResidentBytes())
            report.checkpoints.append(result)
            log("at \(routes) routes: durable p50 \(Format.seconds(result.durable?.p50)) p99 \(Format.seconds(result.durable?.p99)), "
                + "buffered p50 \(Format.seconds(result.buffered?.p50)), \(Format.decimal(result.bytesPerPoint, 1)) B/point, "
                + "open \(Format.seconds(openSeconds)), list \(Format.seconds(listSeconds))")

            if kind == .keyedArchive, slowest > options.keyedArchiveLimit {
                report.stopped = "stopped: one save took \(Format.seconds(slowest)) (over \(Format.seconds(options.keyedArchiveLimit))) with \(checkpoint) routes stored"
                log(report.stopped!)
                break
            }
        }
        try engine.close()
        report.seconds = Double(Stopwatch.now() - started) / 1e9
        return report
    }
}
