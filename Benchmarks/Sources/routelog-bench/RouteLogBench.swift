import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `swift run -c release routelog-bench [--quick]`: grows a RouteLog store and the
/// baselines side by side and reports save latency, size, open and query times.
///
/// The parent process runs each engine in a child process of its own (the same binary
/// with `--child ENGINE`), one after the other, then prints the table and the aims and
/// writes the JSON, CSV, Markdown and SVG files.
@main
struct RouteLogBench {
    static func main() {
        do {
            let options = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
            if let store = options.indexFootprintStore {
                try IndexFootprint.child(store)
            } else if let store = options.openStore, let seconds = options.openLoopSeconds {
                try IndexFootprint.openLoop(store, seconds: seconds)
            } else if let store = options.openStore, let seconds = options.listLoopSeconds {
                try IndexFootprint.openLoop(store, seconds: seconds, listing: true)
            } else if let store = options.openStore {
                try IndexFootprint.measure(store)
            } else if options.compaction {
                try CompactionScenario.run(options)
            } else if options.concurrency {
                try ConcurrencyScenario.run(options)
            } else if options.export {
                try ExportScenario.run(options)
            } else if options.codec {
                try CodecBenchmark.run(options)
            } else if options.query {
                try QueryScenario.run(options)
            } else if options.catchUp {
                try CatchUpScenario.run(options)
            } else if let kind = options.child {
                try runChild(kind, options: options)
            } else if let file = options.fromJSON {
                var results = try JSONDecoder().decode(BenchmarkResults.self, from: Data(contentsOf: file))
                results.aims = Aims.evaluate(results.engines)
                if results.gpxTrackBytes == nil { results.gpxTrackBytes = trackBytes(loadTracks(options)) }
                try FileManager.default.createDirectory(at: options.outputDirectory, withIntermediateDirectories: true)
                try publish(results, options: options)
            } else {
                try runParent(options)
            }
        } catch {
            FileHandle.standardError.write(Data("routelog-bench: \(error)\n".utf8))
            exit(2)
        }
    }

    static func loadTracks(_ options: BenchOptions) -> [GPXTracks.Track] {
        guard let directory = options.gpxDirectory else { return [] }
        return GPXTracks.load(from: directory)
    }

    static func runChild(_ kind: EngineKind, options: BenchOptions) throws {
        guard let reportFile = options.childReport else { throw BenchError("--child needs --report FILE") }
        let directory = options.stores.appendingPathComponent(kind.rawValue)
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer {
            RouteLogBytes.shared.discard()
            if !options.keepStores { try? FileManager.default.removeItem(at: directory) }
        }
        try EngineSession.serve(kind: kind, options: options, directory: directory, reportFile: reportFile)
    }

