import Foundation

/// Writes a route as GPX 1.1 that validates against the official schema.
///
/// Each recording segment becomes a `<trkseg>`. Coordinates, elevation and time are
/// written at store precision (7 decimals, centimetres, milliseconds), so reading the
/// file back gives the same quantized points. Heart rate, cadence, speed and course go
/// in Garmin's TrackPointExtension v2 (the extension most apps read); the accuracies,
/// negative (invalid) speeds and courses, calories and the app's distance go in
/// RouteLog's own namespace, `urn:routelog:gpx-extensions:1`, which the importer reads.
enum GPXWriter {
    static func write(_ route: Route, name: String? = nil) -> Data {
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="RouteLog" xmlns="\(GPXNamespace.gpx11)" \
        xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
        xmlns:gpxtpx="\(GPXNamespace.garminTrackPointV2)" xmlns:routelog="\(GPXNamespace.routeLog)" \
        xsi:schemaLocation="\(GPXNamespace.gpx11) http://www.topografix.com/GPX/1/1/gpx.xsd">

        """
        let title = name ?? route.metadata.name
        out += "<metadata>"
        if let title { out += "<name>\(TextEscaping.xml(title))</name>" }
        if let first = route.points.first { out += "<time>\(ISO8601Time.format(first.timestamp))</time>" }
        out += "</metadata>\n<trk>\n"
        if let title { out += "<name>\(TextEscaping.xml(title))</name>\n" }
        // GPX's order: name, ..., type, extensions, trkseg. The importer reads it back.
        if let kind = route.metadata.activity { out += "<type>\(TextEscaping.xml(kind.name))</type>\n" }
        var routeExtensions = ""
        if let calories = route.metadata.calories {
            routeExtensions += "<routelog:calories>\(DecimalText.format(calories, places: 3))</routelog:calories>"
        }
        if let distance = route.metadata.distance {
            routeExtensions += "<routelog:distance>\(DecimalText.format(distance, places: 3))</routelog:distance>"
        }
        if !routeExtensions.isEmpty { out += "<extensions>\(routeExtensions)</extensions>\n" }
        for segment in RouteSegments.ranges(of: route) {
            out += "<trkseg>\n"
            for point in route.points[segment] { writePoint(point, to: &out) }
            out += "</trkseg>\n"
        }
        out += "</trk>\n</gpx>\n"
        return Data(out.utf8)
    }

    private static func writePoint(_ p: TrackPoint, to out: inout String) {
        out += "<trkpt lat=\"\(DecimalText.format(p.latitude, places: 7))\" lon=\"\(DecimalText.format(p.longitude, places: 7))\">"
        if let ele = p.altitude { out += "<ele>\(DecimalText.format(ele, places: 2))</ele>" }
        out += "<time>\(ISO8601Time.format(p.timestamp))</time>"
        // Garmin's schema order: hr, cad, speed, course; speed and course must be >= 0.
        var garmin = ""
        // A heart rate of 0 goes in RouteLog's own namespace: readers (RouteLog's too)
        // take Garmin's 0 for a sensor that lost contact, RouteLog's for a reading.
        let heartRate = p.heartRate.map { DecimalText.format($0, places: 0) }
        if let hr = heartRate, hr != "0" { garmin += "<gpxtpx:hr>\(hr)</gpxtpx:hr>" }
        if let cad = p.cadence { garmin += "<gpxtpx:cad>\(DecimalText.format(cad, places: 0))</gpxtpx:cad>" }
        if let speed = p.speed, speed >= 0 { garmin += "<gpxtpx:speed>\(DecimalText.format(speed, places: 2))</gpxtpx:speed>" }
        if let course = p.course, course >= 0 { garmin += "<gpxtpx:course>\(DecimalText.format(course, places: 2))</gpxtpx:course>" }
        var own = ""
        if heartRate == "0" { own += "<routelog:hr>0</routelog:hr>" }
        if let speed = p.speed, speed < 0 { own += "<routelog:speed>\(DecimalText.format(speed, places: 2))</routelog:speed>" }
        if let course = p.course, course < 0 { own += "<routelog:course>\(DecimalText.format(course, places: 2))</routelog:course>" }
        if let h = p.horizontalAccuracy {
            own += "<routelog:horizontalAccuracy>\(DecimalText.format(h, places: 2))</routelog:horizontalAccuracy>"
        }
        if let v = p.verticalAccuracy {
            own += "<routelog:verticalAccuracy>\(DecimalText.format(v, places: 2))</routelog:verticalAccuracy>"
        }
        if !garmin.isEmpty || !own.isEmpty {
            out += "<extensions>"
            if !garmin.isEmpty { out += "<gpxtpx:TrackPointExtension>\(garmin)</gpxtpx:TrackPointExtension>" }
            out += own + "</extensions>"
        }
        out += "</trkpt>\n"
    }
}
