import Foundation
import Testing
import RouteLog
import RouteLogSamples

/// Runs the built `routelog` (and the test-only holder) as subprocesses.
enum CLI {
    /// The directory holding the built executables: beside the test bundle.
    static let productsDirectory: URL = {
        var candidates: [URL] = []
        for start in [URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]), Bundle.main.bundleURL] {
            var directory = start.resolvingSymlinksInPath().deletingLastPathComponent()
            for _ in 0..<4 {
                candidates.append(directory)
                directory = directory.deletingLastPathComponent()
            }
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("routelog").path) }
            ?? packageRoot.appendingPathComponent(".build/debug")
    }()

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var executable: URL { productsDirectory.appendingPathComponent("routelog") }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
    }

    /// What the test-only `routelog-test-holder` printed, run with `arguments`, and how it ended.
    struct HolderRun {
        var output: String
        var exitedCleanly: Bool
        var ending: String
    }

    /// Runs `routelog-test-holder arguments` and waits for it. With `firstLineOnly`, reads
    /// its output up to the first line instead of to the end (a child it forked and left
    /// running may hold the pipe open).
    static func runHolder(_ arguments: [String], firstLineOnly: Bool = false) throws -> HolderRun {
        let process = Process()
        process.executableURL = productsDirectory.appendingPathComponent("routelog-test-holder")
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var bytes = Data()
        if firstLineOnly {
            while !bytes.contains(UInt8(ascii: "\n")) {
                let more = out.fileHandleForReading.availableData
                if more.isEmpty { break }
                bytes += more
            }
        } else {
            bytes = out.fileHandleForReading.readDataToEndOfFile()
        }
        process.waitUntilExit()
        let bySignal = process.terminationReason == .uncaughtSignal
        return HolderRun(output: String(decoding: bytes, as: UTF8.self),
                         exitedCleanly: !bySignal && process.terminationStatus == 0,
                         ending: "\(bySignal ? "signal" : "exit") \(process.terminationStatus)")
    }

    /// Runs `routelog arguments` with TZ=UTC (so local dates are stable) and waits.
    /// `input` is written to a file that becomes the command's standard input.
    /// With `asOtherUser`, a process run as root runs routelog as user nobody (through
    /// setpriv), so that file permissions bind it as they bind an app's user.
    static func run(_ arguments: [String], timeZone: String = "UTC", in directory: URL? = nil, input: Data? = nil,
                    asOtherUser: Bool = false) throws -> Result {
        let process = Process()
        if asOtherUser && getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = timeZone
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        // Files, not pipes: a large output can never fill a pipe and stall the child.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("routelog-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out"), err = scratch.appendingPathComponent("err")
        try Data().write(to: out)
        try Data().write(to: err)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        if let input {
            let file = scratch.appendingPathComponent("in")
            try input.write(to: file)
            process.standardInput = try FileHandle(forReadingFrom: file)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        // A command that hangs fails its test instead of stalling the whole run.
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        if exited.wait(timeout: .now() + 120) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            throw CocoaError(.executableLoad, userInfo: [NSDebugDescriptionErrorKey: "routelog \(arguments) did not finish in 120 s"])
        }
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
                      stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }
}

/// A process that holds a store for writing, as a running app would, until stopped.
final class WriterHolder {
    let process = Process()
    var pid: Int32 { process.processIdentifier }

    /// Starts the holder and waits until it says it holds the lock.
    init(store: URL) throws {
        process.executableURL = CLI.productsDirectory.appendingPathComponent("routelog-test-holder")
        process.arguments = [store.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        var seen = ""
        while !seen.contains("ready\n") {
            let data = pipe.fileHandleForReading.availableData
            if data.isEmpty { throw CocoaError(.fileReadUnknown, userInfo: [NSDebugDescriptionErrorKey: "the holder exited: \(seen)"]) }
            seen += String(decoding: data, as: UTF8.self)
        }
    }

    /// Kills the holder (SIGKILL: nothing it does on the way out matters, and the
    /// kernel drops its lock) and waits for it.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

/// A fresh directory under the system's temporary folder, removed when the test ends.
final class ScratchDirectory: Sendable {
    let url: URL

    init(_ name: String = #function) {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("routelog-cli-tests-\(safe)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// The fixture store of the golden tests, made the same way every time: fixed seeds,
/// fixed UTC start dates, over two ISO weeks, with one route deleted.
enum FixtureStore {
    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    /// Where each route's RoutePut record starts in the first segment, by id.
    struct Made {
        var url: URL
        var recordOffsets: [RouteID: Int64]
    }

    @discardableResult
    static func make(at url: URL) throws -> Made {
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        var offsets: [RouteID: Int64] = [:]
        @discardableResult
        func save(seed: UInt64, points: Int, start: String, name: String? = nil) throws -> RouteID {
            var generator = WalkGenerator(seed: seed)
            var route = generator.walk(points: points, start: date(start))
            route.metadata.name = name
            let offset = try store.statistics().segments.last!.bytes
            let id = try store.save(route)
            offsets[id] = offset
            return id
        }
        try save(seed: 1, points: 1500, start: "2026-01-05T07:30:00Z", name: "Morning walk")   // Monday, week 2
        try save(seed: 2, points: 2400, start: "2026-01-07T18:00:00Z")
        try save(seed: 3, points: 3000, start: "2026-01-11T20:15:00Z", name: "Sunday \"long\" one")   // Sunday, still week 2
        let deleted = try save(seed: 4, points: 300, start: "2026-01-12T12:00:00Z")
        try save(seed: 5, points: 12, start: "2026-01-13T06:45:00Z", name: "Tiny")   // week 3
        try store.delete(deleted)
        try store.close()
        return Made(url: url, recordOffsets: offsets)
    }
}

/// Compares output with a file under Golden/; `ROUTELOG_UPDATE_GOLDEN=1 swift test`
/// rewrites the files (review the diff before committing it).
enum Golden {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static func check(_ name: String, _ actual: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = directory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["ROUTELOG_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: url)
            return
        }
        guard let expected = FileManager.default.contents(atPath: url.path).map({ String(decoding: $0, as: UTF8.self) }) else {
            Issue.record("no golden file \(name); run ROUTELOG_UPDATE_GOLDEN=1 swift test to write it", sourceLocation: sourceLocation)
            return
        }
        if expected != actual {
            let diffLine = zip(expected.split(separator: "\n", omittingEmptySubsequences: false),
                               actual.split(separator: "\n", omittingEmptySubsequences: false)).enumerated()
                .first { $0.element.0 != $0.element.1 }
            let where_ = diffLine.map { "line \($0.offset + 1): expected \($0.element.0) got \($0.element.1)" } ?? "lengths differ"
            Issue.record("\(name) differs from its golden file at \(where_)", sourceLocation: sourceLocation)
        }
    }
}

/// Parses JSON output into Foundation objects.
func parseJSON(_ text: String) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
}

extension RouteStore {
    /// A read-only handle, as the tests open many.
    convenience init(readOnlyAt url: URL) throws {
        try self.init(at: url, options: .init(mode: .readOnly))
    }
}
