import Foundation
import Testing
@testable import RouteLog

/// When LOCK holds no mark at the follower's next look (deleted by hand after the writer
/// closed, left empty by an older release's clean close, or holding a pid alone as an
/// older release's writer writes it), a mark the follower saw is gone: it reads the
/// store again, so that a refused batch whose last record came back byte for byte
/// (FollowedCutRaceTests) is not listed.
@Suite struct FollowedMarkGoneTests {
    enum LockAfterLaterWriter: String, CaseIterable, Sendable { case deleted, emptied, pidOnly }

    @Test(arguments: LockAfterLaterWriter.allCases)
    func aRefusedSaveGoesWhenLOCKSaysNothingAnyMore(lock: LockAfterLaterWriter) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let (kept, reader) = try FollowedCutRaceTests.keptRouteAndReader(url)
        let (refused, retried) = FollowedCutRaceTests.refusedAndRetried(seed: 2, second: "second")

        let heard = StateLock<[StoreChange]>([])
        let (writer, _) = try FollowedCutRaceTests.failingWriter(url) {
            if let changes = try? reader.catchUpWithWriter() { heard.withLock { $0 += changes } }
        }
        #expect(throws: RouteLogError.self) { try writer.save(refused) }
        try? writer.close()
        #expect(heard.withLock { $0 }.count == 2, "the reader read the refused batch before the cut")

        let later = try RouteStore(at: url)
        let ids = try later.save(retried)
        try later.close()
        let lockPath = url.appendingPathComponent(FormatConstants.lockName).path
        switch lock {
        case .deleted: try FileManager.default.removeItem(atPath: lockPath)
        case .emptied: try Data().write(to: URL(fileURLWithPath: lockPath))          // an older release's clean close
        case .pidOnly: try Data("4242\n".utf8).write(to: URL(fileURLWithPath: lockPath))  // an older release's writer, still open
        }

        try reader.catchUpWithWriter()
        let listed = try reader.summaries().sorted { $0.id < $1.id }
        #expect(listed.map(\.id) == [kept] + ids)
        #expect(listed.map(\.name) == ["kept", "retried", "second"], "the refused route is still listed")
        try reader.close()
    }
}