    static func runParent(_ options: BenchOptions) throws {
        // A child that dies must be reported as stopped, not take the run down with it
        // when the parent next writes to its pipe.
        signal(SIGPIPE, SIG_IGN)
        let started = Stopwatch.now()
        let fm = FileManager.default
        try fm.createDirectory(at: options.outputDirectory, withIntermediateDirectories: true)
        try fm.createDirectory(at: options.stores, withIntermediateDirectories: true)
        let tracks = loadTracks(options)
        let machine = MachineInfo.current(dataDirectory: options.stores)
        let command = (["routelog-bench"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
        print("RouteLog benchmark: \(command)")
        print(TableReport.machine(machine))
        print("Checkpoints \(options.checkpoints.map(Format.count).joined(separator: ", ")); "
              + "\(tracks.count) real GPX tracks; engines: \(options.engines.map(\.rawValue).joined(separator: ", "))\n")

        guard let executable = Bundle.main.executableURL else { throw BenchError("cannot find my own executable") }
        let drivers = try options.engines.map {
            try EngineDriver(kind: $0, options: options, executable: executable,
                             arguments: Array(CommandLine.arguments.dropFirst()))
        }
        let allCheckpoints = Set(drivers.flatMap(\.checkpoints)).sorted()
        for checkpoint in allCheckpoints {
            let active = drivers.filter { $0.stopped == nil && $0.checkpoints.contains(checkpoint) }
            guard !active.isEmpty else { continue }
            // Grow one engine at a time; then every timed step goes round the engines.
            for driver in active { driver.attempt("grow \(checkpoint)") }
            sync()
            window(active, command: "save durable", options: options)
            let trackCount = active.map(\.trackCount).max() ?? 0
            for index in 0..<trackCount {
                for driver in active where index < driver.trackCount { driver.attempt("gpx \(index)") }
            }
            window(active.filter { $0.overLimit == nil }, command: "save buffered", options: options)
            for index in 0..<trackCount {
                for driver in active where index < driver.trackCount { driver.attempt("gpx \(index) buffered") }
            }
            for driver in active { driver.attempt("measure \(checkpoint)") }
            for driver in active where driver.stopped == nil {
                guard let (seconds, routes) = driver.overLimit else { continue }
                driver.stopped = "stopped: a durable save took \(Format.seconds(seconds)) (over "
                    + "\(Format.seconds(options.keyedArchiveLimit))) with \(Format.count(routes)) "
                    + "route\(routes == 1 ? "" : "s") already stored"
            }
        }
        // Engines that ran out of checkpoints (the Core Data layout) say so.
        let reports = drivers.map { driver -> EngineReport in
            if driver.stopped == nil, let last = driver.checkpoints.last, last < (options.checkpoints.last ?? 0) {
                driver.stopped = "not grown past \(Format.count(last)) routes (see Method)"
            }
            return driver.finish()
        }
        if !options.keepStores { try? fm.removeItem(at: options.stores) }
        sync()

        var results = BenchmarkResults(
            machine: machine, command: command, method: method(options), checkpoints: options.checkpoints,
            routePoints: options.pointsPerRoute, gpxTracks: tracks.map { "\($0.file) (\($0.route.points.count) points)" },
            gpxTrackBytes: trackBytes(tracks), engines: reports, aims: Aims.evaluate(reports), seconds: 0)
        results.seconds = Double(Stopwatch.now() - started) / 1e9
        results.machine.loadAtEnd = MachineInfo.loadAverage()
        results.machine.paceAtEnd = ProcessorPace.describe()
        try publish(results, options: options)
    }

    /// Prints the table and the aims, and writes the JSON, CSV, Markdown and SVG files.
    static func publish(_ results: BenchmarkResults, options: BenchOptions) throws {
        print("")
        print(TableReport.machine(results.machine))
        print(TableReport.markdown(results))
        for engine in results.engines {
            if let stopped = engine.stopped { print("\(engine.title): \(stopped)") }
            for note in engine.notes { print("\(engine.title): \(note)") }
        }
        print("\nAims (this run):")
        print(TableReport.aims(results))

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(results).write(to: options.json)
        try Data(CSVReport.csv(results).utf8).write(to: options.csv)
        try Data(SVGChart(results: results).render().utf8).write(to: options.svg)
        try Data(TableReport.document(results).utf8).write(to: options.markdown)
        print("\nWrote \(options.json.path), \(options.csv.path), \(options.svg.path), \(options.markdown.path) "
              + "in \(Format.decimal(results.seconds, 0)) s")
    }

    /// RouteLog's record size for each real track, through the scratch store.
    static func trackBytes(_ tracks: [GPXTracks.Track]) -> [TrackBytes] {
        defer { RouteLogBytes.shared.discard() }
        return tracks.compactMap { track in
            guard let encoded = try? EncodedRoute(track.route) else { return nil }
            return TrackBytes(file: track.file, points: track.route.points.count, recordBytes: encoded.frame.count)
        }
    }

    /// Timed saves, one engine after the other, round after round, until each engine has
    /// its window (or has used its time and made the minimum number of saves).
    static func window(_ drivers: [EngineDriver], command: String, options: BenchOptions) {
        var counts = [Int](repeating: 0, count: drivers.count)
        var elapsed = [Double](repeating: 0, count: drivers.count)
        var done = [Bool](repeating: false, count: drivers.count)
        while done.contains(false) {
            for (i, driver) in drivers.enumerated() where !done[i] {
                let start = Stopwatch.now()
                guard let answer = driver.attempt(command),
                      let seconds = answer.split(separator: " ").first.flatMap({ Double($0) }) else {
                    done[i] = true
                    continue
                }
                counts[i] += 1
                elapsed[i] += Double(Stopwatch.now() - start) / 1e9
                if driver.kind == .keyedArchive, seconds > options.keyedArchiveLimit, driver.overLimit == nil {
                    driver.overLimit = (seconds, answer.split(separator: " ").last.flatMap { Int($0) } ?? 0)
                }
                done[i] = counts[i] >= options.windowSaves || driver.overLimit != nil
                    || (counts[i] >= options.minimumSaves && elapsed[i] > options.windowSeconds)
            }
        }
    }

    static func method(_ options: BenchOptions) -> [String] {
        [
            "Each engine runs in its own process, on the same machine and disk; peak RSS is that process's VmHWM, harness included (a pool of \(EngineSession.poolSize) walks, the parsed GPX tracks: about 40 MB before any engine starts). The parent drives them in step: growth one engine at a time, then every timed save goes round the engines (one save of each in turn), so that other work on the machine falls on all engines alike.",
            "Routes are seeded 1 Hz walks of \(options.pointsPerRoute) points (1.2-1.6 m/s random walk, slowly drifting GPS error, altitude, accuracies, speed, course, km and mile splits, name and calories).",
            "Growth between checkpoints uses buffered bulk saves: RouteLog .buffered save([Route]) of 64 routes, two threads at once; SQLite synchronous=OFF, one transaction per 64 routes; the keyed archive only adds to its in-memory array (its next save rewrites everything anyway); the limit baseline writes the bytes without fdatasync. Growth repeats a pool of \(EngineSession.poolSize) walks with every timestamp shifted so each route starts at its own date, 8 hours apart; the baselines that store RouteLog's bytes store the pool walk's bytes, encoded once. After growing, sync(2) flushes everything so the growth is not charged to the first timed save.",
            "At each checkpoint: up to \(options.windowSaves) durable saves of fresh walks (the same walks, in the same order, for every engine), timed one by one from one thread (an engine's window stops after \(Format.decimal(options.windowSeconds, 1)) s once it has \(options.minimumSaves) saves); one durable save of each real GPX track (not for the keyed archive); then the same window of buffered saves, and one buffered save of each real track. The store keeps the routes of every window, so it holds a little more than the checkpoint when queried.",
            "Durable: RouteLog .full (fdatasync per group of saves); SQLite WAL, synchronous=FULL, one transaction per save; keyed archive written to a temporary file, fsync, rename, directory fsync; limit: write(2) + fdatasync(2). Buffered: the same without any sync (SQLite synchronous=OFF).",
            "The limit baseline writes the exact RoutePut frame RouteLog appends (read back from a scratch buffered store, before the clock starts). The SQLite blob encodes each route with RouteLog's public codec inside its timed save and decodes it in 'load one', as RouteLog does.",
            "Open (up to 3 runs), list summaries (5), weekly totals (5) and load one route (10 routes spread over the store) are medians, measured after closing the store, with a warm page cache; a measurement over 0.5 s is not repeated. Bytes per point: apparent size of every file of the store after close (SQLite checkpoints its WAL on close) divided by the points stored.",
            "The Core Data layout stops at \(Format.count(options.coreDataMaxRoutes)) routes (one SQLite row per point; 100,000 routes would be 360 million rows and ~35 GB). The keyed archive is also measured at 1, 2, 5, 10, 25, 50... routes and stops once one save takes over \(Format.decimal(options.keyedArchiveLimit, 0)) s.",
        ]
    }
}
