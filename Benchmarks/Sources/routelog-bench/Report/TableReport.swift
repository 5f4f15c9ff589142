import Foundation

/// The results as a Markdown table: printed on stdout and pasted into the README.
enum TableReport {
    static let header = [
        "engine", "routes", "save p50", "p90", "p99", "buffered p50", "p99", "GPX p50", "GPX buffered",
        "B/point", "open", "list", "weekly", "load one", "peak RSS MB",
    ]

    static func rows(_ results: BenchmarkResults) -> [[String]] {
        var rows: [[String]] = []
        let checkpoints = Set(results.engines.flatMap { $0.checkpoints.map(\.checkpoint) }).sorted()
        for checkpoint in checkpoints {
            for engine in results.engines {
                guard let c = engine.checkpoints.first(where: { $0.checkpoint == checkpoint }) else { continue }
                // The keyed archive's extra probe sizes stay in the JSON and CSV only.
                guard results.checkpoints.contains(checkpoint)
                        || engine.checkpoints.last?.checkpoint == checkpoint else { continue }
                let kind = EngineKind(rawValue: engine.engine)
                rows.append([
                    kind?.shortTitle ?? engine.engine, Format.count(c.routesStored),
                    Format.seconds(c.durable?.p50), Format.seconds(c.durable?.p90), Format.seconds(c.durable?.p99),
                    Format.seconds(c.buffered?.p50), Format.seconds(c.buffered?.p99), Format.seconds(c.gpxDurable?.p50),
                    Format.seconds(c.gpxBuffered?.p50),
                    Format.decimal(c.bytesPerPoint, 1), Format.seconds(c.openSeconds), Format.seconds(c.listSeconds),
                    Format.seconds(c.weeklySeconds), Format.seconds(c.loadSeconds),
                    Format.megabytes(c.peakResidentBytes),
                ])
            }
        }
        return rows
    }

    static func markdown(_ results: BenchmarkResults) -> String {
        let all = [header] + rows(results)
        var widths = [Int](repeating: 0, count: header.count)
        for row in all { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func line(_ row: [String]) -> String {
            "| " + row.enumerated().map { i, cell in
                i < 1 ? cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[i] - cell.count) + cell
            }.joined(separator: " | ") + " |"
        }
        var out = line(header) + "\n"
        out += "|" + widths.enumerated().map { i, w in
            i < 1 ? " " + String(repeating: "-", count: w) + " " : " " + String(repeating: "-", count: w - 1) + ": "
        }.joined(separator: "|") + "|\n"
        for row in all.dropFirst() { out += line(row) + "\n" }
        return out
    }

    static func aims(_ results: BenchmarkResults) -> String {
        results.aims.map { aim in
            let verdict = aim.met.map { $0 ? "met" : "NOT met" } ?? "not measured"
            return "- [\(verdict)] \(aim.aim): \(aim.measured)"
        }.joined(separator: "\n")
    }

    static func machine(_ m: MachineInfo) -> String {
        """
        \(m.date) on \(m.host): \(m.processors) cores (\(m.cpu)), \
        \(Format.decimal(Double(m.memoryBytes) / 1_073_741_824, 0)) GiB RAM, \
        \(m.fileSystem) at \(m.dataDirectory), SQLite \(m.sqliteVersion)
        uname -a: \(m.uname)
        load average at start: \(m.loadAtStart)\(m.loadAtEnd.map { ", at end: \($0)" } ?? "")\(pace(m))
        """
    }

    /// The processor's pace (a multiply-add chain's step), when it was measured.
    private static func pace(_ m: MachineInfo) -> String {
        guard let start = m.paceAtStart else { return "" }
        return "\nprocessor pace at start: \(start)\(m.paceAtEnd.map { ", at end: \($0)" } ?? "")"
    }

    static func document(_ results: BenchmarkResults) -> String {
        var out = "## RouteLog benchmark\n\n"
        out += machine(results.machine) + "\n\n"
        out += "Command: `\(results.command)`, \(Format.decimal(results.seconds, 0)) s.\n\n"
        out += markdown(results) + "\n"
        if let tracks = results.gpxTrackBytes, !tracks.isEmpty {
            out += "Real tracks in RouteLog (record bytes per point, header and index excluded): "
                + tracks.map { "\($0.file) \(Format.decimal($0.bytesPerPoint, 1))" }.joined(separator: ", ") + "; all "
                + Format.decimal(Double(tracks.reduce(0) { $0 + $1.recordBytes })
                                 / Double(max(1, tracks.reduce(0) { $0 + $1.points })), 1) + ".\n\n"
        }
        for engine in results.engines {
            if let stopped = engine.stopped { out += "- \(engine.title): \(stopped)\n" }
            for note in engine.notes { out += "- \(engine.title): \(note)\n" }
        }
        out += "\n### Aims\n\n" + aims(results) + "\n\n### Method\n\n"
        out += results.method.map { "- \($0)" }.joined(separator: "\n") + "\n"
        return out
    }
}

/// One CSV row per engine and checkpoint, every figure in plain units (seconds, bytes).
enum CSVReport {
    static func csv(_ results: BenchmarkResults) -> String {
        var out = [
            "engine,checkpoint,routes_stored,points_stored,fill_s",
            "durable_n,durable_p50_s,durable_p90_s,durable_p99_s,durable_max_s",
            "buffered_n,buffered_p50_s,buffered_p90_s,buffered_p99_s,buffered_max_s",
            "gpx_n,gpx_p50_s,gpx_p90_s,gpx_p99_s,gpx_max_s",
            "gpx_buffered_n,gpx_buffered_p50_s,gpx_buffered_p90_s,gpx_buffered_p99_s,gpx_buffered_max_s",
            "bytes_on_disk,bytes_per_point,open_s,list_s,weekly_s,load_s,peak_rss_bytes",
        ].joined(separator: ",") + "\n"
        func stats(_ s: LatencyStats?) -> [String] {
            guard let s else { return ["0", "", "", "", ""] }
            return [String(s.count), "\(s.p50)", "\(s.p90)", "\(s.p99)", "\(s.max)"]
        }
        func optional(_ v: Double?) -> String { v.map { "\($0)" } ?? "" }
        for engine in results.engines {
            for c in engine.checkpoints {
                let fields = [engine.engine, String(c.checkpoint), String(c.routesStored), String(c.pointsStored),
                              "\(c.fillSeconds)"]
                    + stats(c.durable) + stats(c.buffered) + stats(c.gpxDurable) + stats(c.gpxBuffered)
                    + [String(c.bytesOnDisk), "\(c.bytesPerPoint)", optional(c.openSeconds), optional(c.listSeconds),
                       optional(c.weeklySeconds), optional(c.loadSeconds), String(c.peakResidentBytes)]
                out += fields.joined(separator: ",") + "\n"
            }
        }
        return out
    }
}
