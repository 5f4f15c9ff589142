import Foundation
import Testing
@testable import RouteLog

/// `summaries(matching:)`: every condition, the pass-through grid against a brute-force
/// test on the points, ordering and paging, and the inputs it must refuse.
@Suite struct RouteQueryTests {
    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    /// `count` points one second apart from `a` to `b` (longitudes may cross 180).
    static func line(from a: Coordinate, to b: Coordinate, count: Int = 200, start: Date) -> [TrackPoint] {
        var dLon = b.longitude - a.longitude
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        return (0..<count).map { i in
            let t = Double(i) / Double(count - 1)
            var lon = a.longitude + dLon * t
            if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
            return TrackPoint(latitude: a.latitude + (b.latitude - a.latitude) * t, longitude: lon,
                              timestamp: start.addingTimeInterval(Double(i)))
        }
    }

    static let milan = Coordinate(latitude: 45.46, longitude: 9.19)

    /// Four routes: a run and a ride in Milan, a walk across the antimeridian, an unnamed one in Paris.
    static func makeStore(_ dir: TemporaryDirectory) throws -> RouteStore {
        let store = try RouteStore(at: dir.store(), options: .init(compaction: .manual))
        let routes = [
            Route(points: line(from: milan, to: .init(latitude: 45.46, longitude: 9.215), start: date("2026-01-05T07:00:00Z")),
                  metadata: RouteMetadata(name: "Café run", activity: .run, tags: ["morning"])),
            Route(points: line(from: milan, to: .init(latitude: 45.55, longitude: 9.19), count: 600, start: date("2026-01-07T18:00:00Z")),
                  metadata: RouteMetadata(name: "Evening ride", activity: .ride, tags: ["commute", "morning"])),
            Route(points: line(from: .init(latitude: -17, longitude: 179.99), to: .init(latitude: -17, longitude: -179.99),
                               start: date("2026-01-11T20:00:00Z")),
                  metadata: RouteMetadata(name: "Date line", activity: .walk)),
            Route(points: line(from: .init(latitude: 48.85, longitude: 2.35), to: .init(latitude: 48.86, longitude: 2.36),
                               count: 50, start: date("2026-02-01T09:00:00Z"))),
        ]
        #expect(try store.save(routes) == [RouteID(1), RouteID(2), RouteID(3), RouteID(4)])
        return store
    }

    static func ids(_ store: RouteStore, _ query: RouteQuery) throws -> [UInt64] {
        try store.summaries(matching: query).map(\.id.rawValue)
    }

    static func box(_ s: Double, _ w: Double, _ n: Double, _ e: Double) -> BoundingBox {
        BoundingBox(southWest: .init(latitude: s, longitude: w), northEast: .init(latitude: n, longitude: e))
    }

    @Test func datesKindsTagsAndNames() throws {
        let dir = TemporaryDirectory()
        let store = try Self.makeStore(dir)
        #expect(try Self.ids(store, RouteQuery()) == [1, 2, 3, 4])
        #expect(try Self.ids(store, RouteQuery(from: Self.date("2026-01-06T00:00:00Z"), to: Self.date("2026-02-01T09:00:00Z"))) == [2, 3])
        let interval = DateInterval(start: Self.date("2026-01-01T00:00:00Z"), end: Self.date("2026-01-07T18:00:00Z"))
        #expect(try store.summaries(in: interval).map(\.id.rawValue) == [1])
        var q = RouteQuery()
        q.activities = [.run, .ride]
        #expect(try Self.ids(store, q) == [1, 2])
        q.activities = [.custom("kayak")]
        #expect(try Self.ids(store, q).isEmpty)
        q = RouteQuery()
        q.tags = ["morning"]
        #expect(try Self.ids(store, q) == [1, 2])
        q.tags = ["morning", "commute"]
        #expect(try Self.ids(store, q) == [2])
        q = RouteQuery()
        for text in ["cafe", "CAFÉ", "fé r", "Cafe\u{0301}"] {
            q.nameContains = text
            #expect(try Self.ids(store, q) == [1], "\(text)")
        }
        q.nameContains = "e"
        #expect(try Self.ids(store, q) == [1, 2, 3])
        q.nameContains = ""
        #expect(try Self.ids(store, q) == [1, 2, 3, 4])
    }

