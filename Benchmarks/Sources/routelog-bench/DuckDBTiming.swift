import Foundation

/// DuckDB's time for the weekly totals query on an exported routes file, run by the
/// Python of `.build/pyenv` (make pyenv) when it has the duckdb package.
enum DuckDBTiming {
    enum Outcome {
        case measured(median: Double, weeks: Int)
        case unavailable(String)
    }

    static let python = URL(fileURLWithPath: ".build/pyenv/bin/python3")

    /// Weeks start on Monday in UTC, as `routelog weeks` groups them with a UTC calendar.
    static let script = """
        import sys, time, duckdb
        con = duckdb.connect()
        con.execute("SET TimeZone = 'UTC'")
        query = ("SELECT date_trunc('week', start_time) AS week, count(*) AS routes, sum(distance) AS distance, "
                 "sum(duration) AS duration, sum(calories) AS calories "
                 "FROM read_parquet(?) GROUP BY week ORDER BY week DESC")
        con.execute(query, [sys.argv[1]]).fetchall()  # reads the footer and warms the cache
        samples = []
        for _ in range(5):
            start = time.perf_counter()
            rows = con.execute(query, [sys.argv[1]]).fetchall()
            samples.append(time.perf_counter() - start)
        samples.sort()
        print(samples[2], len(rows))
        """

    static func weeklyTotals(on file: URL) -> Outcome {
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            return .unavailable("no \(python.path) (run make pyenv from the package root)")
        }
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", script, file.path]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch { return .unavailable("cannot run \(python.path): \(error)") }
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let fields = output.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard process.terminationStatus == 0, fields.count == 2, let median = Double(fields[0]), let weeks = Int(fields[1]) else {
            let last = errors.split(separator: "\n").last.map(String.init) ?? "status \(process.terminationStatus)"
            return .unavailable("DuckDB did not run: \(last)")
        }
        return .measured(median: median, weeks: weeks)
    }
}
