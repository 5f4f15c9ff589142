import Foundation
import Testing
@testable import RouteLog

/// Opening from the index file (puts read without decoding their metadata) gives the
/// same store as replaying the segments: every summary, every route's metadata, the
/// statistics, before and after a compaction.
@Suite struct IndexLoadTests {
    /// What a reader sees of a store: its listing, each route's metadata, its counts.
    static func view(_ url: URL) throws -> ([RouteSummary], [RouteID: RouteMetadata], Int, Int) {
        let store = try RouteStore(at: url, options: .init(mode: .readOnly))
        defer { try? store.close() }
        let summaries = try store.summaries()
        var metadata: [RouteID: RouteMetadata] = [:]
        for summary in summaries { metadata[summary.id] = try store.metadata(summary.id) }
        let statistics = try store.statistics()
        return (summaries, metadata, statistics.liveRoutes, statistics.deletedRoutes)
    }

    /// The view of `url` read from its index file, and read again with the index file
    /// removed (rebuilt from the segments, in a copy).
    static func bothWays(_ url: URL, _ dir: TemporaryDirectory) throws {
        let fromIndex = try view(url)
        let copy = dir.store("copy.routelog")
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: url, to: copy)
        try Fixtures.removeIndexFiles(in: copy)
        let fromSegments = try view(copy)
        #expect(fromIndex.0 == fromSegments.0)
        #expect(fromIndex.1 == fromSegments.1)
        #expect(fromIndex.2 == fromSegments.2 && fromIndex.3 == fromSegments.3)
        #expect(fromIndex.0.count == fromIndex.2)
    }

    @Test func theIndexFileAndTheSegmentsGiveTheSameStore() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(compaction: .manual))
        var routes = RandomRoutes(seed: 11)
        var ids: [RouteID] = []
        for i in 0..<300 {
            var route = routes.next()
            route.metadata.tags = i % 3 == 0 ? ["t\(i % 7)"] : []
            route.metadata.notes = i % 5 == 0 ? String(repeating: "note ", count: i) : nil
            route.metadata.values = i % 4 == 0 ? ["k\(i)": "v"] : [:]
            route.metadata.activity = i % 2 == 0 ? .run : .custom("paddle \(i)")
            ids.append(try store.save(route))
        }
        for (i, id) in ids.enumerated() where i % 7 == 0 {
            _ = try store.edit(id, RouteEdit(shift: Double(i), name: "edited \(i)", tags: ["e"], values: ["x": "\(i)"]))
        }
        for (i, id) in ids.enumerated() where i % 11 == 0 { try store.delete(id) }
        try store.close()
        try Self.bothWays(url, dir)

        let again = try RouteStore(at: url, options: .init(compaction: .manual))
        _ = try again.compact()
        try again.close()
        try Self.bothWays(url, dir)
    }
}
