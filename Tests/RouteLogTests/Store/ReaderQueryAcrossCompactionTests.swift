import Foundation
import Testing
@testable import RouteLog

/// Reads of a read-only handle whose segment descriptors the cache closed, after the
/// writer's compaction removed the segments the handle knows: a pass-through query that
/// must read a route's points, the unfinished recordings and verify() read the records
/// where the compaction put them, as ``RouteStore/route(_:)`` reads a route, instead of
/// failing on (or reporting as damage) the removed files, again at every retry until a
/// refresh.
@Suite struct ReaderQueryAcrossCompactionTests {
    /// A tiny area around the middle point of `route`: its grid cells only meet the area's
    /// edge and neither end of the route is in it, so only the points can tell.
    static func areaAroundTheMiddle(of route: Route) -> BoundingBox {
        let middle = route.points[route.points.count / 2]
        let half = 0.00001
        return BoundingBox(southWest: Coordinate(latitude: middle.latitude - half, longitude: middle.longitude - half),
                           northEast: Coordinate(latitude: middle.latitude + half, longitude: middle.longitude + half))
    }

    @Test func aQueryReadingPointsFollowsACompactionOfTheSegmentsItKnew() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url, options: .smallSegmentsRewrittenEveryTime)
        var routes: [RouteID: Route] = [:]
        for seed in 1...24 {
            let route = Fixtures.sampleWalk(seed: UInt64(seed), points: 150)
            routes[try writer.save(route)] = route
        }
        var readOptions = RouteStore.Options(mode: .readOnly)
        readOptions.openSegmentFileLimit = 1  // descriptors closed: removed segments are met by name
        let reader = try RouteStore(at: url, options: readOptions)
        #expect(reader.state.withLock { $0.segments.segments.count } > 3)

        let target = try #require(routes.keys.min())
        var query = RouteQuery()
        query.passesThrough = Self.areaAroundTheMiddle(of: routes[target]!)
        #expect(try reader.summaries(matching: query).map(\.id) == [target])

        // The last segment read stays open; the target's, an older one, is closed.
        _ = try reader.route(try #require(routes.keys.max()))
        // Every other route deleted: each segment gives bytes back, and is rewritten.
        let deleted = routes.keys.sorted().enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        for id in deleted { try writer.delete(id) }
        #expect(try writer.compact().segmentsSkipped.isEmpty)
        for attempt in 1...2 {
            #expect(try reader.summaries(matching: query).map(\.id) == [target], "attempt \(attempt)")
        }
        #expect(try reader.count == routes.count - deleted.count, "the query read the store the compaction made")
        try reader.close()
        try writer.close()
    }

    /// The unfinished recordings a read-only handle lists, after the writer's compaction
    /// removed the segment (closed by the handle's cache) holding their chunks.
    @Test func unfinishedRecordingsFollowACompactionOfTheSegmentsTheHandleKnew() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url, options: .smallSegmentsRewrittenEveryTime)
        let walk = Fixtures.sampleWalk(seed: 99, points: 120)
        let recorder = try writer.startRecording(flushPolicy: .manual)
        try recorder.append(Array(walk.points.prefix(60)))
        try recorder.flush()
        var saved: [RouteID] = []
        for seed in 1...16 { saved.append(try writer.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 150))) }
        var readOptions = RouteStore.Options(mode: .readOnly)
        readOptions.openSegmentFileLimit = 1
        let reader = try RouteStore(at: url, options: readOptions)
        let before = try reader.unfinishedRecordings()
        #expect(before.map(\.points.count) == [60])
        _ = try reader.route(try #require(saved.last))  // the recording's segment is closed
        for (i, id) in saved.enumerated() where i % 2 == 1 { try writer.delete(id) }
        #expect(try writer.compact().segmentsCompacted > 0)
        for attempt in 1...2 {
            #expect(try reader.unfinishedRecordings().map(\.points) == before.map(\.points), "attempt \(attempt)")
        }
        try recorder.discard()
        try reader.close()
        try writer.close()
    }

    /// verify() on a read-only handle after the writer's compaction removed segments the
    /// handle knew (their descriptors closed by its cache): a sound store is no problem.
    @Test func verifyAfterACompactionOfTheSegmentsTheHandleKnewFindsNoProblem() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url, options: .smallSegmentsRewrittenEveryTime)
        var saved: [RouteID] = []
        for seed in 1...16 { saved.append(try writer.save(Fixtures.sampleWalk(seed: UInt64(seed), points: 150))) }
        var readOptions = RouteStore.Options(mode: .readOnly)
        readOptions.openSegmentFileLimit = 1
        let reader = try RouteStore(at: url, options: readOptions)
        for (i, id) in saved.enumerated() where i % 2 == 1 { try writer.delete(id) }
        #expect(try writer.compact().segmentsCompacted > 0)
        let report = try reader.verify()
        #expect(report.problems.isEmpty, "\(report.problems.prefix(3))")
        try reader.close()
        try writer.close()
    }
}
