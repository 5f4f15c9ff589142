import Foundation

/// The values inside points and extensions: numbers, times, and the extension
/// elements RouteLog understands, each read strictly and within ``ImportLimits``.
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
                 (GPXNamespace.routeLog, "hr"), (GPXNamespace.routeLog, "speed"), (GPXNamespace.routeLog, "course"),
                 (GPXNamespace.routeLog, "horizontalAccuracy"), (GPXNamespace.routeLog, "verticalAccuracy"):
                known = true
            default:
                known = false
            }
        } else {
            known = path != nil && uri == GPXNamespace.routeLog && (name == "calories" || name == "distance")
        }
        if known {
            collectText(name: false)
        } else {
            contents.unknownExtensions += 1
            skipUntilDepth = depth
        }
    }

    /// Adds character data to the value being read, refusing the file as soon as the
    /// value passes its limit (so a gigabyte of `<name>` costs a kilobyte).
    func appendText(_ string: String) {
        guard let count = text?.utf8.count else { return }
        guard count + string.utf8.count <= (collectingName ? limits.nameBytes : limits.valueBytes) else {
            text = nil
            if collectingName {
                return refuse("a track or route name is longer than \(ImportLimits.grouped(limits.nameBytes)) bytes "
                                  + "of UTF-8, the most a route name may hold (ImportLimits.nameBytes)")
            }
            return refuse("a value holds more than \(ImportLimits.grouped(limits.valueBytes)) bytes of text, more "
                              + "than any number or time needs (ImportLimits.valueBytes)")
        }
        text!.append(string)
    }

    /// Whether a value is empty or only XML white space: `<ele></ele>` gives no elevation.
    static func isBlank(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    }

    /// At most 40 characters of a value, for a message.
    static func shown(_ text: String) -> String {
        text.count > 40 ? String(text.prefix(40)) + "..." : text
    }

    /// `value` as a number written the XML Schema way (see ``XSDNumber``).
    func number(_ value: String, _ what: String) -> Double? {
        guard let number = XSDNumber.parse(value) else {
            stop("<\(what)> holds \"\(Self.shown(value))\", not a decimal number")
            return nil
        }
        return number
    }

    /// A `<time>`'s moment, or nil after stopping the reader with what is wrong with it.
    func time(_ value: String) -> Date? {
        switch ISO8601Time.read(value[...]) {
        case .date(let date):
            return date
        case .malformed:
            stop("<time>\(Self.shown(value))</time> is not an ISO 8601 date and time")
        case .impossible(let why):
            stop("<time>\(Self.shown(value))</time> is not a date and time that exists: \(why)")
        }
        return nil
    }

    func setPointValue(_ name: String, _ value: String) {
        guard point != nil else { return }
        switch name {
        case "time":
            guard let date = time(value) else { return }
            guard GPXImportOptions.isValidTime(date.timeIntervalSince1970) else {
                return stop("<time>\(Self.shown(value))</time> is outside 1970...2200, which RouteLog cannot store")
            }
            point?.time = date.timeIntervalSince1970
        case "ele": point?.altitude = number(value, name)
        case "speed": point?.speed = number(value, name)
        case "course": point?.course = number(value, name)
        default: break
        }
    }

    /// The file's own `<time>`: a malformed or impossible one is refused like a point's;
    /// one outside 1970...2200 is only not used (it dates nothing unless a path is untimed).
    func setFileTime(_ value: String) {
        guard let date = time(value) else { return }
        if GPXImportOptions.isValidTime(date.timeIntervalSince1970) { contents.fileTime = date }
    }

    func setExtensionValue(_ name: String, _ uri: String?, _ value: String) {
        guard let number = number(value, name) else { return }
        guard point != nil else {
            if name == "calories" { path?.calories = number } else if name == "distance" { path?.distance = number }
            return
        }
        switch name {
        // A heart rate of 0 is a sensor that lost contact, not a reading, except in
        // RouteLog's own namespace, where its writer puts a reading of 0.
        case "hr": point?.heartRate = number > 0 || uri == GPXNamespace.routeLog ? number : nil
        case "cad", "cadence": point?.cadence = number
        case "speed": point?.speed = number
        case "course": point?.course = number
        case "horizontalAccuracy": point?.horizontalAccuracy = number
        case "verticalAccuracy": point?.verticalAccuracy = number
        default: break
        }
    }
}
