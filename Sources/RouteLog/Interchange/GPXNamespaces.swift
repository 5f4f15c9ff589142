/// The XML namespaces the GPX reader understands and the writer uses.
enum GPXNamespace {
    static let gpx10 = "http://www.topografix.com/GPX/1/0"
    static let gpx11 = "http://www.topografix.com/GPX/1/1"
    /// Garmin's TrackPointExtension: `hr`, `cad` (v1), plus `speed`, `course` (v2).
    static let garminTrackPointV1 = "http://www.garmin.com/xmlschemas/TrackPointExtension/v1"
    static let garminTrackPointV2 = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"
    /// Cluetrust's gpxdata (Suunto and others): `hr`, `cadence`.
    static let gpxdata = "http://www.cluetrust.com/XML/GPXDATA/1/0"
    /// RouteLog's own extension: the CLLocation fields GPX has no element for.
    static let routeLog = "urn:routelog:gpx-extensions:1"

    /// GPX elements also appear without a namespace in hand-written files.
    static func isGPX(_ uri: String?) -> Bool {
        guard let uri, !uri.isEmpty else { return true }
        return uri == gpx11 || uri == gpx10
    }

    static func isGarminTrackPoint(_ uri: String?) -> Bool {
        uri == garminTrackPointV1 || uri == garminTrackPointV2
    }
}
