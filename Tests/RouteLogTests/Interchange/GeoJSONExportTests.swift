import Foundation
import Testing
@testable import RouteLog

/// GeoJSON export, parsed back with JSONSerialization.
@Suite struct GeoJSONExportTests {
    func parse(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func oneSegmentIsALineStringWithLonLatAltAndTheSummary() throws {
        let route = RouteCodec.quantize(try #require(
            GPXImporter.read(contentsOf: InterchangeFixtures.gpx("gpxgo__visnjan.gpx")).routes.first))
        let json = try parse(RouteExporter.data(for: route, format: .geojson))
        #expect(json["type"] as? String == "Feature")
        let geometry = try #require(json["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "LineString")
        let coordinates = try #require(geometry["coordinates"] as? [[Double]])
        #expect(coordinates.count == route.points.count)
        // RFC 7946: longitude first.
        #expect(coordinates[0] == [route.points[0].longitude, route.points[0].latitude, route.points[0].altitude!])
        let properties = try #require(json["properties"] as? [String: Any])
        #expect(properties["pointCount"] as? Int == 413)
        let distance = try #require(properties["distance"] as? Double)
        #expect(abs(distance - RouteMetrics.distance(of: route.points)) < 0.001)
        #expect(properties["startDate"] as? String == ISO8601Time.format(route.points[0].timestamp))
        #expect((properties["coordTimes"] as? [String])?.count == 413)
        let bbox = try #require(json["bbox"] as? [Double])
        #expect(bbox.count == 4 && bbox[0] <= bbox[2] && bbox[1] <= bbox[3])
        #expect(bbox[1] == route.points.map(\.latitude).min())
    }

    @Test func severalSegmentsAreAMultiLineString() throws {
        let route = RouteCodec.quantize(try #require(
            GPXImporter.read(contentsOf: InterchangeFixtures.gpx("georust__garmin_with_extensions.gpx")).routes.first))
        #expect(route.segmentStarts.count == 1)
        let json = try parse(RouteExporter.data(for: route, format: .geojson))
        let geometry = try #require(json["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "MultiLineString")
        let lines = try #require(geometry["coordinates"] as? [[[Double]]])
        #expect(lines.count == 2)
        #expect(lines[0].count == route.segmentStarts[0])
        #expect(lines.map(\.count).reduce(0, +) == route.points.count)
    }

    @Test func positionsWithoutAltitudeEverywhereHaveTwoNumbersAndNamesAreEscaped() throws {
        var points = (0..<4).map { TrackPoint.sample($0) }
        points[2].altitude = nil
        let route = Route(points: points, metadata: RouteMetadata(name: "quote \" and \\ and\nnewline"))
        let json = try parse(RouteExporter.data(for: route, format: .geojson))
        let coordinates = try #require((json["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])
        #expect(coordinates.allSatisfy { $0.count == 2 })
        #expect((json["properties"] as? [String: Any])?["name"] as? String == "quote \" and \\ and\nnewline")
    }

    @Test func jsonDumpHoldsEveryPointAndSplit() throws {
        let route = RouteCodec.quantize(try #require(
            GPXImporter.read(contentsOf: InterchangeFixtures.gpx("georust__garmin-activity.gpx")).routes.first))
        let json = try parse(RouteExporter.data(for: route, format: .json))
        let points = try #require(json["points"] as? [[String: Any]])
        #expect(points.count == route.points.count)
        #expect(points[0]["heartRate"] as? Double == route.points[0].heartRate)
        #expect(points[0]["latitude"] as? Double == route.points[0].latitude)
        #expect((json["splits"] as? [Any])?.count == route.splits.count)
    }

    @Test func aOnePointRouteIsAPointAndALonePointSegmentIsLeftOut() throws {
        let one = Route(points: [TrackPoint.sample(0)])
        let point = try parse(RouteExporter.data(for: one, format: .geojson))
        let geometry = try #require(point["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "Point")
        #expect((geometry["coordinates"] as? [Double])?.count == 3)
        let route = Route(points: (0..<5).map { TrackPoint.sample($0) }, segmentStarts: [2, 3])
        let multi = try parse(RouteExporter.data(for: route, format: .geojson))
        let lines = try #require((multi["geometry"] as? [String: Any])?["coordinates"] as? [[[Double]]])
        #expect(lines.map(\.count) == [2, 2])
        #expect(lines.allSatisfy { Set($0.map { [$0[0], $0[1]] }).count >= 2 }, "GEOS: every line has two distinct positions")
    }
}
