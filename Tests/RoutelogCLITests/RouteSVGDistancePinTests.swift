import Foundation
import Testing
import RouteLog
@testable import routelog

/// `render`'s distance pins on routes far longer than any spacing can label: the work and
/// memory stay bounded by what ``PinLayout`` can draw, not by the distance.
@Suite struct RouteSVGDistancePinTests {
    static func route(_ coordinates: [Coordinate]) -> (RouteSummary, Route) {
        let start = Date(timeIntervalSince1970: 1_767_600_000)
        let points = coordinates.enumerated().map {
            TrackPoint(latitude: $1.latitude, longitude: $1.longitude, timestamp: start.addingTimeInterval(Double($0)))
        }
        let route = Route(points: points)
        let lats = points.map(\.latitude), lons = points.map(\.longitude)
        let summary = RouteSummary(id: RouteID(1), startDate: start, duration: Double(points.count - 1),
                                   distance: RouteMetrics.distance(of: points), calories: 0, pointCount: points.count,
                                   boundingBox: BoundingBox(southWest: Coordinate(latitude: lats.min()!, longitude: lons.min()!),
                                                            northEast: Coordinate(latitude: lats.max()!, longitude: lons.max()!)),
                                   startCoordinate: points[0].coordinate, endCoordinate: points[points.count - 1].coordinate, name: nil)
        return (summary, route)
    }

    /// Every whole unit along `route`, as a plain walk along it finds them.
    static func everyPin(_ route: Route, unit: Double) -> [(Int, Coordinate)] {
        var result: [(Int, Coordinate)] = []
        var travelled = 0.0, next = unit
        for i in route.points.indices.dropFirst() {
            let a = route.points[i - 1].coordinate, b = route.points[i].coordinate
            let step = Geodesic.distance(a, b)
            while step > 0, travelled + step >= next {
                let t = (next - travelled) / step
                result.append((result.count + 1, Coordinate(latitude: a.latitude + t * (b.latitude - a.latitude),
                                                             longitude: a.longitude + t * (b.longitude - a.longitude))))
                next += unit
            }
            travelled += step
        }
        return result
    }

    @Test func aRouteHoppingRoundTheGlobeGetsBoundedPins() {
        // 400 fixes jumping between two sides of the globe: about 8 million kilometres.
        let (summary, route) = Self.route((0..<400).map { Coordinate(latitude: 0, longitude: $0 % 2 == 0 ? 0 : 179) })
        #expect(summary.distance > 7e9)
        let picture = RouteSVG(summary: summary, route: route, units: .kilometres)
        let pins = picture.pinPositions()
        #expect(pins.count <= 30_000, "\(pins.count) pin positions for \(Int(summary.distance / 1000)) km")
        // No spacing labels so long a route with at most 24 pins: none drawn.
        let svg = picture.render()
        #expect(!svg.contains("pins every"))
    }

    @Test func aLongRouteKeepsThePinsItsSpacingDraws() {
        // 24,000 km in steps of about 600 km: spacings below 5 km are never drawn.
        let coordinates = (0..<41).map { Coordinate(latitude: $0 % 2 == 0 ? 0 : 5.4, longitude: Double($0) * 0.1) }
        let (summary, route) = Self.route(coordinates)
        let km = summary.distance / 1000
        #expect(km > 20_000 && km < 30_000, "\(km) km")
        let every = Self.everyPin(route, unit: 1000)
        let pins = RouteSVG(summary: summary, route: route, units: .kilometres).pinPositions()
        #expect(pins.count < every.count / 2)
        // Every pin of a spacing that is kept is there, where a walk along the route finds it.
        for spacing in PinLayout.spacings where Double(every.count) / Double(spacing) <= 10_000 {
            let wanted = every.filter { $0.0 % spacing == 0 }
            let found = pins.filter { $0.0 % spacing == 0 }
            #expect(found.map(\.0) == wanted.map(\.0), "spacing \(spacing)")
            for (f, w) in zip(found, wanted) {
                #expect(abs(f.1.latitude - w.1.latitude) < 1e-9 && abs(f.1.longitude - w.1.longitude) < 1e-9, "pin \(f.0)")
            }
        }
        // The layout picks the same spacing and pins as it would from every pin.
        let projection = MapProjection(fitting: summary.boundingBox, into: (20, 112, 760, 528))
        let full = PinLayout(positions: every, projection: projection, start: summary.startCoordinate, finish: summary.endCoordinate)
        let svg = RouteSVG(summary: summary, route: route, units: .kilometres)
        let (positions, smallest) = svg.pins()
        let bounded = PinLayout(positions: positions, projection: projection, start: summary.startCoordinate,
                                finish: summary.endCoordinate, smallestSpacing: smallest)
        #expect(bounded.spacing == full.spacing)
        #expect(bounded.pins.map(\.label) == full.pins.map(\.label))
    }
}
