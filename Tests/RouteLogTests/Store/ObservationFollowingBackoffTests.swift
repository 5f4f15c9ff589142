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
        reader.following.giveUpAfter.withLock { $0 = .seconds(3) }
        let (seen, _) = collect(reader.changes)
        try await Task.sleep(nanoseconds: 300_000_000)
        fs.failing.withLock { $0 = true }
        try writer.save(routes.next())
        try await Task.sleep(nanoseconds: 1_700_000_000)   // attempts at 0, 0.2, 0.6, 1.4 s; next at 3.0 s
        try reader.close()
        try await ObservationFollowingFailsTests.until { seen.finished }
        #expect(seen.error == nil, "\(String(describing: seen.error))")
        try await Task.sleep(nanoseconds: 3_000_000_000)   // the pending retry runs on a closed handle
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
