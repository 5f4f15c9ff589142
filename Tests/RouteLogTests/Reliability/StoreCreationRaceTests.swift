import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// Creating a store is idempotent and race-free (issue 12, part 5). Before: of two
/// `routelog import S f.gpx --create` started together on a new path, one failed with
/// "there is no RouteLog store here" in 97 of 100 rounds; a creation killed midway left
/// a directory every later create refused. Now concurrent creators end with one store,
/// each either succeeding or told the store is held (exit 3), and an interrupted
/// creation is completed by the next create.
@Suite struct StoreCreationRaceTests {
    @Test func threadsCreatingTheSameStoreAllGetIn() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let creators = 8
        let outcomes = StateLock<[String]>([])
        DispatchQueue.concurrentPerform(iterations: creators) { i in
            // A creator told the store is held waits its turn, as an app would, for up
            // to a minute: the others' opens and closes sync, on a disk that may be busy.
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                do {
                    let store = try RouteStore(at: url, options: .init(compaction: .manual))
                    _ = try store.save(Fixtures.sampleWalk(seed: UInt64(i), points: 20))
                    try store.close()
                    outcomes.withLock { $0.append("saved") }
                    return
                } catch let error as RouteLogError where error.code == .locked {
                    usleep(5_000)
                } catch {
                    outcomes.withLock { $0.append("\(error)") }
                    return
                }
            }
            outcomes.withLock { $0.append("still locked after a minute") }
        }
        #expect(outcomes.withLock { $0 } == Array(repeating: "saved", count: creators))
        let reader = try RouteStore(readOnlyAt: url)
        #expect(try reader.count == creators)
        #expect(try reader.verify().problems.isEmpty)
    }

    @Test func processesCreatingTheSameStoreEndWithOneStore() throws {
        let routelog = try #require(SegmentFileLimitTests.routelog, "the routelog executable is built beside the tests")
        let dir = TemporaryDirectory()
        let gpx = dir.url.appendingPathComponent("one.gpx")
        try Data(SegmentFileLimitTests.gpx.utf8).write(to: gpx)
        for round in 0..<5 {
            let url = dir.store("round\(round).routelog")
            let processes = (0..<4).map { _ in
                let process = Process()
                process.executableURL = routelog
                // Each successful import adds its copy, so that the count says how many got in.
                process.arguments = ["import", url.path, gpx.path, "--create", "--allow-duplicates"]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                return process
            }
            for process in processes { try process.run() }
            for process in processes { process.waitUntilExit() }
            let statuses = processes.map(\.terminationStatus)
            #expect(statuses.allSatisfy { $0 == 0 || $0 == 3 }, "round \(round): exit statuses \(statuses)")
            #expect(statuses.contains(0), "round \(round): one creator at least succeeds")
            let reader = try RouteStore(readOnlyAt: url)
            #expect(try reader.count == statuses.filter { $0 == 0 }.count, "round \(round): one route per successful import")
            #expect(try reader.verify().problems.isEmpty)
        }
    }

    /// The machine stops at every changing file operation of a creation in turn; the
    /// next create-if-missing open then completes the store (or finds it complete), and
    /// it takes saves. An empty directory is completed the same way.
    @Test func aCreationCutAtEveryFileOperationIsCompletedByTheNextOpen() throws {
        let dir = TemporaryDirectory()
        var n = 1
        var completedWithoutCrash = false
        while !completedWithoutCrash && n < 200 {
            let url = dir.store("cut\(n).routelog")
            let crashing = InterceptingFileSystem.crashing(atChange: n)
            do {
                let store = try RouteStore(at: url, options: .init(compaction: .manual), fileSystem: crashing)
                try? store.close()
            } catch {}
            completedWithoutCrash = crashing.failures.isEmpty
            do {
                // The cut handle lives on in this process (a real crash would have ended it):
                // its teardown may still hold the lock for a moment.
                var attempts = 0
                func reopen() throws -> RouteStore {
                    do { return try RouteStore(at: url, options: .init(compaction: .manual)) } catch let error as RouteLogError
                        where error.code == .locked && attempts < 1_500 {
                        attempts += 1
                        usleep(20_000)
                        return try reopen()
                    }
                }
                let store = try reopen()
                #expect(try store.count == 0, "cut at change \(n)")
                let id = try store.save(Fixtures.sampleWalk(seed: UInt64(n), points: 20))
                try store.close()
                let reader = try RouteStore(readOnlyAt: url)
                #expect(try reader.summaries().map(\.id) == [id], "cut at change \(n)")
            } catch {
                Issue.record("cut at change \(n): the next create fails: \(error)")
            }
            n += 1
        }
        #expect(completedWithoutCrash && n > 3, "every changing operation of a creation was cut once (\(n - 1))")

        let empty = dir.store("empty.routelog")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let store = try RouteStore(at: empty)
        #expect(try store.count == 0)
    }
}