    @Test func boundingBoxesAndTheAntimeridian() throws {
        let dir = TemporaryDirectory()
        let store = try Self.makeStore(dir)
        var q = RouteQuery()
        q.boundingBoxIntersects = Self.box(45.5, 9.0, 46, 9.5)
        #expect(try Self.ids(store, q) == [2])
        // An area across the antimeridian (west edge east of its east edge).
        q.boundingBoxIntersects = Self.box(-18, 179.5, -16, -179.5)
        #expect(try Self.ids(store, q) == [3])
        q.passesThrough = q.boundingBoxIntersects
        q.boundingBoxIntersects = nil
        #expect(try Self.ids(store, q) == [3])
        // A bounding box never wraps: the walk's spans every longitude, so a box far from
        // it meets it; its points do not pass through there.
        q.passesThrough = nil
        q.boundingBoxIntersects = Self.box(-18, 0, -16, 1)
        #expect(try Self.ids(store, q) == [3])
        q.boundingBoxIntersects = nil
        q.passesThrough = Self.box(-18, 0, -16, 1)
        #expect(try Self.ids(store, q).isEmpty)
    }

    /// The grid's answer must equal testing every point, for areas of every size: inside
    /// whole cells, on their edges, smaller than one, and crossing 180.
    @Test func passThroughAgreesWithEveryPoint() throws {
        let dir = TemporaryDirectory()
        let store = try Self.makeStore(dir)
        let routes = try (1...4).map { try store.route(RouteID(UInt64($0))) }
        var generator = SystemRandomNumberGenerator()
        var checked = 0, matched = 0
        let centres = [Self.milan, Coordinate(latitude: 45.5, longitude: 9.19), Coordinate(latitude: -17, longitude: 180),
                       Coordinate(latitude: 48.855, longitude: 2.355)]
        for _ in 0..<300 {
            let c = centres.randomElement(using: &generator)!
            let half = [0.0005, 0.005, 0.02, 0.08].randomElement(using: &generator)!
            let lat = c.latitude + Double.random(in: -0.05...0.05, using: &generator)
            var w = c.longitude + Double.random(in: -0.05...0.05, using: &generator) - half
            var e = w + 2 * half
            if w < -180 { w += 360 }
            if w > 180 { w -= 360 }
            if e > 180 { e -= 360 }
            let area = Self.box(lat - half, w, lat + half, e)
            let inside = QueryArea(area)
            let expected = routes.enumerated().filter { $0.element.points.contains { inside.contains($0) } }.map { UInt64($0.offset + 1) }
            var q = RouteQuery()
            q.passesThrough = area
            #expect(try Self.ids(store, q) == expected, "\(area)")
            checked += 1
            matched += expected.count
        }
        #expect(checked == 300 && matched > 20)
    }

