import Foundation

/// Writes a route's points as CSV (RFC 4180) with a header row, one point a line:
///
/// `segment,time,latitude,longitude,altitude,horizontal_accuracy,vertical_accuracy,speed,course,heart_rate,cadence`
///
/// `segment` counts recording segments from 1; time is UTC ISO 8601 with milliseconds;
/// a field the point does not have is empty. Lines end with CRLF, as RFC 4180 says.
enum CSVWriter {
    static let header = "segment,time,latitude,longitude,altitude,horizontal_accuracy,vertical_accuracy,speed,course,heart_rate,cadence"

    static func write(_ route: Route) -> Data {
        var out = header + "\r\n"
        for (number, range) in RouteSegments.ranges(of: route).enumerated() {
            for p in route.points[range] {
                func field(_ value: Double?, _ places: Int) -> String {
                    value.map { DecimalText.format($0, places: places) } ?? ""
                }
                let fields = [String(number + 1), ISO8601Time.format(p.timestamp),
                              DecimalText.format(p.latitude, places: 7), DecimalText.format(p.longitude, places: 7),
                              field(p.altitude, 2), field(p.horizontalAccuracy, 2), field(p.verticalAccuracy, 2),
                              field(p.speed, 2), field(p.course, 2), field(p.heartRate, 0), field(p.cadence, 0)]
                out += fields.map(TextEscaping.csv).joined(separator: ",") + "\r\n"
            }
        }
        return Data(out.utf8)
    }
}
