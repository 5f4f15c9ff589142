import Foundation
import RouteLog

/// Web Mercator, fitted to a route: projects coordinates to picture pixels (y down),
/// keeping north up and the route's shape true at its latitude.
struct MapProjection {
    /// The frame the route is fitted into, in pixels.
    let frame: (x: Double, y: Double, width: Double, height: Double)
    /// Pixels per projected metre.
    let scale: Double
    private let centre: (x: Double, y: Double)
    /// Ground metres per projected metre at the route's middle latitude.
    private let groundFactor: Double

    static let earthRadius = 6_378_137.0

    static func project(_ c: Coordinate) -> (x: Double, y: Double) {
        let lat = max(-85.05, min(85.05, c.latitude)) * .pi / 180
        return (earthRadius * c.longitude * .pi / 180, earthRadius * log(tan(.pi / 4 + lat / 2)))
    }

    /// Height over width of `box` as the projection draws it (with the same minimum
    /// ground span as ``init(fitting:into:margin:minimumMetres:)``).
    static func aspect(of box: BoundingBox, minimumMetres: Double = 300) -> Double {
        let sw = project(box.southWest), ne = project(box.northEast)
        let groundFactor = cos((box.southWest.latitude + box.northEast.latitude) / 2 * .pi / 180)
        let minimum = minimumMetres / max(groundFactor, 0.01)
        return max(ne.y - sw.y, minimum) / max(ne.x - sw.x, minimum)
    }

    /// Fits `box` into `frame` with a margin, showing at least `minimumMetres` of ground
    /// across (a route of one point, or a few steps, still gets a sensible scale).
    init(fitting box: BoundingBox, into frame: (x: Double, y: Double, width: Double, height: Double),
         margin: Double = 0.08, minimumMetres: Double = 300) {
        self.frame = frame
        let sw = Self.project(box.southWest), ne = Self.project(box.northEast)
        let middleLatitude = (box.southWest.latitude + box.northEast.latitude) / 2
        groundFactor = cos(middleLatitude * .pi / 180)
        let minimum = minimumMetres / max(groundFactor, 0.01)
        let spanX = max(ne.x - sw.x, minimum), spanY = max(ne.y - sw.y, minimum)
        centre = ((sw.x + ne.x) / 2, (sw.y + ne.y) / 2)
        scale = min(frame.width * (1 - 2 * margin) / spanX, frame.height * (1 - 2 * margin) / spanY)
    }

    /// The pixel position of a coordinate.
    func point(_ c: Coordinate) -> (x: Double, y: Double) {
        let p = Self.project(c)
        return (frame.x + frame.width / 2 + (p.x - centre.x) * scale,
                frame.y + frame.height / 2 - (p.y - centre.y) * scale)
    }

    /// Pixels per ground metre at the route's latitude (for the scale bar).
    var pixelsPerMetre: Double { scale / groundFactor }
}
