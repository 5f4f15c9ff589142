import Foundation
import RouteLog
import RouteLogSamples

/// `routelog-bench --export`: the GeoParquet export of a demo-like store of 10,000 walks
/// (1,000 with `--quick`). Reports the export's throughput in points a second, the
/// Parquet files' bytes against the store's own, and DuckDB's time for the weekly
/// totals query on the export, each against its aim.
enum ExportScenario {
    static func run(_ options: BenchOptions) throws {
        let routeCount = options.quick ? 1_000 : 10_000
        let directory = options.stores.appendingPathComponent("export.routelog")
        let output = options.stores.appendingPathComponent("export-parquet", isDirectory: true)
        for url in [directory, output] { try? FileManager.default.removeItem(at: url) }
        try FileManager.default.createDirectory(at: options.stores, withIntermediateDirectories: true)
        defer {
            if !options.keepStores { for url in [directory, output] { try? FileManager.default.removeItem(at: url) } }
        }

        let (points, growSeconds) = try Stopwatch.time { try grow(directory, routes: routeCount) }
        let store = try RouteStore(at: directory, options: .init(durability: .buffered, compaction: .manual))
        defer { try? store.close() }
        let storeBytes = try store.statistics().totalBytes
        print("Export: \(Format.count(routeCount)) demo-like walks, \(Format.count(points)) points, "
              + "store \(Format.megabytes(storeBytes)) MB (grown in \(Format.seconds(growSeconds)))")

        // The first run warms the page cache for the store's segments; the second is timed.
        var runs: [(report: ParquetExportReport, seconds: Double)] = []
        var cpu = 0.0
        for _ in 0..<2 {
            try? FileManager.default.removeItem(at: output)
            let cpuBefore = cpuSeconds()
            runs.append(try Stopwatch.time { try ParquetExporter.export(store, to: output) })
            cpu = cpuSeconds() - cpuBefore
        }
        let (report, seconds) = runs[runs.count - 1]
        let rate = Double(report.pointCount) / seconds
        let cpuRate = Double(report.pointCount) / cpu
        let routesBytes = fileSize(output.appendingPathComponent(ParquetExporter.routesFileName))
        let pointsBytes = fileSize(output.appendingPathComponent(ParquetExporter.pointsFileName))
        let ratio = Double(report.bytes) / Double(storeBytes)
        print("export: \(Format.seconds(seconds)) for \(Format.count(report.pointCount)) points "
              + "(first run \(Format.seconds(runs[0].seconds))), \(Format.seconds(cpu)) of CPU "
              + "(\(Format.decimal(cpuRate / 1e6, 1)) million points per CPU second; load average "
              + "\(Format.decimal(loadAverage(), 1)) on \(ProcessInfo.processInfo.activeProcessorCount) cores); "
              + "peak RSS \(Format.megabytes(ProcessStats.peakResidentBytes())) MB; routes.parquet \(Format.megabytes(routesBytes)) MB "
              + "(the WKB geometry is each route's stored preview), "
              + "points.parquet \(Format.megabytes(pointsBytes)) MB")

        // What reading alone costs: every route through store.route(_:), one thread.
        let cpuRead = cpuSeconds()
        let (readPoints, readSeconds) = try Stopwatch.time {
            try store.summaries().reduce(0) { $0 + (try store.route($1.id)).points.count }
        }
        let readCPU = cpuSeconds() - cpuRead
        print("reading the routes alone (store.route, one thread): \(Format.seconds(readSeconds)), "
              + "\(Format.decimal(Double(readPoints) / readCPU / 1e6, 1)) million points per CPU second")

        var aims: [(aim: String, measured: String, met: Bool?)] = []
        aims.append(("export throughput at least 10 million points a second",
                     "\(Format.decimal(rate / 1e6, 1)) million points/s on \(ProcessInfo.processInfo.activeProcessorCount) cores "
                        + "(\(Format.decimal(cpuRate / 1e6, 1)) million per CPU second)", rate >= 10e6))
        aims.append(("Parquet bytes at most 1.5x the store's bytes",
                     "\(Format.megabytes(report.bytes)) MB vs \(Format.megabytes(storeBytes)) MB = \(Format.decimal(ratio, 2))x "
                        + "(points.parquet alone \(Format.decimal(Double(pointsBytes) / Double(storeBytes), 2))x)",
                     ratio <= 1.5))
        switch DuckDBTiming.weeklyTotals(on: output.appendingPathComponent(ParquetExporter.routesFileName)) {
        case let .measured(median, weeks):
            aims.append(("DuckDB weekly totals on the export (reported)",
                         "\(Format.seconds(median)) median of 5 (\(weeks) weeks)", nil))
        case let .unavailable(reason):
            aims.append(("DuckDB weekly totals on the export (reported)", "not measured: \(reason)", nil))
        }
        print("")
        print("| aim | measured | |")
        print("|---|---|---|")
        for aim in aims {
            print("| \(aim.aim) | \(aim.measured) | \(aim.met.map { $0 ? "met" : "not met" } ?? "-") |")
        }
    }

    /// Saves `routes` walks of 20 to 90 minutes, 8 hours apart: a pool of 64 distinct
    /// walks, each reused with its times moved, as the compaction scenario grows its store.
    /// - Returns: The points saved.
    static func grow(_ directory: URL, routes: Int) throws -> Int {
        var schedule = WalkSchedule(seed: 0x5EED_E0)
        schedule.startSpacing = 0
        var lengths = SeededRandom(seed: 0x5EED_E1)
        let pool = (0..<64).map { _ in schedule.walk(pointCount: Int(lengths.uniform(20 * 60, 90 * 60))) }
        let store = try RouteStore(at: directory, options: .init(durability: .buffered, compaction: .manual))
        var points = 0, next = 0
        while next < routes {
            let batch = (next..<min(routes, next + 64)).map { i -> Route in
                var route = pool[i % pool.count]
                let shift = Double(i) * 8 * 3_600
                route.points = route.points.map { var p = $0; p.timestamp += shift; return p }
                return route
            }
            points += batch.reduce(0) { $0 + $1.points.count }
            _ = try store.save(batch)
            next += batch.count
        }
        try store.close()
        return points
    }

    /// CPU seconds this process has used (all threads).
    static func cpuSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func loadAverage() -> Double {
        var loads = [Double](repeating: 0, count: 3)
        return getloadavg(&loads, 3) > 0 ? loads[0] : 0
    }

    static func fileSize(_ url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
