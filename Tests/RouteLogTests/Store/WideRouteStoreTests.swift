import Foundation
import Testing
@testable import RouteLog

/// Routes an app can save whose shape is past what an index row packs: a duration of
/// 2^37 ms (about 4 years 4 months) or more. The index keeps their shape beside the row
/// (``RouteTable/Row``); every read of a store (listing, queries by date, box and area,
/// totals, statistics, loading, verify) sees the route as saved, through a neighbour's
/// delete (the last row moved into the hole), edits, reopening, an index rewritten at
/// close, a compaction and a rebuild from the segments.
@Suite struct WideRouteStoreTests {
    static let packedDurationLimit: Int64 = 1 << 37

    /// A route of three points in an area no walk goes near, from `startMs` lasting
    /// `durationMs` (whole ms, so that the stored times are exact).
    static func longRoute(startMs: Int64, durationMs: Int64, latitude: Double, name: String) -> Route {
        func date(_ ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1000) }
        let points = [
            TrackPoint(latitude: latitude, longitude: 100.0, timestamp: date(startMs)),
            TrackPoint(latitude: latitude + 0.01, longitude: 100.01, timestamp: date(startMs + durationMs / 2)),
            TrackPoint(latitude: latitude + 0.02, longitude: 100.0, timestamp: date(startMs + durationMs)),
        ]
        return Route(points: points, metadata: RouteMetadata(name: name))
    }

    static let start: Int64 = 978_307_200_000  // 2001-01-01
    /// Duration of each long route, and the latitude it lies at.
    static let long: [(durationMs: Int64, latitude: Double)] = [
        (packedDurationLimit - 1, 10),  // the longest a row packs
        (packedDurationLimit, 20),  // the shortest it does not
        (packedDurationLimit * 3 + 12_345, 30),  // about 13 years
    ]

    static func box(latitude: Double) -> BoundingBox {
        BoundingBox(southWest: Coordinate(latitude: latitude - 0.5, longitude: 99.5),
                    northEast: Coordinate(latitude: latitude + 0.5, longitude: 100.5))
    }

    /// Every read of `store` agrees with `expected` (id → duration in ms, start in ms,
    /// latitude) for the long routes, and lists `others` walks beside them.
    static func check(_ store: RouteStore, _ expected: [RouteID: (durationMs: Int64, startMs: Int64, latitude: Double)], others: Int,
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        let summaries = try store.summaries()
        #expect(summaries.count == expected.count + others, sourceLocation: sourceLocation)
        for (id, e) in expected {
            let s = try store.summary(id)
            #expect(s.duration == Double(e.durationMs) / 1000, "duration of \(id)", sourceLocation: sourceLocation)
            #expect(s.startDate == Quantization.date(milliseconds: e.startMs), "start of \(id)", sourceLocation: sourceLocation)
            #expect(s.pointCount == 3, sourceLocation: sourceLocation)
            #expect(abs(s.startCoordinate.latitude - e.latitude) < 1e-6, sourceLocation: sourceLocation)
            #expect(abs(s.boundingBox.northEast.latitude - (e.latitude + 0.02)) < 1e-6, sourceLocation: sourceLocation)
            #expect(summaries.first { $0.id == id } == s, sourceLocation: sourceLocation)
            // Queries read boxes and starts from the rows.
            var byBox = RouteQuery()
            byBox.boundingBoxIntersects = box(latitude: e.latitude)
            #expect(try store.summaries(matching: byBox).map(\.id) == [id], "box of \(id)", sourceLocation: sourceLocation)
            var through = RouteQuery()
            through.passesThrough = box(latitude: e.latitude)
            #expect(try store.summaries(matching: through).map(\.id) == [id], "area of \(id)", sourceLocation: sourceLocation)
            let startDate = Quantization.date(milliseconds: e.startMs)
            let around = try store.summaries(in: DateInterval(start: startDate, duration: 1))
            #expect(around.map(\.id).contains(id), "date of \(id)", sourceLocation: sourceLocation)
            let loaded = try store.route(id)
            #expect(loaded.points.count == 3, sourceLocation: sourceLocation)
            #expect(Quantization.milliseconds(loaded.points[2].timestamp) - Quantization.milliseconds(loaded.points[0].timestamp)
                    == e.durationMs, sourceLocation: sourceLocation)
        }
        // Totals and statistics, from the rows, against the listing.
        let totals = try store.totals()
        #expect(totals.routeCount == summaries.count, sourceLocation: sourceLocation)
        #expect(abs(totals.duration - summaries.reduce(0) { $0 + $1.duration }) < 1e-3, sourceLocation: sourceLocation)
        let weekly = try store.weeklyTotals()
        #expect(abs(weekly.reduce(0) { $0 + $1.totals.duration } - totals.duration) < 1e-3, sourceLocation: sourceLocation)
        #expect(try store.statistics().points == summaries.reduce(0) { $0 + $1.pointCount }, sourceLocation: sourceLocation)
    }

    @Test func aRouteLongerThanARowPacksWorksThroughout() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let options = RouteStore.Options.rewritingEverySegment
        let store = try RouteStore(at: url, options: options)
        // Walks first, the long routes last: deleting a walk moves a long route's row.
        var walks: [RouteID] = []
        for seed in 1...4 { walks.append(try store.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 30))) }
        var expected: [RouteID: (durationMs: Int64, startMs: Int64, latitude: Double)] = [:]
        for (i, long) in Self.long.enumerated() {
            let startMs = Self.start + Int64(i) * 86_400_000
            let id = try store.save(Self.longRoute(startMs: startMs, durationMs: long.durationMs, latitude: long.latitude, name: "Long \(i)"))
            expected[id] = (long.durationMs, startMs, long.latitude)
        }
        try Self.check(store, expected, others: 4)
        // A walk deleted: the last row (a long route) moves into its hole.
        try store.delete(walks[0])
        try Self.check(store, expected, others: 3)
        // Moved in time and back; renamed.
        let ids = expected.keys.sorted()
        _ = try store.edit(ids[2], RouteEdit(shift: 86_400))
        expected[ids[2]]!.startMs += 86_400_000
        try Self.check(store, expected, others: 3)
        _ = try store.edit(ids[1], RouteEdit(shift: -3600, name: "Moved"))
        expected[ids[1]]!.startMs -= 3_600_000
        _ = try store.edit(ids[1], RouteEdit(shift: 3600))
        expected[ids[1]]!.startMs += 3_600_000
        try Self.check(store, expected, others: 3)
        let before = try store.summaries()
        try store.close()

        // Reopened from the index the writer appended to.
        try InvalidUTF8IndexTests.expectReopenedFromItsIndex(url, listing: before) { try Self.check($0, expected, others: 3) }

        // Compacted: the segments and index written again.
        let writer = try RouteStore(at: url, options: options)
        try writer.delete(walks[1])
        _ = try writer.compact()
        try Self.check(writer, expected, others: 2)
        let compacted = try writer.summaries()
        try writer.close()
        try InvalidUTF8IndexTests.expectReopenedFromItsIndex(url, listing: compacted)

        // Rebuilt from the segments alone, then written by a writer's open.
        try removeIndexFiles(of: url)
        let rebuilt = try RouteStore(at: url, options: options)
        #expect(InvalidUTF8IndexTests.indexState(rebuilt).rebuilt)
        try Self.check(rebuilt, expected, others: 2)
        #expect(try rebuilt.summaries() == compacted)
        try rebuilt.close()
        let last = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(InvalidUTF8IndexTests.indexState(last) == (false, false))
        try Self.check(last, expected, others: 2)
        #expect(try last.verify().problems.isEmpty)
        try last.close()
    }

    /// Enough long routes that a close rewrites the index into runs (records appended
    /// one by one piled up): the runs hold the wide shapes as saved.
    @Test func anIndexRewrittenAtCloseKeepsWideShapes() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let store = try RouteStore(at: url, options: .init(durability: .ordered, compaction: .manual),
                                   fileSystem: InterceptingFileSystem.unsynced())
        var expected: [RouteID: (durationMs: Int64, startMs: Int64, latitude: Double)] = [:]
        let count = StoreWriter.sprawlingRecords + 10
        var routes: [Route] = []
        for i in 0..<count {
            let startMs = Self.start + Int64(i) * 60_000
            let durationMs = Self.packedDurationLimit + Int64(i) * 1000 - 500_000
            routes.append(Self.longRoute(startMs: startMs, durationMs: durationMs, latitude: 10 + Double(i % 60), name: "Long \(i)"))
            expected[RouteID(UInt64(i + 1))] = (durationMs, startMs, 0)
        }
        // Saved one by one: one index record each.
        var ids: [RouteID] = []
        for route in routes { ids.append(try store.save(route)) }
        #expect(ids == expected.keys.sorted())
        let before = try store.summaries()
        #expect(before.map { Int64(($0.duration * 1000).rounded()) } == expected.keys.sorted().map { expected[$0]!.durationMs })
        let appendedTo = try IndexRewriteAtCloseTests.indexNumber(url)
        try store.close()
        #expect(try IndexRewriteAtCloseTests.indexNumber(url) != appendedTo, "the close rewrote the index")
        #expect(try IndexPutRunTests.indexRecordTypes(url).allSatisfy { $0 == FormatConstants.RecordType.indexPutRun.rawValue })
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(InvalidUTF8IndexTests.indexState(reader) == (false, false))
        #expect(try reader.summaries() == before)
        #expect(try reader.statistics().points == 3 * count)
        #expect(try reader.verify().problems.isEmpty)
        try reader.close()
    }
}
