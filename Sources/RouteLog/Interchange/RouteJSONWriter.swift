import Foundation

/// Writes a whole route as one JSON object, for `routelog dump --format json`: the
/// summary figures, the metadata, the segment starts, the splits, and every point with
/// its fields (absent fields are left out).
enum RouteJSONWriter {
    static func write(_ route: Route, summary: ExportSummary) -> Data {
        var out = "{" + summary.jsonMembers().joined(separator: ",")
        if let distance = route.metadata.distance {
            out += ",\"appDistance\":" + DecimalText.format(distance, places: 3)
        }
        out += ",\"segmentStarts\":[" + route.segmentStarts.map(String.init).joined(separator: ",") + "]"
        out += ",\"splits\":[" + route.splits.map { split in
            "{\"unit\":\"" + (split.unit == .kilometre ? "km" : "mi") + "\",\"pointIndex\":\(split.pointIndex)"
                + ",\"elapsedTime\":" + DecimalText.format(split.elapsedTime, places: 3) + "}"
        }.joined(separator: ",") + "]"
        out += ",\"points\":[\n"
        out += route.points.map { p in
            var fields = ["\"time\":\"" + ISO8601Time.format(p.timestamp) + "\"",
                          "\"latitude\":" + DecimalText.format(p.latitude, places: 7),
                          "\"longitude\":" + DecimalText.format(p.longitude, places: 7)]
            func add(_ key: String, _ value: Double?, _ places: Int) {
                if let value { fields.append("\"\(key)\":" + DecimalText.format(value, places: places)) }
            }
            add("altitude", p.altitude, 2)
            add("horizontalAccuracy", p.horizontalAccuracy, 2)
            add("verticalAccuracy", p.verticalAccuracy, 2)
            add("speed", p.speed, 2)
            add("course", p.course, 2)
            add("heartRate", p.heartRate, 0)
            add("cadence", p.cadence, 0)
            return "{" + fields.joined(separator: ",") + "}"
        }.joined(separator: ",\n")
        out += "\n]}\n"
        return Data(out.utf8)
    }
}
