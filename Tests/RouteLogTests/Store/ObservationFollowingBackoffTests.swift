import Foundation
import Testing
@testable import RouteLog

/// The following's backoff: close() and the directory's removal while a retry waits.
@Suite(.timeLimit(.minutes(2))) struct ObservationFollowingBackoffTests {
    typealias Flaky = ObservationFollowingFailsTests.Flaky

    @Test func closeDuringTheBackoffEndsTheStreamQuietly() async throws {
        let dir = TemporaryDirectory()
        let writer = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 91)
        try writer.save(routes.next())
        let fs = Flaky()
        let reader = try RouteStore(at: dir.store(), options: .init(mode: .readOnly), fileSystem: fs)
        // Long enough that a loaded machine (the suite runs beside hundreds of tests on
        // two cores) still closes the reader well before the following would give up.
        let giveUp = 8
        reader.following.giveUpAfter.withLock { $0 = .seconds(giveUp) }
        let (seen, _) = collect(reader.changes)
        try await Task.sleep(nanoseconds: 300_000_000)
        fs.failing.withLock { $0 = true }
        let failing = Date()
        try writer.save(routes.next())
        try await Task.sleep(nanoseconds: 1_700_000_000)   // attempts at 0, 0.2, 0.6, 1.4 s; the next at 3.0 s
        try reader.close()
        let closedAfter = Date().timeIntervalSince(failing)
        try #require(closedAfter < Double(giveUp), "the reader was closed \(closedAfter) s into the failures, past the give-up")
        try await ObservationFollowingFailsTests.until { seen.finished }
        #expect(seen.error == nil, "\(String(describing: seen.error))")
        // Past the moment the following would have given up: the retries still pending
        // run on a closed handle and report nothing.
        try await Task.sleep(nanoseconds: UInt64((Double(giveUp) - closedAfter + 1) * 1e9))
        #expect(seen.error == nil)
        try writer.close()
    }

    @Test func theDirectoryRemovedDuringTheBackoffEndsTheStream() async throws {
        let dir = TemporaryDirectory()
        let writer = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 92)
        try writer.save(routes.next())
        let fs = Flaky()
        let reader = try RouteStore(at: dir.store(), options: .init(mode: .readOnly), fileSystem: fs)
        reader.following.giveUpAfter.withLock { $0 = .seconds(60) }
        let (seen, _) = collect(reader.changes)
        try await Task.sleep(nanoseconds: 300_000_000)
        fs.failing.withLock { $0 = true }
        try writer.save(routes.next())
        try await Task.sleep(nanoseconds: 1_700_000_000)
        try writer.close()
        try FileManager.default.removeItem(at: dir.store())
        let start = Date()
        try await ObservationFollowingFailsTests.until { seen.finished }
        #expect(Date().timeIntervalSince(start) < 10)
        #expect((seen.error as? RouteLogError)?.code == .notFound, "\(String(describing: seen.error))")
        try reader.close()
    }
}
