import Foundation
import Testing
@testable import RouteLog

/// A backup never overwrites what only its destination holds: another store's
/// unfinished recording, or the segments of another store that lost its MANIFEST, are
/// refused like another store's routes; an interrupted first backup is taken up again.
@Suite struct BackupOverOtherFilesTests {
    @Test func anotherStoresUnfinishedRecordingIsRefusedUntouched() throws {
        let dir = TemporaryDirectory()
        var routes = RandomRoutes(seed: 92)
        let other = dir.store("other.routelog")
        let store = try RouteStore(at: other)
        let recorder = try store.startRecording(flushPolicy: .manual)
        try recorder.append(Fixtures.sampleWalk(seed: 6, points: 40).points)
        try recorder.flush()
        try store.close()
        let before = directorySnapshot(other)
        let main = try RouteStore(at: dir.store("main.routelog"))
        try main.save((0..<4).map { _ in routes.next() })
        #expect {
            try main.backup(to: other)
        } throws: { error in
            (error as? RouteLogError)?.code == .invalidArgument && "\(error)".contains("recording 1")
        }
        #expect(directorySnapshot(other) == before)
        // One with a recording of an id this store never gave.
        let third = dir.store("third.routelog")
        let thirdStore = try RouteStore(at: third)
        for _ in 0..<5 { try thirdStore.startRecording().discard() }
        let late = try thirdStore.startRecording(flushPolicy: .manual)
        try late.append(Fixtures.sampleWalk(seed: 8, points: 20).points)
        try late.flush()
        #expect(late.id.rawValue == 6)
        try thirdStore.close()
        let thirdBefore = directorySnapshot(third)
        #expect {
            try main.backup(to: third)
        } throws: { error in
            (error as? RouteLogError)?.code == .invalidArgument && "\(error)".contains("never started")
        }
        #expect(directorySnapshot(third) == thirdBefore)
        // This store's own unfinished recording, backed up and then finished, is a backup still.
        let own = try main.startRecording(flushPolicy: .manual)
        try own.append(Fixtures.sampleWalk(seed: 7, points: 30).points)
        try own.flush()
        let backup = dir.store("backup.routelog")
        try main.backup(to: backup)
        try own.finish()
        #expect(try main.backup(to: backup).routeCount == 5)
        try main.close()
    }

    @Test func segmentsWithoutAManifestAreRefusedUnlessTheyHoldThisStoresRoutes() throws {
        let dir = TemporaryDirectory()
        var routes = RandomRoutes(seed: 93)
        let other = dir.store("other.routelog")
        let store = try RouteStore(at: other)
        try store.save((0..<3).map { _ in routes.next() })
        try store.close()
        try FileManager.default.removeItem(at: other.appendingPathComponent(FormatConstants.manifestName))
        let before = directorySnapshot(other)
        let main = try RouteStore(at: dir.store("main.routelog"), options: .init(compaction: .manual))
        let ids = try main.save((0..<2).map { _ in routes.next() })
        #expect {
            try main.backup(to: other)
        } throws: { error in
            (error as? RouteLogError)?.code == .invalidArgument && "\(error)".contains("no MANIFEST")
        }
        #expect(directorySnapshot(other) == before)
        // A first backup interrupted before its MANIFEST: its segments hold this store's
        // routes, and the backup goes on there, even after a compaction rewrote them.
        let backup = dir.store("backup.routelog")
        try main.backup(to: backup)
        try FileManager.default.removeItem(at: backup.appendingPathComponent(FormatConstants.manifestName))
        try main.save(routes.next())
        try main.delete(ids[0])
        try main.compact()
        #expect(try main.backup(to: backup).routeCount == 2)
        try main.close()
    }
}
