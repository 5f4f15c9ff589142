import Foundation
import Testing
@testable import RouteLog

/// A store opened from its index file (routes packed as stored bytes) and then changed
/// many times over: edits with long notes (so the dead metadata bytes pass 64 KiB and
/// are repacked), deletes (the last row moving into the hole), saves, with listings,
/// totals and area queries kept in between, and snapshots taken by verify. Every route
/// keeps its own metadata throughout, and the store reads the same reopened from its
/// index file or from its segments.
@Suite struct PackedIndexChurnTests {
    @Test func editsDeletesAndSavesAfterAnOpenFromTheIndexKeepEveryRouteRight() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        var store = try RouteStore(at: url, options: .init(compaction: .manual))
        var routes = RandomRoutes(seed: 29)
        var expected: [RouteID: RouteMetadata] = [:]
        for i in 0..<24 {
            var route = routes.next()
            route.metadata.notes = String(repeating: Character(UnicodeScalar(UInt8(65 + i % 26))), count: 3000)
            route.metadata.tags = ["r\(i)"]
            expected[try store.save(route)] = route.metadata
        }
        try store.close()
        store = try RouteStore(at: url, options: .init(compaction: .manual))
        // Built from the packed rows, then kept up to date by each change.
        _ = try store.summaries()
        _ = try store.totals(by: .month)
        var everywhere = RouteQuery()
        everywhere.passesThrough = BoundingBox(southWest: .init(latitude: -90, longitude: -180), northEast: .init(latitude: 90, longitude: 180))
        _ = try store.summaries(matching: everywhere)

        func expectAll(_ note: String) throws {
            #expect(Set(try store.summaries().map(\.id)) == Set(expected.keys), "\(note)")
            for (id, metadata) in expected {
                let stored = try store.metadata(id)
                #expect(stored.notes == metadata.notes && stored.tags == metadata.tags && stored.name == metadata.name,
                        "\(note): route \(id)")
            }
            let totals = try store.totals()
            #expect(totals.routeCount == expected.count, "\(note)")
        }

        var g = SeededGenerator(state: 7)
        for round in 0..<60 {
            let ids = expected.keys.sorted()
            let id = ids[Int.random(in: 0..<ids.count, using: &g)]
            switch round % 5 {
            case 0, 1, 2:
                let notes = String(repeating: "n", count: 3000) + "\(round)"
                _ = try store.edit(id, RouteEdit(notes: notes, tags: ["e\(round)"]))
                expected[id]!.notes = notes
                expected[id]!.tags = ["e\(round)"]
            case 3:
                try store.delete(id)
                expected[id] = nil
            default:
                var route = routes.next()
                route.metadata.notes = String(repeating: "s", count: 2000 + round)
                expected[try store.save(route)] = route.metadata
            }
            if round % 20 == 19 {
                #expect(try store.verify().isClean, "round \(round)")
                try expectAll("round \(round)")
            }
        }
        try expectAll("after the changes")
        try store.close()
        try IndexLoadTests.bothWays(url, dir)
    }
}
