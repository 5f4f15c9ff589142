import Foundation
import Testing
@testable import RouteLog

/// Splits, moving time and duration.
@Suite struct RouteMetricsSplitsTests {
    @Test func splitsFallAtEveryKilometreAndMile() throws {
        // Due north along a meridian: each 0.001° of latitude is about 111 m.
        var points: [(Double, Double, String?)] = []
        for i in 0...30 {
            points.append((45 + Double(i) * 0.001, 7, String(format: "2024-05-01T10:%02d:%02dZ", i / 6, i % 6 * 10)))
        }
        let route = try #require(GPXImporter.read(data: GPXImportTimeAndJumpTests.gpx(points)).routes.first)
        let km = route.splits.filter { $0.unit == .kilometre }
        let miles = route.splits.filter { $0.unit == .mile }
        let total = RouteMetrics.distance(of: route.points)
        #expect(km.count == Int(total / 1000) && miles.count == Int(total / 1609.344))
        #expect(km.count == 3 && miles.count == 2)
        // The first kilometre is passed at the 9th step (9 × 111.1 m).
        #expect(km[0].pointIndex == 9)
        #expect(km[0].elapsedTime == 90)
        for split in route.splits {
            let before = RouteMetrics.distance(of: Array(route.points[...(split.pointIndex - 1)]))
            let at = RouteMetrics.distance(of: Array(route.points[...split.pointIndex]))
            let mark = Double(route.splits.filter { $0.unit == split.unit && $0.pointIndex <= split.pointIndex }.count)
                * split.unit.metres
            #expect(before < mark && at >= mark)
        }
    }

    @Test func movingTimeLeavesOutStandingStillAndBreaks() {
        let t0 = Date(timeIntervalSince1970: 1_700_000_000)
        let points = [TrackPoint(latitude: 45, longitude: 7, timestamp: t0),
                      TrackPoint(latitude: 45.001, longitude: 7, timestamp: t0 + 60),     // 111 m/min: moving
                      TrackPoint(latitude: 45.001, longitude: 7, timestamp: t0 + 660),    // 10 min still
                      TrackPoint(latitude: 45.002, longitude: 7, timestamp: t0 + 720),    // break: not counted
                      TrackPoint(latitude: 45.003, longitude: 7, timestamp: t0 + 780)]    // moving
        #expect(RouteMetrics.movingTime(of: points, segmentStarts: [3]) == 120)
        #expect(RouteMetrics.duration(of: points) == 780)
    }

    @Test func aStepThatCrossesSeveralMarksGivesOneSplitPerMark() {
        let t0 = Date(timeIntervalSince1970: 1_700_000_000)
        let points = [TrackPoint(latitude: 0, longitude: 0, timestamp: t0),
                      TrackPoint(latitude: 0.03, longitude: 0, timestamp: t0 + 600)]  // about 3.3 km
        let splits = RouteMetrics.splits(of: points)
        #expect(splits.filter { $0.unit == .kilometre }.map(\.pointIndex) == [1, 1, 1])
        #expect(splits.filter { $0.unit == .mile }.map(\.pointIndex) == [1, 1])
        #expect(splits.allSatisfy { $0.elapsedTime == 600 })
        #expect(RouteMetrics.splits(of: points, segmentStarts: [1]).isEmpty, "a break is not travelled")
    }

    @Test func emptyAndSinglePointRoutesMeasureZero() {
        let one = [TrackPoint(latitude: 1, longitude: 2, timestamp: Date(timeIntervalSince1970: 5))]
        for points in [[], one] {
            let measures = RouteMetrics.measure(Route(points: points))
            #expect(measures == RouteMeasures(distance: 0, duration: 0, movingTime: 0, splits: []))
            #expect(measures.averageSpeed == 0 && measures.movingSpeed == 0)
        }
    }
}
