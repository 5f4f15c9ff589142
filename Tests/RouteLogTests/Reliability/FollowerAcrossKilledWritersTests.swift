import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// A read-only handle in the test process follows `routelog-crash-worker` (saves,
/// deletes, edits, recordings, compactions) while it is killed with SIGKILL again and
/// again, each next worker recovering the store: every route it reads is the route its
/// summary describes (never another route's points), no read reports damage, and once
/// the writers are gone the handle lists and reads exactly what a new handle does.
@Suite(.tags(.slow)) struct FollowerAcrossKilledWritersTests {
    @Test func aFollowerReadsOnlyWholeRoutesAcrossKilledWriters() async throws {
        guard let worker = KillTests.workerURL else {
            Issue.record("routelog-crash-worker was not built next to the test binary")
            return
        }
        let dir = TemporaryDirectory()
        let url = dir.store()
        try RouteStore(at: url).close()
        var readOptions = RouteStore.Options(mode: .readOnly)
        readOptions.openSegmentFileLimit = 2  // removed segments are met by name too
        let reader = try RouteStore(at: url, options: readOptions)
        let heard = StateLock(0)
        let streamError = StateLock<(any Error)?>(nil)
        // Subscribed here, not in the task, which a busy test run may start late; the
        // buffer holds what the task has not read yet.
        let changes = reader.changes(bufferingAtMost: 1_000_000)
        let listening = Task {
            do {
                for try await _ in changes { heard.withLock { $0 += 1 } }
            } catch {
                streamError.withLock { $0 = error }
            }
        }

        let stop = StateLock(false)
        let problems = StateLock<[String]>([])
        let reads = StateLock(0), switches = StateLock(0)
        let readerThread = Thread {
            var generator = SystemRandomNumberGenerator()
            while !stop.withLock({ $0 }) {
                do {
                    if Bool.random(using: &generator) { try reader.refresh() }
                    let listed = try reader.summaries()
                    for summary in listed.shuffled(using: &generator).prefix(4) {
                        let route: Route
                        do {
                            route = try reader.route(summary.id)
                        } catch let error as RouteLogError where error.code == .notFound {
                            continue  // deleted since the listing
                        }
                        reads.withLock { $0 += 1 }
                        // Edits change names and times, never which points a route has.
                        let first = route.points.first
                        if route.points.count != summary.pointCount
                            || first.map({ Quantization.degrees($0.latitude) }) != Quantization.degrees(summary.startCoordinate.latitude)
                            || first.map({ Quantization.degrees($0.longitude) }) != Quantization.degrees(summary.startCoordinate.longitude) {
                            problems.withLock { $0.append("route \(summary.id) read \(route.points.count) points, its summary says \(summary.pointCount)") }
                        }
                    }
                } catch let error as RouteLogError where error.code == .io && error.errno == ENOENT {
                    // A file switch met by name: the next look reads the new files.
                    switches.withLock { $0 += 1 }
                } catch {
                    problems.withLock { $0.append("\(error)") }
                }
            }
        }
        readerThread.start()

        var g = SystemRandomNumberGenerator()
        var routeSeed: UInt64 = 1
        for cycle in 0..<10 {
            let process = Process()
            process.executableURL = worker
            process.arguments = [url.path, String(UInt64.random(in: 1...999_999_999, using: &g)), String(routeSeed)]
            routeSeed += 10_000
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 150_000...700_000, using: &g))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "cycle \(cycle): the worker exited by itself")
        }
        stop.withLock { $0 = true }
        while !readerThread.isFinished { usleep(10_000) }

        // The last worker's leftovers recovered by a writer, then read by both handles.
        try RouteStore(at: url, options: .init(compaction: .manual)).close()
        try reader.refresh()
        let fresh = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(try reader.summaries() == fresh.summaries())
        for summary in try fresh.summaries() { #expect(try reader.route(summary.id) == fresh.route(summary.id)) }
        #expect(problems.withLock { $0 }.isEmpty, "\(problems.withLock { $0.count }) problems: \(problems.withLock { $0.prefix(5) })")
        let generation = try fresh.statistics().generation
        try fresh.close()
        try reader.close()
        _ = await listening.result
        print("follower across killed writers: \(reads.withLock { $0 }) routes read, \(heard.withLock { $0 }) changes heard, \(switches.withLock { $0 }) file switches met, manifest generation \(generation)")
        #expect(streamError.withLock { $0 } == nil)
        #expect(reads.withLock { $0 } > 0 && heard.withLock { $0 } > 0)
    }
}
