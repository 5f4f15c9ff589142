import Foundation
import Testing
@testable import RouteLog

/// An index file of at least `IndexRecovery.scanAheadFileBytes` is read on a second thread
/// while its records are applied: the store it opens is the one the segments give, it
/// is used (not rebuilt), and damage in its middle or its end is met as on one thread.
@Suite struct IndexScanAheadTests {
    /// A closed store of routes with long names, its index (runs, one record a save
    /// after them) past the size read ahead.
    static func make(_ dir: TemporaryDirectory) throws -> URL {
        let url = dir.store()
        let name = String(repeating: "a long way round ", count: 50)
        var store = try RouteStore(at: url, options: .init(durability: .buffered, compaction: .manual))
        var routes: [Route] = []
        for i in 0..<1_400 {
            let t = Date(timeIntervalSince1970: 1_700_000_000 + Double(i) * 3600)
            routes.append(Route(points: [TrackPoint(latitude: 48 + Double(i) / 1e4, longitude: 11, timestamp: t),
                                         TrackPoint(latitude: 48.001, longitude: 11.001 + Double(i) / 1e4, timestamp: t + 60)],
                                metadata: RouteMetadata(name: "\(i) \(name)")))
        }
        _ = try store.save(routes)
        try store.close()
        // Then single records: edits and deletes after the runs.
        store = try RouteStore(at: url, options: .init(durability: .buffered, compaction: .manual))
        let ids = try store.summaries().map(\.id)
        for id in ids.prefix(40) { try store.delete(id) }
        for id in ids.suffix(40) { _ = try store.edit(id, RouteEdit(name: "renamed \(id.rawValue)")) }
        try store.close()
        return url
    }

    static func indexPath(_ url: URL) throws -> String {
        url.appendingPathComponent(FormatConstants.indexName(try IndexRewriteAtCloseTests.indexNumber(url))).path
    }

    @Test func aLargeIndexOpensAsTheSegmentsGiveIt() throws {
        let dir = TemporaryDirectory()
        let url = try Self.make(dir)
        let size = try FileManager.default.attributesOfItem(atPath: try Self.indexPath(url))[.size] as! Int
        #expect(Int64(size) >= IndexRecovery.scanAheadFileBytes, "the index is read ahead (\(size) bytes)")
        let types = try IndexPutRunTests.indexRecordTypes(url)
        #expect(types.contains(FormatConstants.RecordType.indexPutRun.rawValue) && types.count > 2)
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(!reader.state.withLock { $0.indexRebuilt })
        #expect(try reader.count == 1_360)
        #expect(try reader.verify().problems.isEmpty)
        try reader.close()
        try IndexLoadTests.bothWays(url, dir)
    }

    /// A flipped byte inside a run, or a cut through the last record: the open rebuilds
    /// from the segments, or keeps the records before a torn tail, as it does for a
    /// small index, and loses no route.
    @Test func damageInALargeIndexIsMetAsInASmallOne() throws {
        let dir = TemporaryDirectory()
        let url = try Self.make(dir)
        let expected = try IndexLoadTests.view(url)
        let size = try FileManager.default.attributesOfItem(atPath: try Self.indexPath(url))[.size] as! Int
        for (i, damage) in ["flip", "cut"].enumerated() {
            let copy = dir.store("copy\(i).routelog")
            try FileManager.default.copyItem(at: url, to: copy)
            let path = try Self.indexPath(copy)
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            if damage == "flip" { bytes[size / 2] ^= 0x10 } else { bytes.removeLast(7) }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let writer = try RouteStore(at: copy, options: .init(compaction: .manual))
            // A flip in a run is damage: the index is rebuilt. A cut through the last
            // record is a torn tail of an unacknowledged append: the index is kept, and
            // the record's route found again in the segments.
            #expect(writer.state.withLock { $0.indexRebuilt } == (damage == "flip"), "\(damage)")
            try writer.close()
            let view = try IndexLoadTests.view(copy)
            #expect(view.0 == expected.0 && view.1 == expected.1, "\(damage)")
        }
    }
}
