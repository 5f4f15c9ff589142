import Foundation
import Testing
@testable import RouteLog

/// A read-only handle following a writer whose store directory is deleted, moved away,
/// or moved away and replaced by another directory at the same path: its `changes`
/// stream ends by throwing `.notFound` naming the directory, instead of waiting for
/// changes that can never come. With inotify (Linux) and with the polling watch.
@Suite(.timeLimit(.minutes(3))) struct ObservationStoreGoneTests {
    enum Removal: String, CaseIterable, Sendable { case deleted, moved, replaced }

    static var cases: [(StoreFileWatchKind, Removal)] {
        [StoreFileWatchKind.platform, .polling].flatMap { kind in Removal.allCases.map { (kind, $0) } }
    }

    @Test(arguments: cases) func changesEndWithNotFoundWhenTheDirectoryGoes(kind: StoreFileWatchKind, removal: Removal) async throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        var routes = RandomRoutes(seed: 71)
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        reader.following.kind.withLock { $0 = kind }
        let (seen, _) = collect(reader.changes)
        let id = try writer.save(routes.next())
        try await Self.until { seen.values.count >= 1 }
        #expect(seen.values == [.saved(id)])
        try writer.close()
        switch removal {
        case .deleted:
            try FileManager.default.removeItem(at: url)
        case .moved:
            #expect(rename(url.path, dir.url.appendingPathComponent("elsewhere").path) == 0)
        case .replaced:
            // Another directory, even another store, at the same path is not the one followed.
            #expect(rename(url.path, dir.url.appendingPathComponent("elsewhere").path) == 0)
            try RouteStore(at: url).close()
        }
        try await Self.until { seen.finished }
        let error = try #require(seen.error as? RouteLogError)
        #expect(error.code == .notFound)
        #expect(error.path == url.standardizedFileURL.path)
        #expect(error.message.contains("deleted or moved away"))
        // A later subscription hears the same at once.
        let (later, _) = collect(reader.changes)
        try await Self.until { later.finished }
        #expect((later.error as? RouteLogError)?.code == .notFound)
        try reader.close()
    }

    /// An observation of a value ends the same way.
    @Test func anObservationEndsWithNotFoundWhenTheDirectoryIsDeleted() async throws {
        let dir = TemporaryDirectory()
        let writer = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 72)
        try writer.save(routes.next())
        try writer.close()
        let reader = try RouteStore(at: dir.store(), options: .init(mode: .readOnly))
        let (counts, _) = collect(reader.observe { try $0.count })
        try await Self.until { counts.values.count >= 1 }
        try FileManager.default.removeItem(at: dir.store())
        try await Self.until { counts.finished }
        #expect((counts.error as? RouteLogError)?.code == .notFound)
        #expect(counts.values == [1])
    }

    /// Waits until `condition` holds; throws (failing the test) after 30 seconds or
    /// when the test is cancelled, so that a stream that never ends cannot hang the run.
    struct TimedOut: Error {}

    static func until(_ condition: @Sendable () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(30)
        while !condition() {
            guard Date() < deadline else { throw TimedOut() }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
    }
}
