import Foundation
import Testing
@testable import RouteLog

/// A backup never overwrites a store that is not an earlier backup of its source (the
/// arguments swapped, or an unrelated store), and a read-only handle's backup keeps the
/// ids of compacted routes retired.
@Suite struct BackupDestinationStoreTests {
    @Test func aStoreThatIsNotAnEarlierBackupIsRefusedUntouched() throws {
        let dir = TemporaryDirectory()
        var routes = RandomRoutes(seed: 71)
        let main = try RouteStore(at: dir.store("main.routelog"))
        try main.save((0..<4).map { _ in routes.next() })
        let old = dir.store("old.routelog")
        try main.backup(to: old)
        let newest = try main.save(routes.next())
        // The older backup given as the source, the live store as the destination.
        let olderCopy = try RouteStore(at: old, options: .init(mode: .readOnly))
        #expect(throws: RouteLogError.self) { try olderCopy.backup(to: dir.store("main.routelog")) }
        try olderCopy.close()
        #expect(try main.summaries().map(\.id).contains(newest))
        // An unrelated store with the same ids.
        let other = try RouteStore(at: dir.store("other.routelog"))
        try other.save((0..<3).map { _ in routes.next() })
        let otherIDs = try other.summaries().map(\.uuid)
        try other.close()
        #expect {
            try main.backup(to: dir.store("other.routelog"))
        } throws: { error in
            (error as? RouteLogError)?.code == .invalidArgument && "\(error)".contains("not a backup of this one")
        }
        #expect(try RouteStore(at: dir.store("other.routelog"), options: .init(mode: .readOnly)).summaries().map(\.uuid) == otherIDs)
        // An earlier backup of this store after deletes is still a backup.
        try main.delete(newest)
        try main.backup(to: old)
        try main.close()
    }

    @Test func aReadOnlyBackupKeepsCompactedIdsRetired() throws {
        let dir = TemporaryDirectory()
        var routes = RandomRoutes(seed: 72)
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        let ids = try store.save((0..<3).map { _ in routes.next() })
        try store.delete(ids[1])
        try store.delete(ids[2])
        try store.compact()
        try store.close()
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        let destination = dir.store("backup.routelog")
        try reader.backup(to: destination)
        try reader.close()
        let copy = try RouteStore(at: destination)
        let next = try copy.save(routes.next())
        #expect(next.rawValue > ids[2].rawValue, "a backup gave id \(next) again")
        try copy.close()
    }
}
