import Foundation

/// The command line, parsed. See `usage`.
struct BenchOptions: Sendable {
    var quick = false
    /// Run the compaction-under-load scenario instead of the growth benchmark.
    var compaction = false
    /// Run the reads-beside-a-writer and group-commit scenario.
    var concurrency = false
    /// Run the GeoParquet export scenario instead of the growth benchmark.
    var export = false
    /// Run the codec and save/load CPU measurements instead (CodecBenchmark).
    var codec = false
    /// With `--codec`: only a loop of buffered saves for this many seconds (for `perf record`).
    var codecSaveLoopSeconds: Double?
    /// With `--codec`: only a loop of `route(_:)` loads for this many seconds (for `perf record`).
    var codecLoadLoopSeconds: Double?
    /// The point-block version that loop writes (`--block-version`).
    var codecLoopVersion = 2
    /// The save loop's walks with a GPX file's fields only (`--gpx-fields`).
    var codecLoopGPXFields = false
    /// Run the query scenario (a pass-through query over 100,000 routes).
    var query = false
    /// Run the catch-up scenario instead (CatchUpScenario): the open after a killed buffered writer.
    var catchUp = false
    var engines: [EngineKind] = EngineKind.allCases
    var checkpoints: [Int] = [100, 1_000, 10_000, 100_000]
    /// The Core Data layout writes ~90 bytes and one B-tree row per point: growing it to
    /// 100,000 routes (360 million rows, ~30 GB) does not fit a 10-minute run.
    var coreDataMaxRoutes = 10_000
    /// Saves timed per window (durable, then buffered) at each checkpoint.
    var windowSaves = 200
    /// A window stops early once it has taken this long (and has at least `minimumSaves`).
    var windowSeconds = 6.0
    var minimumSaves = 3
    /// The keyed archive stops once one save takes longer than this.
    var keyedArchiveLimit = 2.0
    var pointsPerRoute = 3_600
    var outputDirectory = URL(fileURLWithPath: "bench-results")
    var dataDirectory: URL?
    var jsonFile: URL?
    var csvFile: URL?
    var svgFile: URL?
    var markdownFile: URL?
    var gpxDirectory: URL? = URL(fileURLWithPath: "../shared/data/gpx")
    var keepStores = false
    /// Re-renders the table, aims, CSV, Markdown and chart of an earlier run's JSON.
    var fromJSON: URL?
    /// Internal: run one engine in this process and write its report here.
    var child: EngineKind?
    /// `--index-footprint STORE`: the child process ``IndexFootprint`` starts, which
    /// opens STORE in a fresh process and prints its resident bytes.
    var indexFootprintStore: URL?
    var childReport: URL?
    /// `--open STORE`: the open, first listing and resident bytes of an existing store.
    var openStore: URL?
    /// `--open STORE --open-loop SECONDS`: opens STORE read-only again and again for
    /// that long, nothing else (a loop to profile).
    var openLoopSeconds: Double?
    /// `--open STORE --list-loop SECONDS`: opens STORE and makes its first listing
    /// again and again for that long (a loop to profile the listing).
    var listLoopSeconds: Double?

    static let usage = """
        usage: routelog-bench [--quick] [--engines a,b,...] [--checkpoints 100,1000,...]
                              [--coredata-max N] [--window N] [--json FILE] [--csv FILE]
                              [--svg FILE] [--markdown FILE] [--out DIR] [--data DIR]
                              [--gpx DIR | --no-gpx] [--keep]
               routelog-bench --from-json FILE [--out DIR ...]   (re-render an earlier run)
               routelog-bench --compaction [--quick] [--data DIR] [--keep]
                 (save latency while compact() runs on 10,000 routes, half deleted)
               routelog-bench --codec [--quick] [--gpx DIR] [--data DIR] [--save-loop SECONDS [--block-version 1|2] [--gpx-fields]] [--load-loop SECONDS]
                 (point-block bytes against xz, save CPU by stage, load and decode speed)
               routelog-bench --concurrency [--quick] [--data DIR] [--keep]
                 (summaries() and route(id) beside a durable writer; 8 threads saving)
               routelog-bench --export [--quick] [--data DIR] [--keep]
                 (GeoParquet export of 10,000 walks: points/s, bytes against the store, DuckDB)
               routelog-bench --query [--quick] [--data DIR] [--keep]
                 (a pass-through query over 100,000 routes matching 1%; index bytes a route)
               routelog-bench --catch-up [--quick] [--data DIR] [--keep]
                 (the open after a buffered writer killed with 1,023 saves unindexed, against closed)
               routelog-bench --open STORE [--open-loop SECONDS | --list-loop SECONDS]
                 (open and first listing of an existing store, and the index's resident bytes)
          engines: \(EngineKind.allCases.map(\.rawValue).joined(separator: ", "))
          --quick   checkpoints 100, 1,000 and 10,000, smaller windows: under a minute
        """

