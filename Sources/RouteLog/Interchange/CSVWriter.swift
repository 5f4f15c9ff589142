import Foundation

/// Writes a route's points as CSV with a header row, one point a line, in the same
/// columns as `routelog dump --format csv`:
///
/// `timestamp,latitude,longitude,altitude,horizontalAccuracy,verticalAccuracy,speed,course,heartRate,cadence,segment`
///
/// The timestamp is UTC ISO 8601 with milliseconds; `segment` numbers the recording
/// segments from 0; a value the point does not have is an empty field. Fields never
/// need quoting (numbers and times only); lines end with LF.
enum CSVWriter {
    static let columns = ["timestamp", "latitude", "longitude", "altitude", "horizontalAccuracy", "verticalAccuracy",
                          "speed", "course", "heartRate", "cadence", "segment"]

    static func write(_ route: Route) -> Data {
        var out = columns.joined(separator: ",") + "\n"
        for (number, range) in RouteSegments.ranges(of: route).enumerated() {
            for p in route.points[range] {
                func field(_ value: Double?, _ places: Int) -> String {
                    value.map { DecimalText.format($0, places: places) } ?? ""
                }
                let fields = [ISO8601Time.format(p.timestamp),
                              DecimalText.format(p.latitude, places: 7), DecimalText.format(p.longitude, places: 7),
                              field(p.altitude, 2), field(p.horizontalAccuracy, 2), field(p.verticalAccuracy, 2),
                              field(p.speed, 2), field(p.course, 2), field(p.heartRate, 0), field(p.cadence, 0),
                              String(number)]
                out += fields.joined(separator: ",") + "\n"
            }
        }
        return Data(out.utf8)
    }
}
