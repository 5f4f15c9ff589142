import Foundation
import Testing
@testable import RouteLog

/// A read-only handle (what `routelog backup` opens) that follows a writer saving,
/// deleting and compacting on another thread backs up into one destination again and
/// again: each backup verifies clean and holds every route the handle listed before it.
@Suite struct ReadOnlyBackupWhileWritingTests {
    @Test func backupsOfAFollowingReaderWhileTheWriterChangesTheStore() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url, options: .init(durability: .buffered, segmentSizeLimit: 16 << 10, compaction: .manual))
        var routes = RandomRoutes(seed: 61)
        _ = try writer.save((0..<10).map { _ in routes.next() })
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        reader.startFollowingWriter()
        let stop = ManagedAtomicFlag()
        let done = DispatchSemaphore(value: 0)
        let writerRoutes = RandomRoutes(seed: 62)
        Thread.detachNewThread {
            var routes = writerRoutes, round = 0
            while !stop.isSet {
                round += 1
                if let id = try? writer.save(routes.next()), round % 3 == 0 { try? writer.delete(id) }
                if round % 7 == 0 { _ = try? writer.compact() }
            }
            done.signal()
        }
        let destination = dir.url.appendingPathComponent("backup.routelog")
        for _ in 0..<12 {
            let listed = Set(try reader.summaries().map(\.uuid))
            let report = try reader.backup(to: destination)
            #expect(report.verification.isClean)
            let copy = try RouteStore(at: destination, options: .init(mode: .readOnly))
            #expect(listed.isSubset(of: Set(try copy.summaries().map(\.uuid))))
            try copy.close()
        }
        stop.set()
        done.wait()
        try reader.close()
        try writer.close()
    }
}

/// A flag one thread sets and another reads.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
