import Foundation

/// Writes a route as an RFC 7946 GeoJSON Feature.
///
/// The geometry is a LineString, or a MultiLineString with one line per recording
/// segment when the route has several. Positions are `[longitude, latitude]`, with the
/// altitude as a third number only when every point has one (RFC 7946 positions of one
/// geometry should agree). The properties hold the summary, and `coordTimes` holds
/// each point's time (the convention of Mapbox's togeojson), nested like the
/// coordinates. A route of a single point is a Point; a segment of a single point
/// (possible after a jump break) repeats its position, since RFC 7946 lines need two.
/// Lines that cross the antimeridian are not cut.
enum GeoJSONWriter {
    static func write(_ route: Route, summary: ExportSummary) -> Data {
        let segments = RouteSegments.ranges(of: route)
        let withAltitude = route.points.allSatisfy { $0.altitude != nil }
        func position(_ p: TrackPoint) -> String {
            var text = "[" + DecimalText.format(p.longitude, places: 7) + "," + DecimalText.format(p.latitude, places: 7)
            if withAltitude, let ele = p.altitude { text += "," + DecimalText.format(ele, places: 2) }
            return text + "]"
        }
        // A line needs two positions: a lone point is written twice.
        func twice(_ range: Range<Int>) -> [TrackPoint] {
            range.count == 1 ? [route.points[range.lowerBound], route.points[range.lowerBound]] : Array(route.points[range])
        }
        func line(_ range: Range<Int>) -> String {
            "[" + twice(range).map(position).joined(separator: ",") + "]"
        }
        func times(_ range: Range<Int>) -> String {
            "[" + twice(range).map { "\"" + ISO8601Time.format($0.timestamp) + "\"" }.joined(separator: ",") + "]"
        }
        let multi = segments.count > 1
        let single = route.points.count == 1
        let type = single ? "Point" : multi ? "MultiLineString" : "LineString"
        let coordinates = single ? position(route.points[0])
            : multi ? "[" + segments.map(line).joined(separator: ",") + "]" : line(segments[0])
        let coordTimes = single ? "[\"" + ISO8601Time.format(route.points[0].timestamp) + "\"]"
            : multi ? "[" + segments.map(times).joined(separator: ",") + "]" : times(segments[0])
        let box = summary.boundingBox
        var out = "{\"type\":\"Feature\""
        out += ",\"bbox\":[" + [box.southWest.longitude, box.southWest.latitude, box.northEast.longitude,
                                 box.northEast.latitude].map { DecimalText.format($0, places: 7) }.joined(separator: ",") + "]"
        out += ",\"geometry\":{\"type\":\"" + type + "\",\"coordinates\":"
            + coordinates + "}"
        out += ",\"properties\":{" + summary.jsonMembers().joined(separator: ",")
        out += ",\"coordTimes\":" + coordTimes + "}}\n"
        return Data(out.utf8)
    }
}
