import Foundation
import Testing
import RouteLog

/// `routelog ls STORE --follow`: the listing, then a line per change that another
/// process commits, until SIGINT or SIGTERM, which end it with exit code 0.
@Suite(.timeLimit(.minutes(2))) struct RoutelogFollowCommandTests {
    static let gpx = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/gpx/gpxgo__visnjan.gpx").path

    @Test func followPrintsEachChangeAnotherProcessMakesAndEndsCleanlyOnSIGINT() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let follower = try Follower(["ls", store.path, "--follow"])
        try follower.waitForOutput { $0.contains("4 routes, ") }
        let imported = try CLI.run(["import", store.path, Self.gpx])
        #expect(imported.status == 0, "\(imported.stderr)")
        try follower.waitForOutput { $0.contains("\nsaved 6: ") }
        let deleted = try CLI.run(["delete", store.path, "6"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        try follower.waitForOutput { $0.hasSuffix("deleted 6\n") }
        let ended = try follower.stop(with: SIGINT)
        #expect(ended.status == 0 && ended.reason == .exit)
        #expect(ended.stderr.isEmpty)
        let lines = ended.stdout.split(separator: "\n").map(String.init)
        #expect(lines.suffix(2).first?.hasPrefix("saved 6: Fri 2014-08-22 16:48, 30:50, 4.45 km, 413 points") == true)
        #expect(lines.last == "deleted 6")
    }

    @Test func followWithJSONPrintsOneObjectPerChangeAndEndsCleanlyOnSIGTERM() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let follower = try Follower(["ls", store.path, "--follow", "--json"])
        try follower.waitForOutput { $0.contains("\"totals\"") }
        #expect(try CLI.run(["set", store.path, "1", "--name", "Renamed"]).status == 0)
        try follower.waitForOutput { $0.contains("\"change\": \"edited\"") }
        let ended = try follower.stop(with: SIGTERM)
        #expect(ended.status == 0 && ended.reason == .exit)
        let lines = ended.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "the listing and one change, each one line: \(lines)")
        #expect((try parseJSON(lines[0])["routes"] as? [Any])?.count == 4)
        let change = try parseJSON(lines[1])
        #expect(change["change"] as? String == "edited")
        #expect(change["id"] as? Int == 1)
        #expect((change["route"] as? [String: Any])?["name"] as? String == "Renamed")
    }

    /// The store's directory deleted, moved away, or moved away and replaced by a new
    /// store at the same path: the follower says so, naming the path, and exits 1.
    @Test(arguments: ["deleted", "moved", "replaced"]) func followEndsWithExitCode1WhenTheStoreGoes(_ removal: String) throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let follower = try Follower(["ls", store.path, "--follow"])
        try follower.waitForOutput { $0.contains("4 routes, ") }
        switch removal {
        case "deleted": try FileManager.default.removeItem(at: store)
        default:
            try FileManager.default.moveItem(at: store, to: dir.path("elsewhere.routelog"))
            if removal == "replaced" { try FixtureStore.make(at: store) }
        }
        let ended = try follower.waitForExit()
        #expect(ended.status == 1 && ended.reason == .exit)
        #expect(ended.stderr == "routelog: the store's directory was deleted or moved away while it was followed (\(store.path)): "
                + "run the command again where the store is now\n", "\(ended.stderr)")
    }

    /// Counts in a change's line agree with their number: "1 point", "2 points".
    @Test func followSaysOnePointForARouteOfOnePoint() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let gpx = dir.path("one.gpx")
        try Data(("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>"
                  + "<trkpt lat=\"45.5\" lon=\"9.2\"><time>2026-01-20T08:00:00Z</time></trkpt></trkseg></trk></gpx>\n").utf8).write(to: gpx)
        let follower = try Follower(["ls", store.path, "--follow"])
        try follower.waitForOutput { $0.contains("4 routes, ") }
        let imported = try CLI.run(["import", store.path, gpx.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        try follower.waitForOutput { $0.contains("\nsaved 6: ") && $0.hasSuffix("\n") }
        let ended = try follower.stop(with: SIGINT)
        let last = ended.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasSuffix(", 1 point"), "\(last)")
    }

    @Test func followIsInTheHelpAndTheCompletions() throws {
        #expect(try CLI.run(["ls", "--help"]).stdout.contains("--follow"))
        for shell in ["bash", "zsh", "fish"] {
            #expect(try CLI.run(["completions", shell]).stdout.contains("follow"), "\(shell)")
        }
    }
}

/// A `routelog` left running, its output read as it comes.
///
/// Its output goes to files, not pipes, as `CLI.run`'s does: a pipe's end is seen only
/// when every process holding its write end has closed it, and a process that another
/// test starts at the same moment (a holder, another command) may inherit that end and
/// keep it open for as long as it runs. A file is whole once the follower has exited.
final class Follower {
    let process = Process()
    private let scratch: URL
    private let outputFile: URL
    private let errorFile: URL

    init(_ arguments: [String]) throws {
        process.executableURL = CLI.executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = "UTC"
        process.environment = environment
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("routelog-follower-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        outputFile = scratch.appendingPathComponent("out")
        errorFile = scratch.appendingPathComponent("err")
        try Data().write(to: outputFile)
        try Data().write(to: errorFile)
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// What the process wrote to standard output so far.
    var output: String { Self.text(of: outputFile) }
    /// What the process wrote to standard error so far.
    var errors: String { Self.text(of: errorFile) }

    private static func text(of file: URL) -> String {
        String(decoding: (try? Data(contentsOf: file)) ?? Data(), as: UTF8.self)
    }

    /// Waits until the output so far satisfies `condition`; gives up (throwing) when the
    /// process exits first or after a minute, so that a missing line fails the test.
    func waitForOutput(_ condition: (String) -> Bool) throws {
        let deadline = Date().addingTimeInterval(60)
        while !condition(output) {
            guard process.isRunning, Date() < deadline else {
                // The last lines may have come just before the process ended.
                if condition(output) { return }
                throw CocoaError(.fileReadUnknown, userInfo: [NSDebugDescriptionErrorKey:
                    "no such output; so far: \(output) stderr: \(errors)"])
            }
            usleep(5_000)
        }
    }

    /// Sends `signal` and waits for the process to end (killing it after a minute).
    func stop(with signal: Int32) throws -> (status: Int32, reason: Process.TerminationReason, stdout: String, stderr: String) {
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw CocoaError(.fileReadUnknown, userInfo: [NSDebugDescriptionErrorKey: "routelog did not end on signal \(signal)"])
        }
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason, output, errors)
    }

    /// Waits for the process to end by itself (killing it after a minute, which fails).
    func waitForExit() throws -> (status: Int32, reason: Process.TerminationReason, stdout: String, stderr: String) {
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw CocoaError(.fileReadUnknown, userInfo: [NSDebugDescriptionErrorKey:
                "routelog kept running; stdout: \(output) stderr: \(errors)"])
        }
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason, output, errors)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: scratch)
    }
}
