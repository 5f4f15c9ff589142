import Foundation
import Testing
@testable import RouteLog

/// Every real GPX file imports with the outcome the README documents (Interchange: "What each real fixture gives").
@Suite struct GPXImportFixtureTests {
    struct Expected: Sendable, CustomStringConvertible {
        var file: String
        var pointsPerRoute: [Int]
        var breaks: Int = 0                // segment starts in the first route
        var waypoints: Int = 0
        var emptyPaths: Int = 0
        var emptySegments: Int = 0
        var untimedRoutes: Int = 0
        var jumps: Int = 0
        var unknownExtensions: Int? = nil
        var description: String { file }
    }

    static let expectations: [Expected] = [
        Expected(file: "commons-dost__1651066759000.gpx", pointsPerRoute: [1655], unknownExtensions: 4970),
        Expected(file: "commons-dost__sample_broken_1.gpx", pointsPerRoute: [1], unknownExtensions: 1),
        Expected(file: "dougfales__big.gpx", pointsPerRoute: [7968], breaks: 32, jumps: 1),
        Expected(file: "dougfales__one_segment_no_time.gpx", pointsPerRoute: [189], untimedRoutes: 1),
        Expected(file: "dougfales__tracks.gpx", pointsPerRoute: [389, 299, 861], breaks: 3, jumps: 7),
        Expected(file: "dougfales__waypoints.gpx", pointsPerRoute: [], waypoints: 18),
        Expected(file: "georust__ecology-trail-and-lovers-lane-loop.gpx", pointsPerRoute: [139], untimedRoutes: 1),
        Expected(file: "georust__garmin-activity.gpx", pointsPerRoute: [988], emptyPaths: 1),
        Expected(file: "georust__garmin_with_extensions.gpx", pointsPerRoute: [3540], breaks: 1, unknownExtensions: 1),
        Expected(file: "gpsbabel__dg100.gpx", pointsPerRoute: [12027], breaks: 4, jumps: 4),
        Expected(file: "gpsbabel__sbn-v13.gpx", pointsPerRoute: [3453]),
        Expected(file: "gpxgo__visnjan.gpx", pointsPerRoute: [413], waypoints: 2),
        Expected(file: "gpxpy__cerknicko-jezero.gpx", pointsPerRoute: [173, 52, 2, 44, 2, 2, 21], waypoints: 7,
                 emptyPaths: 1, emptySegments: 1),
        Expected(file: "gpxpy__korita-zbevnica.gpx", pointsPerRoute: [358, 176, 337], waypoints: 2, emptyPaths: 1,
                 emptySegments: 1, untimedRoutes: 1),
        Expected(file: "gpxpy__track-with-empty-segment.gpx", pointsPerRoute: [9], emptySegments: 1),
        Expected(file: "jpx__Gpx-full-sample.gpx", pointsPerRoute: [2747]),
        Expected(file: "jpx__ISSUE-151.gpx", pointsPerRoute: [156, 200, 240, 32, 44, 60, 220, 132, 40, 16],
                 untimedRoutes: 10),
    ]

