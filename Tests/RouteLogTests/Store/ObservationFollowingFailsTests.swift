import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// A read-only handle that cannot catch up with the writer (its MANIFEST cannot be
/// read, say) tries again, waiting longer each time; a failure that passes costs the
/// subscribers nothing, and one that lasts ends their streams with the error instead
/// of leaving them waiting for changes that cannot come.
@Suite(.timeLimit(.minutes(2))) struct ObservationFollowingFailsTests {
    /// The real file system, except that opening MANIFEST fails with EIO while `failing`.
    struct Flaky: ForwardingFileSystem {
        let base: any FileSystem = PosixFileSystem.shared
        let failing = StateLock(false)

        func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef {
            if failing.withLock({ $0 }), path.hasSuffix("/" + FormatConstants.manifestName) { throw Errno(code: EIO) }
            return try base.open(path, flags: flags, mode: mode)
        }
    }

    static func until(_ condition: @Sendable () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(30)
        while !condition() {
            guard Date() < deadline else { throw RouteLogError(.io, "timed out") }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
    }

    @Test func aFailureThatLastsEndsTheStreamsWithTheError() async throws {
        let dir = TemporaryDirectory()
        let writer = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 81)
        let a = try writer.save(routes.next())
        let fs = Flaky()
        let reader = try RouteStore(at: dir.store(), options: .init(mode: .readOnly), fileSystem: fs)
        reader.following.giveUpAfter.withLock { $0 = .milliseconds(700) }
        let (seen, _) = collect(reader.changes)
        let (count, _) = collect(reader.observe { try $0.count })
        try await Self.until { count.values == [1] }
        fs.failing.withLock { $0 = true }
        try writer.save(routes.next())
        try await Self.until { seen.finished && count.finished }
        #expect(seen.values.isEmpty, "nothing was read while the MANIFEST could not be")
        let error = try #require(seen.error as? RouteLogError)
        #expect(error.code == .io)
        #expect(error.errno == EIO)
        #expect(error.message.contains("could not be followed"), "\(error.message)")
        #expect(error.message.contains("open the store again"))
        #expect((count.error as? RouteLogError)?.errno == EIO)
        // A later subscription hears the same at once; the handle still reads what it had.
        let (later, _) = collect(reader.changes)
        try await Self.until { later.finished }
        #expect((later.error as? RouteLogError)?.errno == EIO)
        #expect(try reader.summaries().map(\.id) == [a])
        try reader.close()
        try writer.close()
    }

    @Test func aFailureThatPassesCostsTheSubscribersNothing() async throws {
        let dir = TemporaryDirectory()
        let writer = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 82)
        try writer.save(routes.next())
        let fs = Flaky()
        let reader = try RouteStore(at: dir.store(), options: .init(mode: .readOnly), fileSystem: fs)
        reader.following.giveUpAfter.withLock { $0 = .seconds(20) }
        let (seen, _) = collect(reader.changes)
        let (count, _) = collect(reader.observe { try $0.count })
        try await Self.until { count.values == [1] }
        fs.failing.withLock { $0 = true }
        let b = try writer.save(routes.next())
        // Several attempts fail (at 0, 200 and 600 ms), then the MANIFEST reads again.
        try await Task.sleep(nanoseconds: 700_000_000)
        #expect(seen.values.isEmpty)
        fs.failing.withLock { $0 = false }
        try await Self.until { seen.values == [.saved(b)] }
        #expect(!seen.finished)
        try await Self.until { count.values.last == 2 }
        // The next change is heard at once: the wait before a retry starts again short.
        let c = try writer.save(routes.next())
        try await Self.until { seen.values == [.saved(b), .saved(c)] }
        #expect(!seen.finished && !count.finished)
        try reader.close()
        try writer.close()
    }
}
