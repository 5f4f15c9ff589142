import Foundation
import Testing
import RouteLog
@testable import routelog

/// The arithmetic behind `render` and the JSON writer, in-process.
@Suite struct RouteSVGGeometryTests {
    /// A straight walk due north: `metres` long, a point every 10 m, one per 5 s.
    static func northbound(_ metres: Double, splits: [Split] = []) -> (RouteSummary, Route) {
        let count = Int(metres / 10) + 1
        let start = Date(timeIntervalSince1970: 1_767_600_000)
        let points = (0..<count).map { i in
            TrackPoint(latitude: 45 + Double(i) * 10 / 111_132.0, longitude: 9, timestamp: start.addingTimeInterval(Double(i) * 5))
        }
        let route = Route(points: points, splits: splits)
        let summary = RouteSummary(id: RouteID(1), startDate: start, duration: Double(count - 1) * 5,
                                   distance: RouteMetrics.distance(of: points), calories: 0, pointCount: count,
                                   boundingBox: BoundingBox(southWest: points[0].coordinate, northEast: points[count - 1].coordinate),
                                   startCoordinate: points[0].coordinate, endCoordinate: points[count - 1].coordinate, name: nil)
        return (summary, route)
    }

    @Test func pinsAreMeasuredAlongTheTrackWhenThereAreNoSplits() {
        let (summary, route) = Self.northbound(2_500)
        let pins = RouteSVG(summary: summary, route: route, units: .kilometres).pinPositions()
        #expect(pins.map(\.0) == [1, 2])
        for (number, coordinate) in pins {
            let along = RouteMetrics.distance(of: [route.points[0], TrackPoint(latitude: coordinate.latitude, longitude: coordinate.longitude,
                                                                                timestamp: route.points[0].timestamp)])
            #expect(abs(along - Double(number) * 1000) < 1, "pin \(number) at \(along) m")
        }
        #expect(RouteSVG(summary: summary, route: route, units: .miles).pinPositions().map(\.0) == [1])
    }

    @Test func pinsFollowTheAppsSplitsWhenThereAreSome() {
        let (summary, route) = Self.northbound(2_500, splits: [Split(unit: .kilometre, pointIndex: 90, elapsedTime: 450)])
        let pins = RouteSVG(summary: summary, route: route, units: .kilometres).pinPositions()
        #expect(pins.count == 1)
        #expect(pins[0].1 == route.points[90].coordinate)
    }

    @Test func scaleBarsHaveRoundLengths() {
        #expect(RouteSVG.niceLength(maximumPixels: 180, pixelsPerUnit: 1) == 100)
        #expect(RouteSVG.niceLength(maximumPixels: 180, pixelsPerUnit: 0.3) == 500)
        #expect(RouteSVG.niceLength(maximumPixels: 180, pixelsPerUnit: 0.08) == 2000)
        let (summary, route) = Self.northbound(2_500)
        let picture = RouteSVG(summary: summary, route: route, units: .kilometres)
        let projection = MapProjection(fitting: summary.boundingBox, into: (20, 112, 760, 528))
        let (metres, caption) = picture.scaleLength(projection)
        #expect(metres * projection.pixelsPerMetre <= 180)
        #expect(metres * projection.pixelsPerMetre > 180 / 2.5)
        #expect(caption == "1 km", "2.5 km fill 443 px: 1 km is 177 px")
        let (_, miles) = RouteSVG(summary: summary, route: route, units: .miles).scaleLength(projection)
        #expect(miles == "0.5 mi")
    }

    @Test func theProjectionKeepsNorthUpAndTheRouteInside() {
        let (summary, _) = Self.northbound(2_500)
        let frame = (x: 20.0, y: 112.0, width: 760.0, height: 528.0)
        let projection = MapProjection(fitting: summary.boundingBox, into: frame)
        let south = projection.point(summary.startCoordinate), north = projection.point(summary.endCoordinate)
        #expect(north.y < south.y)
        #expect(abs(north.x - south.x) < 0.001)
        for p in [south, north] {
            #expect(p.y >= frame.y && p.y <= frame.y + frame.height)
        }
        // 2.5 km of ground fills the height less its margins.
        #expect(abs((south.y - north.y) - frame.height * 0.84) < 1)
    }

    @Test func jsonIsOrderedEscapedAndFinite() {
        let value = JSON.object([("b", .string("quote \" backslash \\ newline \n tab \t bell \u{7}")), ("a", .number(.nan)),
                                 ("list", .array([.integer(1), .number(2.5), .null])), ("nested", .object([("x", .bool(true))]))])
        #expect(value.rendered() == """
        {
          "b": "quote \\" backslash \\\\ newline \\n tab \\t bell \\u0007",
          "a": null,
          "list": [1, 2.5, null],
          "nested": {"x": true}
        }
        """)
        let deep = JSON.object([("points", .array([.object([("x", .integer(1))]), .object([("x", .integer(2))])]))])
        #expect(deep.rendered() == "{\n  \"points\": [\n    {\"x\": 1},\n    {\"x\": 2}\n  ]\n}")
        #expect(JSON.rounded(3224.015, 2).rendered() == "3224.02" || JSON.rounded(3224.015, 2).rendered() == "3224.01")
        #expect(JSON.number(3600.0).rendered() == "3600")
    }
}