    @Test func everyFixtureFileHasAnExpectation() throws {
        let committed = try FileManager.default.contentsOfDirectory(atPath: InterchangeFixtures.gpxDirectory.path)
            .filter { $0.hasSuffix(".gpx") }
        let expected = Set(Self.expectations.map(\.file))
        for file in committed { #expect(expected.contains(file), "\(file) has no documented outcome") }
        #expect(!committed.contains { $0.hasPrefix("gpsbabel__") }, "GPL files must not be committed")
    }

    @Test(arguments: expectations)
    func importsWithItsDocumentedOutcome(_ expected: Expected) throws {
        if expected.file.hasPrefix("gpsbabel__") && !InterchangeFixtures.sharedDataAvailable { return }
        let result = try GPXImporter.read(contentsOf: InterchangeFixtures.gpx(expected.file))
        let report = result.report
        #expect(result.routes.map(\.points.count) == expected.pointsPerRoute)
        #expect(report.routeCount == expected.pointsPerRoute.count)
        #expect(report.pointCount == expected.pointsPerRoute.reduce(0, +))
        #expect(result.routes.first?.segmentStarts.count ?? 0 == expected.breaks)
        #expect(report.waypointsSkipped == expected.waypoints)
        #expect(report.emptyPathsSkipped == expected.emptyPaths)
        #expect(report.emptySegmentsSkipped == expected.emptySegments)
        #expect(report.untimedRoutes == expected.untimedRoutes)
        #expect(report.jumpsBroken == expected.jumps)
        if let unknown = expected.unknownExtensions { #expect(report.unknownExtensionsSkipped == unknown) }
        for route in result.routes {
            let measures = RouteMetrics.measure(route)
            #expect(measures.distance.isFinite && measures.movingTime.isFinite)
            #expect(route.points.allSatisfy { GPXImportOptions.isValidTime($0.timestamp.timeIntervalSince1970) })
            #expect(route.segmentStarts == route.segmentStarts.sorted())
            #expect(route.segmentStarts.allSatisfy { $0 > 0 && $0 < route.points.count })
        }
        if expected.pointsPerRoute.isEmpty { #expect(report.notes.contains { $0.contains("nothing imported") }) }
    }

    @Test func garminHeartRateAndCadenceAreKept() throws {
        let route = try #require(GPXImporter.read(contentsOf: InterchangeFixtures.gpx("georust__garmin-activity.gpx")).routes.first)
        #expect(route.points.allSatisfy { $0.heartRate != nil && $0.cadence != nil })
        #expect(route.metadata.name == "casual stroll")
        // Up to 29 decimals in the file: read as the nearest double.
        #expect(abs(route.points[0].latitude - 37.24173816852271556854248046875) < 1e-12)
    }

    @Test func gpxdataHeartRateCadenceAndMillisecondsAreKept() throws {
        let route = try #require(GPXImporter.read(contentsOf: InterchangeFixtures.gpx("commons-dost__1651066759000.gpx")).routes.first)
        #expect(route.points[0].heartRate == 150)
        #expect(route.points.allSatisfy { $0.cadence != nil })
        let millis = route.points.map { Int(($0.timestamp.timeIntervalSince1970 * 1000).rounded()) % 1000 }
        #expect(millis.contains { $0 != 0 }, "the file's .370Z-style milliseconds are kept")
    }

    @Test func zeroHeartRateIsASensorDropoutAndEleWinsOverAlt() throws {
        let point = try #require(GPXImporter.read(contentsOf: InterchangeFixtures.gpx("commons-dost__sample_broken_1.gpx")).routes.first?.points.first)
        #expect(point.heartRate == nil)
        #expect(point.altitude == 568)
    }

    @Test(.enabled(if: InterchangeFixtures.sharedDataAvailable,
                   "needs ../shared/data/gpx (GPL GPSBabel fixtures are never copied into the project)"))
    func gpx10SpeedCourseAndMillisecondsAreKept() throws {
        let route = try #require(GPXImporter.read(contentsOf: InterchangeFixtures.gpx("gpsbabel__sbn-v13.gpx")).routes.first)
        #expect(route.points[0].speed == 12.05)
        #expect(route.points[0].course == 338.779999)
        #expect(ISO8601Time.format(route.points[0].timestamp) == "2010-02-01T12:31:38.545Z")
    }

    @Test func untimedTrackTakesTheFileTimeWhenItHasOne() throws {
        let result = try GPXImporter.read(contentsOf: InterchangeFixtures.gpx("gpxpy__korita-zbevnica.gpx"))
        let untimed = result.routes[0]
        #expect(untimed.points.allSatisfy { ISO8601Time.format($0.timestamp) == "2010-10-04T05:13:19.000Z" })
        #expect(RouteMetrics.duration(of: untimed.points) == 0)
        #expect(untimed.splits.allSatisfy { $0.elapsedTime == 0 })
        #expect(result.report.notes.contains("1 route(s) without any time: every point dated 2010-10-04T05:13:19.000Z"))
    }

    @Test func aTwelveThousandKilometreJumpIsABreakNotDistance() throws {
        let result = try GPXImporter.read(contentsOf: InterchangeFixtures.gpx("dougfales__tracks.gpx"))
        let second = result.routes[1]
        let counted = RouteMetrics.distance(of: second.points, segmentStarts: second.segmentStarts)
        #expect(counted < 50_000)
        var keep = GPXImportOptions()
        keep.breaksJumps = false
        let raw = try GPXImporter.read(contentsOf: InterchangeFixtures.gpx("dougfales__tracks.gpx"), options: keep)
        #expect(RouteMetrics.distance(of: raw.routes[1].points, segmentStarts: raw.routes[1].segmentStarts) > 12_000_000)
    }
}
