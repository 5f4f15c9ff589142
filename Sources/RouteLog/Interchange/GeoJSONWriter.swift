import Foundation

/// Writes a route as an RFC 7946 GeoJSON Feature whose geometry is valid for GEOS (and
/// so shapely) as well as for RFC 7946 readers.
///
/// The geometry is a LineString, or a MultiLineString with one line per recording
/// segment when the route has several. A line needs two distinct positions (GEOS calls a
/// line of one repeated position invalid, "Too few points"), so a segment whose points
/// all lie at one place (a lone point after a jump break, a wait) is left out of the
/// geometry and counted in the property `pointsNotInGeometry`. A route with no such line
/// is a Point when all its points lie at one place, else a MultiPoint with one position
/// per segment. Positions are `[longitude, latitude]`, with the altitude as a third
/// number only when every point has one (RFC 7946 positions of one geometry should
/// agree). The properties hold the summary, and `coordTimes` holds each written
/// position's time (the convention of Mapbox's togeojson), nested like the coordinates.
/// Lines that cross the antimeridian are not cut.
enum GeoJSONWriter {
    static func write(_ route: Route, summary: ExportSummary) -> Data {
        let points = route.points
        let withAltitude = points.allSatisfy { $0.altitude != nil }
        func plane(_ p: TrackPoint) -> String {
            DecimalText.format(p.longitude, places: 7) + "," + DecimalText.format(p.latitude, places: 7)
        }
        func position(_ p: TrackPoint) -> String {
            var text = "[" + plane(p)
            if withAltitude, let ele = p.altitude { text += "," + DecimalText.format(ele, places: 2) }
            return text + "]"
        }
        func time(_ p: TrackPoint) -> String { "\"" + ISO8601Time.format(p.timestamp) + "\"" }
        // Distinct as written: two points closer than the 7th decimal are one position.
        func isLine(_ range: Range<Int>) -> Bool {
            let first = plane(points[range.lowerBound])
            return points[range].contains { plane($0) != first }
        }
        func list(_ range: Range<Int>, _ item: (TrackPoint) -> String) -> String {
            "[" + points[range].map(item).joined(separator: ",") + "]"
        }
        let segments = RouteSegments.ranges(of: route)
        let lines = segments.filter(isLine)
        let type: String, coordinates: String, coordTimes: String
        var omitted = 0
        switch lines.count {
        case 0:
            // Every segment stays at one place: one position per place.
            var seen = Set<String>()
            let firsts = segments.map { points[$0.lowerBound] }.filter { seen.insert(plane($0)).inserted }
            omitted = points.count - firsts.count
            if firsts.count == 1 {
                (type, coordinates, coordTimes) = ("Point", position(firsts[0]), "[" + time(firsts[0]) + "]")
            } else {
                (type, coordinates, coordTimes) = ("MultiPoint", "[" + firsts.map(position).joined(separator: ",") + "]",
                                                   "[" + firsts.map(time).joined(separator: ",") + "]")
            }
        case 1:
            omitted = points.count - lines[0].count
            (type, coordinates, coordTimes) = ("LineString", list(lines[0], position), list(lines[0], time))
        default:
            omitted = points.count - lines.reduce(0) { $0 + $1.count }
            (type, coordinates, coordTimes) = ("MultiLineString", "[" + lines.map { list($0, position) }.joined(separator: ",") + "]",
                                               "[" + lines.map { list($0, time) }.joined(separator: ",") + "]")
        }
        let box = summary.boundingBox
        var out = "{\"type\":\"Feature\""
        out += ",\"bbox\":[" + [box.southWest.longitude, box.southWest.latitude, box.northEast.longitude,
                                 box.northEast.latitude].map { DecimalText.format($0, places: 7) }.joined(separator: ",") + "]"
        out += ",\"geometry\":{\"type\":\"" + type + "\",\"coordinates\":" + coordinates + "}"
        out += ",\"properties\":{" + summary.jsonMembers().joined(separator: ",")
        if omitted > 0 { out += ",\"pointsNotInGeometry\":\(omitted)" }
        out += ",\"coordTimes\":" + coordTimes + "}}\n"
        return Data(out.utf8)
    }
}
