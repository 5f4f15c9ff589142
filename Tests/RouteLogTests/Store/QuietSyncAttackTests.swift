import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// Attacks on the quiet sync of buffered saves (QuietSync): its timer against a dropped
/// handle, a broken index, an uncertain manifest, bad delays, failed syncs, close(),
/// compactions and rewrites, many stores, and the crash-state invariant (the index file
/// only ever holds records of synced segment records).
@Suite struct QuietSyncAttackTests {
    static func route(_ i: Int) -> Route { Fixtures.sampleWalk(seed: UInt64(i), points: 5) }
    static func options(delay: Double?) -> RouteStore.Options { QuietSyncTests.options(delay: delay) }

    /// Waits up to `seconds` for `condition`.
    static func within(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return try condition()
    }

    // MARK: Defects

    /// The timer held the store itself while it synced: a handle whose last reference
    /// went meanwhile was not closed (its deinit ran later, on the timer's thread), so
    /// its lock stood and opening the store again threw `.locked`. "Dropping the last
    /// reference closes it too."
    @Test func droppingTheLastHandleWhileTheTimerSyncsClosesIt() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let fs = InterceptingFileSystem()
        let started = DispatchSemaphore(value: 0)
        let armed = StateLock(true)
        fs.observe { operation in
            guard case .syncData(let file) = operation, file.path.hasSuffix(FormatConstants.segmentSuffix),
                  armed.withLock({ armed in defer { armed = false }; return armed }) else { return }
            started.signal()
            Thread.sleep(forTimeInterval: 0.4)  // a slow flush
        }
        var store: RouteStore? = try RouteStore(at: url, options: Self.options(delay: 0.05), fileSystem: fs)
        try store!.save(Self.route(1))
        #expect(started.wait(timeout: .now() + 5) == .success, "the timer never synced")
        store = nil
        let reopened = try RouteStore(at: url, options: Self.options(delay: nil))
        defer { try? reopened.close() }
        #expect(try reopened.count == 1)
    }
}
