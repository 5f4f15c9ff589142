import Foundation
import RouteLog
#if canImport(Glibc)
import Glibc
#endif

/// One engine's store, in a child process of its own (so that peak memory is the
/// engine's), driven step by step by the parent through ``EngineDriver``.
///
/// The parent interleaves the engines' timed saves (one save of engine A, one of B, ...)
/// so that whatever else the machine does at that moment falls on every engine alike.
/// Each child makes the same window walks from the same seed, in the same order.
final class EngineSession {
    let kind: EngineKind
    let options: BenchOptions
    let tracks: [GPXTracks.Track]

    /// Growth repeats a pool of walks, every timestamp shifted so that each route starts
    /// at its own date. Baselines that store RouteLog's bytes store the pool walk's
    /// bytes, encoded once (the same size within a few bytes).
    static let poolSize = 8
    /// Seconds between the starts of consecutive routes.
    static let fillSpacing: TimeInterval = 8 * 3_600

    private let engine: any StorageEngine
    private let pool: [FillRoute]
    private var windowWalks: WalkSchedule
    private var report: EngineReport
    private let started = Stopwatch.now()
    private(set) var routes = 0
    private var points = 0
    private var fillSeconds = 0.0
    private var durableSamples: [Double] = [], bufferedSamples: [Double] = []
    private var gpxSamples: [Double] = [], gpxBufferedSamples: [Double] = []

    init(kind: EngineKind, options: BenchOptions, tracks: [GPXTracks.Track], directory: URL) throws {
        self.kind = kind
        self.options = options
        self.tracks = tracks
        var poolWalks = WalkSchedule(seed: 0x5EED_F111)
        poolWalks.startSpacing = 0
        pool = try (0..<Self.poolSize).map { _ in try FillRoute(poolWalks.walk(pointCount: options.pointsPerRoute)) }
        windowWalks = WalkSchedule(seed: 0x5EED_0001)
        windowWalks.firstStart = Date(timeIntervalSince1970: 1_704_096_000 + 4 * 3_600)
        windowWalks.startSpacing = Self.fillSpacing
        report = EngineReport(engine: kind.rawValue, title: kind.title, checkpoints: [],
                              harnessResidentBytes: ProcessStats.peakResidentBytes(), stopped: nil, notes: [], seconds: 0)
        engine = try kind.make(directory: directory)
    }

    func log(_ message: String) {
        FileHandle.standardError.write(Data("[\(kind.rawValue)] \(message)\n".utf8))
    }

    /// Grows the store to `target` routes with buffered bulk saves, then flushes
    /// everything to disk so the growth is not charged to the first timed save.
    func grow(to target: Int) throws {
        let start = Stopwatch.now()
        if routes < target {
            try engine.prepare(durable: false)
            while routes < target {
                let batch = (routes..<Swift.min(target, routes + 64)).map { i -> FillRoute in
                    var fill = pool[i % Self.poolSize]
                    fill.shift = Double(i) * Self.fillSpacing
                    return fill
                }
                try engine.fill(batch)
                routes += batch.count
                points += batch.reduce(0) { $0 + $1.base.points.count }
            }
        }
        sync()
        fillSeconds = Double(Stopwatch.now() - start) / 1e9
        log("grown to \(routes) routes in \(Format.seconds(fillSeconds))")
    }

    /// One timed save of the next window walk; the walk is made (and, for the baselines
    /// that store RouteLog's bytes, encoded) before the clock starts.
    func save(durable: Bool) throws -> Double {
        try engine.prepare(durable: durable)
        let route = windowWalks.walk(pointCount: options.pointsPerRoute)
        if let pre = engine as? PreEncodedSaves { pre.pending = try EncodedRoute(route) }
        let ((), seconds) = try Stopwatch.time { try engine.save(route) }
        routes += 1
        points += route.points.count
        if durable { durableSamples.append(seconds) } else { bufferedSamples.append(seconds) }
        return seconds
    }

    /// One timed save of real track `index`; nil if the engine refused it.
    func saveTrack(_ index: Int, durable: Bool) throws -> Double? {
        try engine.prepare(durable: durable)
        let track = tracks[index]
        if let pre = engine as? PreEncodedSaves { pre.pending = try EncodedRoute(track.route) }
        do {
            let ((), seconds) = try Stopwatch.time { try engine.save(track.route) }
            routes += 1
            points += track.route.points.count
            if durable { gpxSamples.append(seconds) } else { gpxBufferedSamples.append(seconds) }
            return seconds
        } catch {
            if report.checkpoints.isEmpty { report.notes.append("GPX \(track.file) not saved: \(error)") }
            return nil
        }
    }

    /// Closes the store, measures its files, then times open, list, weekly totals and
    /// loading one route, and records the checkpoint.
    func measure(checkpoint: Int) throws {
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
            durable: LatencyStats(durableSamples), buffered: LatencyStats(bufferedSamples),
            gpxDurable: LatencyStats(gpxSamples), gpxBuffered: LatencyStats(gpxBufferedSamples),
            bytesOnDisk: bytes, bytesPerPoint: points > 0 ? Double(bytes) / Double(points) : 0,
            openSeconds: openSeconds, listSeconds: listSeconds, weeklySeconds: weeklySeconds,
            loadSeconds: loadSeconds, peakResidentBytes: ProcessStats.peakResidentBytes())
        report.checkpoints.append(result)
        durableSamples = []; bufferedSamples = []; gpxSamples = []; gpxBufferedSamples = []
        fillSeconds = 0
        log("at \(routes) routes: durable p50 \(Format.seconds(result.durable?.p50)) p99 \(Format.seconds(result.durable?.p99)), "
            + "buffered p50 \(Format.seconds(result.buffered?.p50)), \(Format.decimal(result.bytesPerPoint, 1)) B/point, "
            + "open \(Format.seconds(openSeconds)), list \(Format.seconds(listSeconds))")
    }

    func finish(stopped: String?) throws -> EngineReport {
        try engine.close()
        report.stopped = stopped
        report.seconds = Double(Stopwatch.now() - started) / 1e9
        return report
    }

    /// The child's side of the protocol: one command a line on stdin, one answer a line
    /// on stdout (`ok [seconds]`, `skip`, or `error message`).
    static func serve(kind: EngineKind, options: BenchOptions, directory: URL, reportFile: URL) throws {
        let tracks = kind == .keyedArchive ? [] : options.gpxDirectory.map(GPXTracks.load) ?? []
        let session = try EngineSession(kind: kind, options: options, tracks: tracks, directory: directory)
        func answer(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        answer("ready \(tracks.count)")
        while let line = readLine() {
            let words = line.split(separator: " ", maxSplits: 1).map(String.init)
            do {
                switch words.first {
                case "grow": try session.grow(to: Int(words[1])!); answer("ok")
                case "save":
                    let before = session.routes
                    answer("ok \(try session.save(durable: words[1] == "durable")) \(before)")
                case "gpx":
                    let arguments = words[1].split(separator: " ")
                    let seconds = try session.saveTrack(Int(arguments[0])!, durable: arguments.last != "buffered")
                    answer(seconds.map { "ok \($0)" } ?? "skip")
                case "measure": try session.measure(checkpoint: Int(words[1])!); answer("ok")
                case "finish":
                    let report = try session.finish(stopped: words.count > 1 ? words[1] : nil)
                    try JSONEncoder().encode(report).write(to: reportFile)
                    answer("ok")
                    return
                default: answer("error unknown command \(line)")
                }
            } catch {
                answer("error \(String(describing: error).replacingOccurrences(of: "\n", with: " "))")
            }
        }
    }
}
