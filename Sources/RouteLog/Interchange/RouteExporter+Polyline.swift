import Foundation

extension RouteExporter {
    /// The Encoded Polyline Algorithm Format of Google's Maps APIs (what Leaflet,
    /// Mapbox and OSRM read): each coordinate rounded to `precision` decimal places, as
    /// the difference from the previous one, latitude first, in 5-bit groups offset by
    /// 63. Precision 5 (about 1 m) is Google's; 6 is OSRM's and Valhalla's.
    ///
    /// ```swift
    /// let line = try RouteExporter.encodedPolyline(summary.preview!.coordinates)
    /// ```
    /// - Parameter precision: decimal places, 1...7 (5 and 6 are the common ones).
    /// - Throws: `.invalidArgument` for a precision outside 1...7 or a coordinate that
    ///   is not finite or outside ±90/±180, naming its index.
    public static func encodedPolyline(_ coordinates: [Coordinate], precision: Int = 5) throws -> String {
        guard (1...7).contains(precision) else {
            throw RouteLogError.invalid("polyline precision \(precision): give 1 to 7 decimal places (5 or 6 usually)")
        }
        let factor = pow(10, Double(precision))
        var output: [UInt8] = []
        output.reserveCapacity(coordinates.count * 8)
        var previous = (lat: Int64(0), lon: Int64(0))
        for (i, c) in coordinates.enumerated() {
            guard c.latitude.isFinite, c.longitude.isFinite, abs(c.latitude) <= 90, abs(c.longitude) <= 180 else {
                throw RouteLogError.invalid("coordinate \(i) (\(c.latitude), \(c.longitude)) is not a position on the globe")
            }
            let lat = Int64((c.latitude * factor).rounded()), lon = Int64((c.longitude * factor).rounded())
            append(lat - previous.lat, to: &output)
            append(lon - previous.lon, to: &output)
            previous = (lat, lon)
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Route `route`'s points as an encoded polyline (segment breaks are not marked:
    /// the format has no way to say them).
    /// - Throws: as ``encodedPolyline(_:precision:)``.
    public static func encodedPolyline(for route: Route, precision: Int = 5) throws -> String {
        try encodedPolyline(route.points.map(\.coordinate), precision: precision)
    }

    private static func append(_ delta: Int64, to output: inout [UInt8]) {
        var value = UInt64(bitPattern: delta << 1)
        if delta < 0 { value = ~value }
        while value >= 0x20 {
            output.append(UInt8((0x20 | (value & 0x1F)) + 63))
            value >>= 5
        }
        output.append(UInt8(value + 63))
    }
}
