import Foundation
import Testing
@testable import RouteLog

/// The defined behaviour for missing, partial, repeated and jumping times.
@Suite struct GPXImportTimeAndJumpTests {
    static func gpx(_ points: [(lat: Double, lon: Double, time: String?)], fileTime: String? = nil,
                    version: String = "1.1") -> Data {
        var text = "<?xml version=\"1.0\"?>\n<gpx version=\"\(version)\" creator=\"test\" "
            + "xmlns=\"http://www.topografix.com/GPX/\(version == "1.0" ? "1/0" : "1/1")\">\n"
        if let fileTime { text += "<metadata><time>\(fileTime)</time></metadata>\n" }
        text += "<trk><trkseg>\n"
        for p in points {
            text += "<trkpt lat=\"\(p.lat)\" lon=\"\(p.lon)\">"
            if let time = p.time { text += "<time>\(time)</time>" }
            text += "</trkpt>\n"
        }
        text += "</trkseg></trk></gpx>\n"
        return Data(text.utf8)
    }

    @Test func aTrackWithoutTimesGetsTheDefaultDateOnEveryPoint() throws {
        let data = Self.gpx([(47, 11, nil), (47.001, 11, nil), (47.002, 11, nil)])
        let result = try GPXImporter.read(data: data)
        let route = try #require(result.routes.first)
        #expect(route.points.allSatisfy { $0.timestamp == Date(timeIntervalSince1970: 0) })
        #expect(result.report.untimedRoutes == 1)
        let measures = RouteMetrics.measure(route)
        #expect(measures.duration == 0 && measures.movingTime == 0 && measures.averageSpeed == 0)
        #expect(measures.distance > 200)
    }

    @Test func theUntimedDateCanBeChosen() throws {
        var options = GPXImportOptions()
        options.untimedDate = Date(timeIntervalSince1970: 1_700_000_000)
        let route = try #require(GPXImporter.read(data: Self.gpx([(47, 11, nil)]), options: options).routes.first)
        #expect(route.points[0].timestamp == options.untimedDate)
    }