    /// An area crossing 180 whose west edge lies in the grid's first column (just east of
    /// -180) leaves out a sliver of that column: a route whose cells in column 0 hold
    /// points of the sliver alone does not pass through, though such a cell is inside
    /// the area's rows and meets both its longitude ranges.
    @Test func aRouteInTheSliverAnAreaAcross180LeavesOutDoesNotPassThrough() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: .init(compaction: .manual))
        // North along -179.9935 from the equator to 12 degrees, then east along 12 degrees.
        let start = Self.date("2026-03-01T08:00:00Z")
        let north = Self.line(from: .init(latitude: 0, longitude: -179.9935), to: .init(latitude: 12, longitude: -179.9935),
                              count: 400, start: start)
        let east = Self.line(from: .init(latitude: 12, longitude: -179.9935), to: .init(latitude: 12, longitude: -179.9),
                             count: 100, start: start.addingTimeInterval(400))
        let id = try store.save(Route(points: north + east.dropFirst()))
        // Everything between 10 degrees south and north but the longitudes between
        // -179.995 and -179.99 (exclusive): the route is there or north of 10 degrees.
        let area = Self.box(-10, -179.99, 10, -179.995)
        let inside = QueryArea(area)
        #expect(try store.route(id).points.allSatisfy { !inside.contains($0) })
        var q = RouteQuery()
        q.passesThrough = area
        #expect(try Self.ids(store, q) == [])
        // With the sliver further west, the route's first points are inside.
        q.passesThrough = Self.box(-10, -179.995, 10, -179.996)
        #expect(try Self.ids(store, q) == [id.rawValue])
    }

    @Test func sortingAndPaging() throws {
        let dir = TemporaryDirectory()
        let store = try Self.makeStore(dir)
        var q = RouteQuery()
        q.sort = .distance
        q.ascending = false
        let byDistance = try store.summaries(matching: q)
        #expect(byDistance.map(\.distance) == byDistance.map(\.distance).sorted(by: >))
        #expect(byDistance.first?.id == RouteID(2))
        q.sort = .name
        q.ascending = true
        #expect(try Self.ids(store, q) == [4, 1, 3, 2])  // unnamed first, then Café, Date, Evening
        q.ascending = false
        #expect(try Self.ids(store, q) == [2, 3, 1, 4])
        q.sort = .duration
        q.ascending = true
        #expect(try Self.ids(store, q).first == 4)
        q.sort = .startDate
        q.ascending = false
        q.offset = 1
        q.limit = 2
        #expect(try Self.ids(store, q) == [3, 2])
        q.limit = 0
        #expect(try Self.ids(store, q).isEmpty)
        q.limit = .max
        q.offset = .max
        #expect(try Self.ids(store, q).isEmpty)
        q.offset = 3
        #expect(try Self.ids(store, q) == [1])
    }

    @Test func badQueriesAreRefusedByName() throws {
        let dir = TemporaryDirectory()
        let store = try Self.makeStore(dir)
        var bad: [(RouteQuery, String)] = []
        bad.append((RouteQuery(from: Self.date("2026-02-01T00:00:00Z"), to: Self.date("2026-01-01T00:00:00Z")), "inverted"))
        bad.append((RouteQuery(from: Date(timeIntervalSince1970: .nan)), "not finite"))
        var q = RouteQuery()
        q.limit = -1
        bad.append((q, "limit"))
        q = RouteQuery()
        q.offset = -5
        bad.append((q, "offset"))
        for area in [Self.box(.nan, 0, 1, 1), Self.box(0, 0, 1, .infinity), Self.box(0, 0, 91, 1), Self.box(0, -181, 1, 1), Self.box(10, 0, 5, 1)] {
            q = RouteQuery()
            q.passesThrough = area
            bad.append((q, "passesThrough"))
            q = RouteQuery()
            q.boundingBoxIntersects = area
            bad.append((q, "boundingBoxIntersects"))
        }
        for (query, word) in bad {
            #expect(throws: RouteLogError.self) { try store.summaries(matching: query) }
            do {
                _ = try store.deleteRoutes(matching: query)
                Issue.record("a bad query deleted")
            } catch let error as RouteLogError {
                #expect(error.code == .invalidArgument)
                #expect(error.message.contains(word), "\(error.message)")
            }
        }
        #expect(try store.count == 4)
        // Huge but valid dates select nothing or everything; they do not trap.
        #expect(try Self.ids(store, RouteQuery(from: Date.distantPast, to: Date.distantFuture)).count == 4)
        #expect(try Self.ids(store, RouteQuery(from: Date(timeIntervalSince1970: 1e300))).isEmpty)
        #expect(try Self.ids(store, RouteQuery(from: Self.date("2026-01-05T07:00:00Z"), to: Self.date("2026-01-05T07:00:00Z"))).isEmpty)
    }
}
