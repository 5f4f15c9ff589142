import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog
import RouteLogSamples

/// Runs `routelog-crash-worker` (Tests/CrashWorker) against one store, kills it with
/// SIGKILL at a random moment, reopens the store and checks it against every change
/// the worker acknowledged; then again, on the same store, cycle after cycle.
///
/// `ROUTELOG_CRASH_CYCLES` sets the number of cycles (default 30; `make crash-test
/// CYCLES=N`), `ROUTELOG_CRASH_SEED` replays a run (the seed is printed).
@Suite(.tags(.slow)) struct KillTests {
    /// Must make the same route as the worker's `route(seed:)`.
    static func route(seed: UInt64) -> Route {
        var generator = WalkGenerator(seed: seed)
        return generator.walk(points: 20 + Int(seed % 180),
                              start: Date(timeIntervalSince1970: 1_767_225_600 + Double(seed % 5000) * 3600))
    }

    struct Expected {
        var seed: UInt64
        var edit: UInt64?
        /// A recorded route: the first `recorded` points of the walk, named "rec <seed>".
        var recorded: Int?

        var route: Route {
            var r = RouteCodec.quantize(KillTests.route(seed: seed))
            if let recorded {
                r = Route(points: Array(r.points.prefix(recorded)), metadata: RouteMetadata(name: "rec \(seed)"))
            }
            if let edit {
                r.metadata.name = "edit \(edit)"
                r.metadata.calories = Double(edit % 997)
            }
            return r
        }
    }

    /// What the worker said: the changes it acknowledged and the one in flight.
    struct Transcript {
        var acknowledged: [[String]] = []
        var inFlight: [String]?
        var ready = false
        var error: String?

        init(_ output: String) {
            for line in output.split(separator: "\n", omittingEmptySubsequences: true) {
                let words = line.split(separator: " ").map(String.init)
                switch words.first {
                case "ready": ready = true
                case "begin": inFlight = Array(words.dropFirst())
                case "ack": acknowledged.append(Array(words.dropFirst())); inFlight = nil
                case "error": error = String(line)
                default: break
                }
            }
            // A line cut by the kill has no newline: it was not acknowledged.
            if !output.hasSuffix("\n"), let last = output.split(separator: "\n").last, last.hasPrefix("ack") {
                let words = last.split(separator: " ").map(String.init)
                acknowledged.removeLast()
                inFlight = Array(words.dropFirst())
            }
        }
    }

    static var workerURL: URL? {
        let executable = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        var dir = executable.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("routelog-crash-worker")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    @Test func killedWritersLoseNothingAcknowledged() throws {
        let environment = ProcessInfo.processInfo.environment
        let cycles = Int(environment["ROUTELOG_CRASH_CYCLES"] ?? "") ?? 30
        let seed = UInt64(environment["ROUTELOG_CRASH_SEED"] ?? "") ?? UInt64.random(in: 1...999_999)
        print("kill test: seed \(seed), \(cycles) cycles (replay with ROUTELOG_CRASH_SEED=\(seed) ROUTELOG_CRASH_CYCLES=\(cycles))")
        guard let worker = Self.workerURL else {
            Issue.record("routelog-crash-worker was not built next to the test binary")
            return
        }
        let dir = TemporaryDirectory()
        let url = dir.store()
        var g = SeededGenerator(state: seed)
        var expected: [RouteID: Expected] = [:]
        var deleted: Set<RouteID> = []
        var recordings: [RouteID: Recording] = [:]
        var acknowledgedTotal = 0
        var acknowledgedByKind: [String: Int] = [:]
        var routeSeed: UInt64 = 1
        var started = Date()
        var cyclesRun = 0
        for cycle in 0..<cycles {
            // Mostly while it works; sometimes while it is still opening (recovering).
            let delay = g.next() % 4 == 0 ? Double(g.next() % 60) / 1000 : Double(80 + g.next() % 420) / 1000
            let process = Process()
            process.executableURL = worker
            process.arguments = [url.path, String(g.next() % 1_000_000_000), String(routeSeed)]
            let pipe = Pipe()
            process.standardOutput = pipe
            let collected = OutputCollector()
            let reading = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                collected.data = pipe.fileHandleForReading.readDataToEndOfFile()
                reading.signal()
            }
            try process.run()
            if cycle == 0 { started = Date() }
            usleep(UInt32(delay * 1_000_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            reading.wait()
            let output = String(decoding: collected.data, as: UTF8.self)
            let transcript = Transcript(output)
            if let error = transcript.error {
                Issue.record("cycle \(cycle) (seed \(seed)): the worker failed: \(error)")
                break
            }
            #expect(process.terminationReason == .uncaughtSignal, "cycle \(cycle): the worker exited by itself")
            // Route seeds the worker took this cycle are never used again.
            routeSeed += 10_000
            for words in transcript.acknowledged {
                acknowledgedTotal += 1
                acknowledgedByKind[words[0], default: 0] += 1
                switch words[0] {
                case "save": expected[RouteID(UInt64(words[2])!)] = Expected(seed: UInt64(words[1])!)
                case "batch":
                    expected[RouteID(UInt64(words[3])!)] = Expected(seed: UInt64(words[1])!)
                    expected[RouteID(UInt64(words[4])!)] = Expected(seed: UInt64(words[2])!)
                case "delete":
                    let id = RouteID(UInt64(words[1])!)
                    expected[id] = nil
                    deleted.insert(id)
                case "edit": expected[RouteID(UInt64(words[1])!)]?.edit = UInt64(words[2])!
                case "start": recordings[RouteID(UInt64(words[2])!)] = Recording(seed: UInt64(words[1])!, flushed: 0)
                case "chunk": recordings[RouteID(UInt64(words[1])!)]?.flushed = Int(words[2])!
                case "finish":
                    let id = RouteID(UInt64(words[1])!)
                    if let recording = recordings.removeValue(forKey: id) {
                        expected[id] = Expected(seed: recording.seed, recorded: recording.flushed)
                    }
                case "discard":
                    recordings[RouteID(UInt64(words[1])!)] = nil
                    deleted.insert(RouteID(UInt64(words[1])!))
                default: break
                }
            }
            let problems = try Self.check(url, expected: &expected, deleted: &deleted, recordings: &recordings,
                                          inFlight: transcript.inFlight)
            #expect(problems.isEmpty, "cycle \(cycle) (seed \(seed), killed after \(delay) s, in flight: \(transcript.inFlight ?? [])): \(problems)")
            if !problems.isEmpty {
                let kept = FileManager.default.temporaryDirectory.appendingPathComponent("routelog-kill-failure-\(seed)-\(cycle)")
                try? FileManager.default.removeItem(at: kept)
                try? FileManager.default.copyItem(at: url, to: kept)
                print("kill test: cycle \(cycle) failed; the store is kept at \(kept.path)")
                break
            }
            cyclesRun += 1
        }
        print("kill test: \(cyclesRun) kill cycles, \(acknowledgedTotal) acknowledged changes checked (\(acknowledgedByKind.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))), \(expected.count) routes and \(recordings.count) unfinished recordings live at the end, \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }

    /// Opens the store and compares it with `expected`; settles the change in flight
    /// from what the store holds (it may or may not have happened, but whole).
    struct Recording {
        var seed: UInt64
        /// Points acknowledged as flushed (the store may hold one chunk more, in flight).
        var flushed: Int
    }

    static func check(_ url: URL, expected: inout [RouteID: Expected], deleted: inout Set<RouteID>,
                      recordings: inout [RouteID: Recording], inFlight: [String]?) throws -> [String] {
        var problems: [String] = []
        let store: RouteStore
        do {
            store = try RouteStore(at: url, options: .init(compaction: .manual))
        } catch {
            return ["the store does not open: \(error)"]
        }
        defer { try? store.close() }
        let ids = Set(try store.summaries().map(\.id))
        let unfinished: [RouteID: UnfinishedRecording]
        do {
            unfinished = Dictionary(uniqueKeysWithValues: try store.unfinishedRecordings().map { ($0.id, $0) })
        } catch {
            return ["unfinished recordings do not load: \(error)"]
        }
        // The change in flight: either outcome, whole.
        switch inFlight?.first {
        case "start"?:
            if let id = unfinished.keys.first(where: { recordings[$0] == nil && !deleted.contains($0) }) {
                recordings[id] = Recording(seed: UInt64(inFlight![1])!, flushed: 0)
            }
        case "finish"?:
            let id = RouteID(UInt64(inFlight![1])!)
            if ids.contains(id), let recording = recordings[id], expected[id] == nil {
                recordings[id] = nil
                expected[id] = Expected(seed: recording.seed, recorded: unfinishedCount(store, id) ?? recording.flushed)
            }
        case "discard"?:
            let id = RouteID(UInt64(inFlight![1])!)
            if unfinished[id] == nil && recordings[id] != nil {
                recordings[id] = nil
                deleted.insert(id)
            }
        case "save"?, "batch"?:
            let seeds = inFlight!.dropFirst().compactMap { UInt64($0) }
            let new = ids.subtracting(expected.keys).sorted()
            if !new.isEmpty {
                if new.count == seeds.count {
                    for (id, s) in zip(new, seeds) { expected[id] = Expected(seed: s) }
                } else {
                    problems.append("in-flight save of \(seeds) left \(new.count) new routes")
                }
            }
        case "delete"?:
            let id = RouteID(UInt64(inFlight![1])!)
            if !ids.contains(id) {
                expected[id] = nil
                deleted.insert(id)
            }
        case "edit"?:
            let id = RouteID(UInt64(inFlight![1])!)
            let edit = UInt64(inFlight![2])!
            if (try? store.summary(id))?.name == "edit \(edit)" { expected[id]?.edit = edit }
        default: break
        }
        // Recordings: each acknowledged chunk is there (one more may be, in flight), and
        // the points are the walk's, in order.
        for (id, recording) in recordings {
            guard let got = unfinished[id] else { problems.append("unfinished recording \(id) is missing"); continue }
            let walk = RouteCodec.quantize(route(seed: recording.seed)).points
            let chunkInFlight = inFlight?.first == "chunk" && inFlight?[1] == "\(id)"
            if got.points.count < recording.flushed || (got.points.count > recording.flushed && !chunkInFlight) {
                problems.append("recording \(id) holds \(got.points.count) points, \(recording.flushed) acknowledged")
            } else if got.points != Array(walk.prefix(got.points.count)) {
                problems.append("recording \(id)'s points differ")
            }
            recordings[id]!.flushed = got.points.count
        }
        for id in unfinished.keys where recordings[id] == nil { problems.append("recording \(id) should not be there") }
        if ids != Set(expected.keys) {
            problems.append("missing \(Set(expected.keys).subtracting(ids).sorted()), unexpected \(ids.subtracting(expected.keys).sorted())")
        }
        for id in deleted where ids.contains(id) { problems.append("deleted route \(id) is back") }
        for (id, want) in expected where ids.contains(id) {
            do {
                let got = try store.route(id).withoutUUID
                if got != want.route { problems.append("route \(id) (seed \(want.seed), edit \(want.edit.map(String.init) ?? "none")) differs") }
            } catch {
                problems.append("route \(id) does not load: \(error)")
            }
        }
        let report = try store.verify()
        if !report.isClean { problems.append("verify: \(report.problems.map(\.message))") }
        return problems
    }
}

/// The points a finished recording's route has, read back (nil when not there).
private func unfinishedCount(_ store: RouteStore, _ id: RouteID) -> Int? {
    (try? store.route(id))?.points.count
}

private final class OutputCollector: @unchecked Sendable {
    var data = Data()
}
