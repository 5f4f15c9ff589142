import Foundation
import Testing
@testable import RouteLog

/// The sorted summaries are made by the first listing, not while an index is replayed:
/// saves, deletes and edits interleaved with listings, reopening, compaction and a
/// read-only handle following the writer must list exactly what a brute-force sort of
/// the live routes lists.
@Suite struct SortedSummariesLazyTests {
    static let day0 = Date(timeIntervalSince1970: 1_767_225_600)

    static func route(startingAt start: Date, _ g: inout SeededGenerator) -> Route {
        let points = (0..<Int.random(in: 1...4, using: &g)).map { i in
            TrackPoint(latitude: 45 + Double(i) * 1e-4, longitude: 9, timestamp: start.addingTimeInterval(Double(i)))
        }
        return Route(points: points)
    }

    /// A start among few dates, so that many routes share one and sort by id.
    static func start(_ g: inout SeededGenerator) -> Date {
        day0.addingTimeInterval(Double(Int.random(in: -3...8, using: &g)) * 86_400)
    }

    /// The live routes' ids by (start date, id), from each route's own summary.
    static func bruteForce(_ store: RouteStore, _ live: Set<RouteID>) throws -> [RouteID] {
        try live.map { (try store.summary($0).startDate, $0) }
            .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }.map(\.1)
    }

    static func check(_ store: RouteStore, _ live: Set<RouteID>, _ label: String) throws {
        let listed = try store.summaries()
        #expect(listed.map(\.id) == (try bruteForce(store, live)), "\(label)")
        #expect(try listed.allSatisfy { try $0 == store.summary($0.id) }, "\(label): a listed summary is stale")
        // A window's listing agrees with the whole one.
        let from = day0.addingTimeInterval(86_400), to = day0.addingTimeInterval(5 * 86_400)
        #expect(try store.summaries(from: from, to: to).map(\.id)
                == listed.filter { $0.startDate >= from && $0.startDate < to }.map(\.id), "\(label): window")
    }

    @Test func interleavedChangesListLikeABruteForceSort() throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        let options = RouteStore.Options(durability: .buffered, segmentSizeLimit: 16 * 1024, compaction: .manual)
        var store = try RouteStore(at: url, options: options)
        var reader = try RouteStore(readOnlyAt: url)
        var live = Set<RouteID>()
        var g = SeededGenerator(state: 0x50F7)
        for step in 0..<700 {
            let label = "step \(step)"
            switch Int.random(in: 0..<100, using: &g) {
            case 0..<35:
                let ids = try store.save((0..<Int.random(in: 1...3, using: &g)).map { _ in Self.route(startingAt: Self.start(&g), &g) })
                live.formUnion(ids)
            case 35..<45 where !live.isEmpty:
                let id = live.randomElement(using: &g)!
                try store.delete(id)
                live.remove(id)
            case 45..<55 where !live.isEmpty:
                // Moves the start: before, after, or onto another route's date.
                _ = try store.edit(live.randomElement(using: &g)!, RouteEdit(startDate: Self.start(&g)))
            case 55..<62 where !live.isEmpty:
                // Keeps the start: the route keeps its place.
                _ = try store.edit(live.randomElement(using: &g)!, RouteEdit(name: "renamed \(step)", calories: Double(step)))
            case 62..<65 where !live.isEmpty:
                _ = try store.edit(live.randomElement(using: &g)!, RouteEdit(shift: 0))
            case 65..<85:
                try Self.check(store, live, label)
            case 85..<89:
                try store.close()
                try reader.close()
                store = try RouteStore(at: url, options: options)
                reader = try RouteStore(readOnlyAt: url)
                if Bool.random(using: &g) { try Self.check(store, live, label + " after reopening") }
            case 89..<92:
                _ = try store.compact()
                if Bool.random(using: &g) { try Self.check(store, live, label + " after compaction") }
            default:
                try reader.refresh()
                let listed = try reader.summaries()
                #expect(listed.map(\.id) == (try Self.bruteForce(store, live)), "\(label): the reader")
                #expect(try listed.allSatisfy { try $0 == store.summary($0.id) }, "\(label): the reader's summary is stale")
            }
        }
        try Self.check(store, live, "end")
        try reader.refresh()
        #expect(try reader.summaries().map(\.id) == (try Self.bruteForce(store, live)), "end: the reader")
    }

    @Test func editsMovingTheStartBeforeAndAfterTheFirstListing() throws {
        let directory = TemporaryDirectory()
        let store = try RouteStore(at: directory.store(), options: .init(durability: .buffered, compaction: .manual))
        var g = SeededGenerator(state: 3)
        let ids = try store.save((0..<6).map { Self.route(startingAt: Self.day0.addingTimeInterval(Double($0) * 3_600), &g) })
        // Before any listing: the last route moves first, the first moves last.
        _ = try store.edit(ids[5], RouteEdit(startDate: Self.day0.addingTimeInterval(-3_600)))
        _ = try store.edit(ids[0], RouteEdit(startDate: Self.day0.addingTimeInterval(10 * 3_600)))
        #expect(try store.summaries().map(\.id) == [ids[5], ids[1], ids[2], ids[3], ids[4], ids[0]])
        // After it: onto another route's date (then by id), and back.
        _ = try store.edit(ids[4], RouteEdit(startDate: Self.day0.addingTimeInterval(3_600)))
        #expect(try store.summaries().map(\.id) == [ids[5], ids[1], ids[4], ids[2], ids[3], ids[0]])
        _ = try store.edit(ids[1], RouteEdit(shift: 3 * 3_600))
        #expect(try store.summaries().map(\.id) == [ids[5], ids[4], ids[2], ids[3], ids[1], ids[0]])
        // A save sorting before the last listed one, then one after it.
        let early = try store.save(Self.route(startingAt: Self.day0.addingTimeInterval(-7_200), &g))
        let late = try store.save(Self.route(startingAt: Self.day0.addingTimeInterval(20 * 3_600), &g))
        #expect(try store.summaries().map(\.id) == [early, ids[5], ids[4], ids[2], ids[3], ids[1], ids[0], late])
        #expect(try store.summaries().map(\.startDate) == (try store.summaries().map(\.startDate).sorted()))
    }
}