    static func parse(_ arguments: [String]) throws -> BenchOptions {
        var options = BenchOptions()
        var explicitCheckpoints = false, explicitCoreData = false, explicitWindow = false
        var i = 0
        func value() throws -> String {
            i += 1
            guard i < arguments.count else { throw BenchError("\(arguments[i - 1]) needs a value\n\(usage)") }
            return arguments[i]
        }
        func number(_ text: String) throws -> Int {
            guard let n = Int(text.replacingOccurrences(of: "_", with: "").replacingOccurrences(of: ",", with: "")),
                  n > 0 else { throw BenchError("not a positive number: \(text)") }
            return n
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--quick": options.quick = true
            case "--compaction": options.compaction = true
            case "--concurrency": options.concurrency = true
            case "--export": options.export = true
            case "--codec": options.codec = true
            case "--load-loop":
                guard let seconds = Double(try value()), seconds > 0 else { throw BenchError("--load-loop needs seconds") }
                options.codecLoadLoopSeconds = seconds
            case "--save-loop":
                guard let seconds = Double(try value()), seconds > 0 else { throw BenchError("--save-loop needs seconds") }
                options.codecSaveLoopSeconds = seconds
            case "--block-version":
                guard let version = Int(try value()), version == 1 || version == 2 else { throw BenchError("--block-version is 1 or 2") }
                options.codecLoopVersion = version
            case "--gpx-fields": options.codecLoopGPXFields = true
            case "--query": options.query = true
            case "--catch-up": options.catchUp = true
            case "--engines":
                options.engines = try value().split(separator: ",").map {
                    guard let kind = EngineKind(rawValue: String($0)) else { throw BenchError("unknown engine \($0)\n\(usage)") }
                    return kind
                }
            case "--checkpoints":
                options.checkpoints = try value().split(separator: ",").map { try number(String($0)) }.sorted()
                explicitCheckpoints = true
            case "--coredata-max": options.coreDataMaxRoutes = try number(try value()); explicitCoreData = true
            case "--window": options.windowSaves = try number(try value()); explicitWindow = true
            case "--json": options.jsonFile = URL(fileURLWithPath: try value())
            case "--csv": options.csvFile = URL(fileURLWithPath: try value())
            case "--svg": options.svgFile = URL(fileURLWithPath: try value())
            case "--markdown": options.markdownFile = URL(fileURLWithPath: try value())
            case "--out": options.outputDirectory = URL(fileURLWithPath: try value())
            case "--data": options.dataDirectory = URL(fileURLWithPath: try value())
            case "--gpx": options.gpxDirectory = URL(fileURLWithPath: try value())
            case "--no-gpx": options.gpxDirectory = nil
            case "--keep": options.keepStores = true
            case "--from-json": options.fromJSON = URL(fileURLWithPath: try value())
            case "--child":
                guard let kind = EngineKind(rawValue: try value()) else { throw BenchError("unknown engine") }
                options.child = kind
            case "--index-footprint": options.indexFootprintStore = URL(fileURLWithPath: try value())
            case "--open": options.openStore = URL(fileURLWithPath: try value())
            case "--open-loop":
                guard let seconds = Double(try value()), seconds > 0 else { throw BenchError("--open-loop needs a number of seconds") }
                options.openLoopSeconds = seconds
            case "--list-loop":
                guard let seconds = Double(try value()), seconds > 0 else { throw BenchError("--list-loop needs a number of seconds") }
                options.listLoopSeconds = seconds
            case "--report": options.childReport = URL(fileURLWithPath: try value())
            case "-h", "--help": throw BenchError(usage)
            default: throw BenchError("unknown argument \(arguments[i])\n\(usage)")
            }
            i += 1
        }
        if options.quick {
            if !explicitCheckpoints { options.checkpoints = [100, 1_000, 10_000] }
            if !explicitCoreData { options.coreDataMaxRoutes = 1_000 }
            if !explicitWindow { options.windowSaves = 40 }
            options.windowSeconds = 1.0
        }
        return options
    }

    /// The checkpoints `kind` is grown to. The keyed archive gets extra, smaller ones:
    /// it is expected to pass its 2-second limit long before 100,000.
    func checkpoints(for kind: EngineKind) -> [Int] {
        switch kind {
        case .coreDataLayout: return checkpoints.filter { $0 <= coreDataMaxRoutes }
        case .keyedArchive:
            let probes = [1, 2, 5, 10, 25, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 100_000]
            return Array(Set(probes + checkpoints)).sorted().filter { $0 <= (checkpoints.last ?? 0) }
        default: return checkpoints
        }
    }

    var json: URL { jsonFile ?? outputDirectory.appendingPathComponent("results.json") }
    var csv: URL { csvFile ?? outputDirectory.appendingPathComponent("results.csv") }
    var svg: URL { svgFile ?? outputDirectory.appendingPathComponent("save-latency.svg") }
    var markdown: URL { markdownFile ?? outputDirectory.appendingPathComponent("results.md") }
    var stores: URL { dataDirectory ?? outputDirectory.appendingPathComponent("stores") }
}
