import Foundation
import Testing
@testable import RouteLog

/// Records what a workload does to the files, builds every crash state a weak file
/// system allows from that trace (``CrashStateModel``), and opens each one: it must
/// open, hold every change acknowledged before the crash and at most the one in
/// flight (whole or not at all), and verify clean once a writer has opened it.
/// Workloads: saves, deletes, edits, compactions, a recording, an index rebuild.
@Suite(.tags(.slow)) struct CrashStateReplayTests {
    static let options = RouteStore.Options(segmentSizeLimit: 8 * 1024, compaction: .manual)

    /// Random mixes tried at each crash point, on top of the systematic ones.
    static var randomPerPoint: Int { Int(ProcessInfo.processInfo.environment["ROUTELOG_CRASH_RANDOM"] ?? "") ?? 3 }

    struct Outcome {
        var crashPoints = 0
        var states = 0
        var failures: [String] = []
    }

    /// Runs `prepare` with the real file system, then `workload` on a store opened
    /// through a file system that traces the store's directory (`acknowledge` after
    /// each change returns), then replays.
    static func replay(_ name: String, seed: UInt64 = 7,
                       prepare: (URL) throws -> Void,
                       workload: (URL, InterceptingFileSystem, () throws -> Void) throws -> Void) throws -> Outcome {
        let dir = TemporaryDirectory(name)
        let live = dir.store("live.routelog")
        try prepare(live)
        var snapshots = [try ExpectedStore(RouteStore(readOnlyAt: live))]
        let fs = InterceptingFileSystem()
        let trace = try fs.trace(live)
        try workload(live, fs) {
            snapshots.append(try ExpectedStore(RouteStore(readOnlyAt: live)))
            trace.mark(snapshots.count - 1)
        }
        let model = CrashStateModel(trace)
        var outcome = Outcome()
        var seen = Set<Int>()
        var g = SeededGenerator(state: seed)
        let work = dir.store("crash.routelog")
        for point in model.crashPoints {
            let pending = model.pending(at: point)
            outcome.crashPoints += 1
            for choice in model.choices(pending, random: randomPerPoint, generator: &g) {
                let files = model.files(pending, choice)
                var hasher = Hasher()
                hasher.combine(pending.acknowledged)
                for name in files.keys.sorted() { hasher.combine(name); hasher.combine(files[name]!) }
                guard seen.insert(hasher.finalize()).inserted else { continue }
                outcome.states += 1
                try materialize(files, at: work)
                let allowed = [snapshots[pending.acknowledged]] + (pending.acknowledged + 1 < snapshots.count ? [snapshots[pending.acknowledged + 1]] : [])
                if let problem = check(work, allowed: allowed) {
                    outcome.failures.append("\(name), crash before operation \(point) (\(point < model.operations.count ? "\(describe(model.operations[point]))" : "end")), \(pending.acknowledged) acknowledged, \(choice): \(problem)")
                }
            }
        }
        print("crash-state replay [\(name)]: \(model.operations.count) operations, \(outcome.crashPoints) crash points, \(outcome.states) distinct crash states checked, \(outcome.failures.count) failed")
        return outcome
    }

    static func describe(_ op: DirectoryTrace.Operation) -> String {
        switch op {
        case .write(let inode, let offset, let bytes): return "write \(bytes.count) bytes at \(offset) of file #\(inode)"
        default: return "\(op)"
        }
    }

    /// nil when the store in `url` opens, reads as one of `allowed`, and verifies clean.
    static func check(_ url: URL, allowed: [ExpectedStore]) -> String? {
        do {
            let reader = try RouteStore(at: url, options: .init(mode: .readOnly), fileSystem: InterceptingFileSystem.unsynced())
            let readerProblems = allowed.map { $0.mismatches(in: reader) }
            guard readerProblems.contains(where: \.isEmpty) else { return "a reader sees: \(readerProblems)" }
        } catch {
            return "a reader cannot open it: \(error)"
        }
        do {
            let store = try RouteStore(at: url, options: options, fileSystem: InterceptingFileSystem.unsynced())
            let problems = allowed.map { $0.mismatches(in: store) }
            guard problems.contains(where: \.isEmpty) else { return "the writer sees: \(problems)" }
            let report = try store.verify()
            guard report.isClean else { return "verify: \(report.problems)" }
            try store.close()
            // And the state the writer left behind opens as the same store.
            let again = try RouteStore(at: url, options: options, fileSystem: InterceptingFileSystem.unsynced())
            let after = allowed.map { $0.mismatches(in: again) }
            guard after.contains(where: \.isEmpty) else { return "after a writer's open: \(after)" }
        } catch {
            return "the writer cannot open it: \(error)"
        }
        return nil
    }

    static func populate(_ url: URL, count: Int, points: Int = 90) throws {
        let store = try RouteStore(at: url, options: options, fileSystem: InterceptingFileSystem.unsynced())
        for i in 0..<count { try store.save(Fixtures.sampleWalk(seed: UInt64(i), points: points)) }
        try store.close()
    }

    static func expectNoFailures(_ outcome: Outcome) {
        #expect(outcome.states > 0)
        #expect(outcome.failures.isEmpty, "\(outcome.failures.count) crash states failed; first: \(outcome.failures.prefix(5).joined(separator: "\n"))")
    }

    @Test func saves() throws {
        let outcome = try Self.replay("save", prepare: { try Self.populate($0, count: 3) }) { url, fs, acknowledge in
            let store = try RouteStore(at: url, options: Self.options, fileSystem: fs)
            for i in 0..<4 {
                try store.save(Fixtures.sampleWalk(seed: UInt64(100 + i), points: 60 + 40 * i))
                try acknowledge()
            }
            try store.save([Fixtures.sampleWalk(seed: 200, points: 50), Fixtures.sampleWalk(seed: 201, points: 30)])
            try acknowledge()
            try store.close()
        }
        Self.expectNoFailures(outcome)
    }

    @Test func deletes() throws {
        let outcome = try Self.replay("delete", prepare: { try Self.populate($0, count: 6) }) { url, fs, acknowledge in
            let store = try RouteStore(at: url, options: Self.options, fileSystem: fs)
            for id in [2, 5, 3] {
                try store.delete(RouteID(UInt64(id)))
                try acknowledge()
            }
            try store.close()
        }
        Self.expectNoFailures(outcome)
    }

    @Test func edits() throws {
        let outcome = try Self.replay("edit", prepare: { try Self.populate($0, count: 4) }) { url, fs, acknowledge in
            let store = try RouteStore(at: url, options: Self.options, fileSystem: fs)
            try store.edit(RouteID(1), RouteEdit(name: "renamed"))
            try acknowledge()
            try store.edit(RouteID(2), RouteEdit(shift: 86_400, calories: 12))
            try acknowledge()
            try store.edit(RouteID(1), RouteEdit(name: "renamed again", distance: 5000))
            try acknowledge()
            try store.close()
        }
        Self.expectNoFailures(outcome)
    }

    @Test func compaction() throws {
        let outcome = try Self.replay("compaction", prepare: { url in
            let store = try RouteStore(at: url, options: Self.options)
            for i in 0..<10 { try store.save(Fixtures.sampleWalk(seed: UInt64(i), points: 90)) }
            for id in [1, 4, 7, 8] { try store.delete(RouteID(UInt64(id))) }
            try store.edit(RouteID(2), RouteEdit(shift: 3600, name: "moved"))
            try store.close()
        }) { url, fs, acknowledge in
            let store = try RouteStore(at: url, options: Self.options, fileSystem: fs)
            try store.compact()
            try acknowledge()
            try store.save(Fixtures.sampleWalk(seed: 50, points: 40))
            try acknowledge()
            try store.delete(RouteID(3))
            try acknowledge()
            try store.compact()
            try acknowledge()
            try store.close()
        }
        Self.expectNoFailures(outcome)
    }

    @Test func recording() throws {
        let outcome = try Self.replay("recording", prepare: { try Self.populate($0, count: 2) }) { url, fs, acknowledge in
            let store = try RouteStore(at: url, options: Self.options, fileSystem: fs)
            let points = Fixtures.sampleWalk(seed: 70, points: 60).points
            let recorder = try store.startRecording(metadata: RouteMetadata(name: "recorded"), flushPolicy: .manual)
            try acknowledge()
            for start in stride(from: 0, to: 60, by: 20) {
                try recorder.append(Array(points[start..<(start + 20)]))
                try recorder.flush()
                try acknowledge()
            }
            try recorder.finish()
            try acknowledge()
            let second = try store.startRecording(flushPolicy: .manual)
            try acknowledge()
            try second.append(Array(points.prefix(10)))
            try second.flush()
            try acknowledge()
            try second.discard()
            try acknowledge()
            try store.close()
        }
        Self.expectNoFailures(outcome)
    }

    @Test func indexRebuild() throws {
        let outcome = try Self.replay("index rebuild", prepare: { url in
            let store = try RouteStore(at: url, options: Self.options)
            for i in 0..<8 { try store.save(Fixtures.sampleWalk(seed: UInt64(i), points: 90)) }
            try store.delete(RouteID(3))
            try store.edit(RouteID(4), RouteEdit(name: "kept"))
            try store.close()
            // A damaged index: the next writer rebuilds it from the segments.
            let index = try FileManager.default.contentsOfDirectory(atPath: url.path).first { $0.hasSuffix(".rlidx") }!
            let indexURL = url.appendingPathComponent(index)
            var bytes = try Data(contentsOf: indexURL)
            bytes[bytes.count / 2] ^= 0x40
            try bytes.write(to: indexURL)
        }) { url, fs, acknowledge in
            let store = try RouteStore(at: url, options: Self.options, fileSystem: fs)
            try acknowledge()
            try store.save(Fixtures.sampleWalk(seed: 60, points: 40))
            try acknowledge()
            try store.close()
        }
        Self.expectNoFailures(outcome)
    }
}
