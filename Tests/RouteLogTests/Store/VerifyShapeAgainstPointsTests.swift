import Foundation
import Testing
@testable import RouteLog

/// A segment's RoutePut whose shape disagrees with its own points (a file from
/// elsewhere, or bytes changed with their checksum made again): listing, totals and
/// queries read the shape, so verify checks every field of it that the points give,
/// and reports the route as damaged at its record. The store's other routes verify clean.
@Suite struct VerifyShapeAgainstPointsTests {
    static let changes: [(String, @Sendable (inout RouteShape) -> Void)] = [
        ("duration", { $0.durationMs += 1000 }),
        ("first time", { $0.firstMs += 1 }),
        ("point count", { $0.pointCount += 1 }),
        ("south edge", { $0.south -= 1 }),
        ("east edge", { $0.east += 1 }),
        ("start latitude", { $0.startLat += 1 }),
        ("start longitude", { $0.startLon -= 1 }),
        ("end latitude", { $0.endLat -= 1 }),
        ("end longitude", { $0.endLon += 1 }),
    ]

    @Test func aShapeThatDisagreesWithItsPointsIsReported() throws {
        for (label, change) in Self.changes {
            let dir = TemporaryDirectory()
            let url = try ForgedRouteStore.make(dir, route: Fixtures.sampleWalk(seed: 8, points: 40), withIndex: false) { record in
                change(&record.shape)
            }
            let writer = try RouteStore(at: url, options: .init(compaction: .manual))
            let other = try writer.save(Fixtures.sampleWalk(seed: 9, points: 25))
            try writer.close()
            let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
            let problems = try reader.verify().problems
            #expect(problems.map(\.kind) == [.damagedRoute], "\(label): \(problems.map(\.message))")
            #expect(problems.first?.routeID == RouteID(1), "\(label)")
            #expect(problems.first?.offset == Int64(FormatConstants.fileHeaderSize), "\(label)")
            #expect(problems.first?.path.hasSuffix(FormatConstants.segmentName(1)) == true, "\(label)")
            #expect(try reader.route(other).points.count == 25, "\(label)")
            try reader.close()
        }
    }

    /// The distance is left alone: a save measures it on the app's points, before they
    /// are quantized, so the stored points give a slightly different one.
    @Test func aDistanceOtherThanThePointsGiveIsNoDamage() throws {
        let dir = TemporaryDirectory()
        let url = try ForgedRouteStore.make(dir, route: Fixtures.sampleWalk(seed: 8, points: 40), withIndex: false) { record in
            record.shape.distance += 0.5
        }
        try RouteStore(at: url, options: .init(compaction: .manual)).close()  // writes the index
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        let problems = try reader.verify().problems
        #expect(problems.isEmpty, "\(problems.map(\.message))")
        try reader.close()
    }
}
