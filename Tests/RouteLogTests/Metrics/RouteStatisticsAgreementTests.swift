import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// The distance and moving time a save measures in its one pass equal RouteMetrics' to
/// the bit, and the fast short-step formula stays on the exact one.
@Suite struct RouteStatisticsAgreementTests {
    static func statistics(_ route: Route) throws -> RouteStatistics {
        try #require(try PointColumns(route.points, validating: true, measuring: route.segmentStarts).statistics)
    }

    @Test func distanceAndMovingTimeEqualRouteMetrics() throws {
        var routes: [Route] = (1...6).map { Fixtures.sampleWalk(seed: UInt64($0), points: 400 * $0) }
        // Random points jump across the globe (Vincenty and the antipodal solver, slow in
        // a debug build): a few of them, beside the walks' short steps.
        var random = RandomRoutes(seed: 11)
        for _ in 0..<12 { routes.append(random.next()) }
        var withBreaks = Fixtures.sampleWalk(seed: 9, points: 3000)
        withBreaks.segmentStarts = [1, 2, 500, 501, 1999, 2999]
        routes.append(withBreaks)
        for route in routes {
            let s = try Self.statistics(route)
            #expect(s.distance == RouteMetrics.distance(of: route.points, segmentStarts: route.segmentStarts))
            #expect(s.movingTime == RouteMetrics.movingTime(of: route.points, segmentStarts: route.segmentStarts))
        }
    }

    @Test func theShapeEqualsTheShapeOfThePoints() throws {
        var random = RandomRoutes(seed: 5)
        let walks = (1...3).map { Fixtures.sampleWalk(seed: UInt64($0), points: 900) }
        for route in walks + (0..<12).map({ _ in random.next() }) {
            let encoded = try RouteEncoder.encode(route, version: 2)
            #expect(encoded.shape == RouteShape(points: route.points, segmentStarts: route.segmentStarts))
            #expect(try RouteCodec.decodePoints(encoded.pointBlock[...]) == RouteCodec.quantize(route).points)
        }
    }

    @Test func theShortStepScaleStaysOnTheExactFormula() {
        var g = SeededGenerator(state: 8)
        var worst = 0.0
        for i in 0...18_000 {
            let latitude = -90 + Double(i) * 0.01
            let dLat = Double.random(in: -0.02...0.02, using: &g), dLon = Double.random(in: -0.02...0.02, using: &g)
            let fast = Geodesic.shortDistance(dLat, dLon, midLatitude: latitude)
            let exact = Geodesic.exactShortDistance(dLat, dLon, midLatitude: latitude)
            worst = max(worst, abs(fast - exact) / max(exact, 1e-9))
        }
        // The exact short-step formula is itself within 3e-7 of the true geodesic.
        #expect(worst < 1e-12, "largest relative difference \(worst)")
    }
}
