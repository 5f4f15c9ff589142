import Foundation

/// The parent's handle on one engine's child process: sends a command a line, reads
/// the answer a line.
final class EngineDriver {
    let kind: EngineKind
    let checkpoints: [Int]
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer: [UInt8] = []
    let reportFile: URL
    private(set) var trackCount = 0
    /// Set when the engine failed or hit its limit; it gets no more saves.
    var stopped: String?
    /// Set when a save passed the keyed archive's limit during the current checkpoint:
    /// the save's seconds and the routes stored before it.
    var overLimit: (seconds: Double, routes: Int)?

    init(kind: EngineKind, options: BenchOptions, executable: URL, arguments: [String]) throws {
        self.kind = kind
        checkpoints = options.checkpoints(for: kind)
        reportFile = options.outputDirectory.appendingPathComponent(".report-\(kind.rawValue).json")
        try? FileManager.default.removeItem(at: reportFile)
        process.executableURL = executable
        process.arguments = arguments + ["--child", kind.rawValue, "--report", reportFile.path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let ready = try readLine()
        guard ready.hasPrefix("ready") else { throw BenchError("\(kind.rawValue) did not start: \(ready)") }
        trackCount = Int(ready.split(separator: " ").last ?? "0") ?? 0
    }

    private func readLine() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { throw BenchError("\(kind.rawValue) exited") }
            buffer += data
        }
    }

    /// Sends one command; returns the answer after "ok", nil for "skip".
    @discardableResult
    func send(_ command: String) throws -> String? {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        let answer = try readLine()
        if answer == "skip" { return nil }
        guard answer.hasPrefix("ok") else { throw BenchError("\(kind.rawValue) \(command): \(answer)") }
        return String(answer.dropFirst(2)).trimmingCharacters(in: .whitespaces)
    }

    /// Runs `command` and records the failure instead of throwing; the reply, which most
    /// steps do not need.
    @discardableResult
    func attempt(_ command: String) -> String? {
        guard stopped == nil else { return nil }
        do {
            return try send(command)
        } catch {
            stopped = "failed: \(error)"
            return nil
        }
    }

    func finish() -> EngineReport {
        var report: EngineReport?
        if (try? send("finish \(stopped ?? "")")) != nil,
           let data = FileManager.default.contents(atPath: reportFile.path) {
            report = try? JSONDecoder().decode(EngineReport.self, from: data)
        }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: reportFile)
        var result = report ?? EngineReport(engine: kind.rawValue, title: kind.title, checkpoints: [],
                                            harnessResidentBytes: 0, stopped: nil, notes: [], seconds: 0)
        if result.stopped?.isEmpty ?? true { result.stopped = stopped }
        return result
    }
}
