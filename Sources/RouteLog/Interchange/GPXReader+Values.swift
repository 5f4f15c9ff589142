import Foundation

/// The values inside points and extensions: numbers, times, and the extension
/// elements RouteLog understands.
extension GPXReader {
    func startExtension(_ name: String, _ uri: String?) {
        if GPXNamespace.isGarminTrackPoint(uri), name == "TrackPointExtension" { return }
        let known: Bool
        if point != nil {
            switch (uri, name) {
            case (GPXNamespace.garminTrackPointV1, "hr"), (GPXNamespace.garminTrackPointV1, "cad"),
                 (GPXNamespace.garminTrackPointV2, "hr"), (GPXNamespace.garminTrackPointV2, "cad"),
                 (GPXNamespace.garminTrackPointV2, "speed"), (GPXNamespace.garminTrackPointV2, "course"),
                 (GPXNamespace.gpxdata, "hr"), (GPXNamespace.gpxdata, "cadence"),
                 (GPXNamespace.routeLog, "speed"), (GPXNamespace.routeLog, "course"),
                 (GPXNamespace.routeLog, "horizontalAccuracy"), (GPXNamespace.routeLog, "verticalAccuracy"):
                known = true
            default:
                known = false
            }
        } else {
            known = path != nil && uri == GPXNamespace.routeLog && (name == "calories" || name == "distance")
        }
        if known {
            text = ""
        } else {
            contents.unknownExtensions += 1
            skipUntilDepth = depth
        }
    }

    /// `text` without leading and trailing XML white space (space, tab, CR, LF).
    /// Foundation's trimmingCharacters(in:) was a third of the import time.
    static func trimmed(_ text: String) -> String {
        let utf8 = text.utf8
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        guard let first = utf8.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = utf8.lastIndex(where: { !isSpace($0) })!
        if first == utf8.startIndex && last == utf8.index(before: utf8.endIndex) { return text }
        return String(text[first...last])
    }

    func number(_ value: String, _ what: String) -> Double? {
        guard let number = Double(value), number.isFinite else {
            stop("<\(what)> holds \"\(value.prefix(40))\", not a number")
            return nil
        }
        return number
    }

    func setPointValue(_ name: String, _ value: String) {
        guard point != nil else { return }
        switch name {
        case "time":
            guard let date = ISO8601Time.parse(value[...]) else {
                return stop("<time>\(value.prefix(40))</time> is not an ISO 8601 date and time")
            }
            guard GPXImportOptions.validTimes.contains(date.timeIntervalSince1970) else {
                return stop("<time>\(value.prefix(40))</time> is outside 1970...2200, which RouteLog cannot store")
            }
            point?.timestamp = date
            pointHasTime = true
        case "ele": point?.altitude = number(value, name)
        case "speed": point?.speed = number(value, name)
        case "course": point?.course = number(value, name)
        default: break
        }
    }

    func setExtensionValue(_ name: String, _ uri: String?, _ value: String) {
        guard let number = number(value, name) else { return }
        guard point != nil else {
            if name == "calories" { path?.calories = number } else if name == "distance" { path?.distance = number }
            return
        }
        switch name {
        // A heart rate of 0 is a sensor that lost contact, not a reading.
        case "hr": point?.heartRate = number > 0 ? number : nil
        case "cad", "cadence": point?.cadence = number
        case "speed": point?.speed = number
        case "course": point?.course = number
        case "horizontalAccuracy": point?.horizontalAccuracy = number
        case "verticalAccuracy": point?.verticalAccuracy = number
        default: break
        }
    }
}