    @Test func missingTimesAreInterpolatedBetweenNeighboursAndHeldAtTheEnds() throws {
        let data = Self.gpx([(47, 11, nil), (47.0001, 11, "2024-05-01T10:00:00Z"), (47.0002, 11, nil),
                             (47.0003, 11, nil), (47.0004, 11, "2024-05-01T10:00:30Z"), (47.0005, 11, nil)])
        let result = try GPXImporter.read(data: data)
        let times = try #require(result.routes.first).points.map { ISO8601Time.format($0.timestamp) }
        #expect(times == ["2024-05-01T10:00:00.000Z", "2024-05-01T10:00:00.000Z", "2024-05-01T10:00:10.000Z",
                          "2024-05-01T10:00:20.000Z", "2024-05-01T10:00:30.000Z", "2024-05-01T10:00:30.000Z"])
        #expect(result.report.interpolatedTimes == 4)
    }

    @Test func oneTimedPointAmongUntimedOnesDatesThemAll() throws {
        for timed in 0..<3 {
            let points = (0..<3).map { i in (lat: 47 + Double(i) / 1000, lon: 11.0, time: i == timed ? "2024-01-01T10:00:00Z" : nil) }
            let route = try #require(GPXImporter.read(data: Self.gpx(points)).routes.first)
            #expect(route.points.allSatisfy { $0.timestamp == Date(timeIntervalSince1970: 1_704_103_200) }, "timed point \(timed)")
        }
    }

    @Test func repeatedTimestampsAreKeptAndNeverDivideByZero() throws {
        let data = Self.gpx([(47, 11, "2024-05-01T10:00:00Z"), (47.0001, 11, "2024-05-01T10:00:00Z"),
                             (47.0002, 11, "2024-05-01T10:00:00Z")])
        let route = try #require(GPXImporter.read(data: data).routes.first)
        let measures = RouteMetrics.measure(route)
        #expect(measures.distance > 20)
        #expect(measures.movingTime == 0)
        #expect(measures.movingSpeed == 0 && measures.averageSpeed == 0)
        #expect(route.segmentStarts.isEmpty, "short steps are never jumps")
    }

    @Test func gapsAndImpossibleJumpsBecomeBreaks() throws {
        let data = Self.gpx([(47, 11, "2024-05-01T10:00:00Z"), (47.001, 11, "2024-05-01T10:00:10Z"),
                             (10, 100, "2024-05-01T10:00:20Z"),    // 7,000 km in 10 s
                             (10.001, 100, "2024-05-01T10:00:30Z"),
                             (10.002, 100, "2024-05-01T13:00:30Z"),  // three hours later
                             (10.003, 100, "2024-05-01T13:00:40Z")])
        let result = try GPXImporter.read(data: data)
        let route = try #require(result.routes.first)
        #expect(route.segmentStarts == [2, 4])
        #expect(result.report.jumpsBroken == 2)
        let metres = RouteMetrics.distance(of: route.points, segmentStarts: route.segmentStarts)
        #expect(metres > 300 && metres < 400)
    }

    @Test func timesWithZonesAndFractionsAreUTCMilliseconds() throws {
        let data = Self.gpx([(47, 11, "2024-05-01T12:00:00.123+02:00"), (47, 11, "2024-05-01T10:00:01.5")])
        let times = try #require(GPXImporter.read(data: data).routes.first).points.map { ISO8601Time.format($0.timestamp) }
        #expect(times == ["2024-05-01T10:00:00.123Z", "2024-05-01T10:00:01.500Z"])
    }

    @Test func plannedRoutesBesideTracksAreSkippedUnlessAskedFor() throws {
        let text = """
            <?xml version="1.0"?>
            <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">
            <wpt lat="1" lon="1"/>
            <rte><name>plan</name><rtept lat="1" lon="1"/><rtept lat="1.01" lon="1"/></rte>
            <trk><name>walk</name><trkseg><trkpt lat="1" lon="1"><time>2024-01-01T00:00:00Z</time></trkpt></trkseg></trk>
            </gpx>
            """
        let plain = try GPXImporter.read(data: Data(text.utf8))
        #expect(plain.routes.map(\.metadata.name) == ["walk"])
        #expect(plain.report.plannedRoutesSkipped == 1 && plain.report.waypointsSkipped == 1)
        #expect(plain.report.notes.contains { $0.contains("planned route") })
        var options = GPXImportOptions()
        options.importsPlannedRoutesBesideTracks = true
        let both = try GPXImporter.read(data: Data(text.utf8), options: options)
        #expect(both.routes.map(\.metadata.name) == ["plan", "walk"])
        #expect(both.routes[0].points.allSatisfy { $0.timestamp == Date(timeIntervalSince1970: 0) })
    }

    /// Five route points about 2.2 km apart, no times: a planned route.
    static let plannedRoute = """
        <?xml version="1.0"?>
        <gpx version="1.1" creator="planner" xmlns="http://www.topografix.com/GPX/1/1">
        <rte><name>plan</name>
        <rtept lat="47.0" lon="8.0"/><rtept lat="47.02" lon="8.0"/><rtept lat="47.04" lon="8.0"/>
        <rtept lat="47.06" lon="8.0"/><rtept lat="47.0605" lon="8.0"/>
        </rte></gpx>
        """

    @Test func anUntimedPlannedRouteGetsNoBreaksAndItsFullDistance() throws {
        let result = try GPXImporter.read(data: Data(Self.plannedRoute.utf8))
        let route = try #require(result.routes.first)
        #expect(route.segmentStarts.isEmpty)
        #expect(result.report.jumpsBroken == 0)
        let full = (1..<route.points.count).reduce(0.0) { $0 + Geodesic.distance(route.points[$1 - 1].coordinate, route.points[$1].coordinate) }
        #expect(full > 6600)
        #expect(RouteMetrics.distance(of: route.points, segmentStarts: route.segmentStarts) == full)
        #expect(route.splits.filter { $0.unit == .kilometre }.count == Int(full / 1000))
    }

    @Test func anUntimedRecordedTrackGetsNoBreaksAndItsFullDistance() throws {
        let result = try GPXImporter.read(contentsOf: InterchangeFixtures.gpx("dougfales__one_segment_no_time.gpx"))
        let route = try #require(result.routes.first)
        #expect(route.segmentStarts.isEmpty && result.report.jumpsBroken == 0)
        let full = (1..<route.points.count).reduce(0.0) { $0 + Geodesic.distance(route.points[$1 - 1].coordinate, route.points[$1].coordinate) }
        #expect(RouteMetrics.distance(of: route.points, segmentStarts: route.segmentStarts) == full)
    }

    @Test func anExportedPlannedRouteComesBackWithoutBreaks() throws {
        // The export writes the route's one date on every point: times that never
        // change say nothing about speed, so the jump rule has nothing to judge.
        let planned = try #require(GPXImporter.read(data: Data(Self.plannedRoute.utf8)).routes.first)
        let exported = RouteExporter.data(for: RouteCodec.quantize(planned), format: .gpx)
        #expect(String(decoding: exported, as: UTF8.self).contains("<time>1970-01-01T00:00:00.000Z</time>"))
        let again = try GPXImporter.read(data: exported)
        let route = try #require(again.routes.first)
        #expect(route.segmentStarts.isEmpty && again.report.jumpsBroken == 0)
        #expect(abs(RouteMetrics.distance(of: route.points) - RouteMetrics.distance(of: planned.points)) < 0.01)
    }

    @Test func aTeleportBetweenRealTimesThatDoAdvanceIsStillABreak() throws {
        let data = Self.gpx([(47, 11, "2024-05-01T10:00:00Z"), (47.1, 11, "2024-05-01T10:00:00Z"),
                             (47.1001, 11, "2024-05-01T10:00:10Z")])
        let route = try #require(GPXImporter.read(data: data).routes.first)
        #expect(route.segmentStarts == [1], "11 km in no time, in a track whose times do advance")
    }
}
