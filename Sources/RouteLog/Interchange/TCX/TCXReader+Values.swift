import Foundation

/// The values inside Trackpoints, and the few an Activity or Course has of its own.
extension TCXReader {
    /// TCX elements also appear without a namespace in hand-written files.
    static func isTCX(_ uri: String?) -> Bool {
        guard let uri, !uri.isEmpty else { return true }
        return uri == namespace
    }

    func collectText(_ element: String) {
        text = ""
        textBytes = 0
        textElement = element
    }

    /// Elements inside a Trackpoint, by their level below it.
    func startPointChild(_ name: String, _ uri: String?) {
        let level = depth - pointDepth
        if level == 1 { pointChild = name }
        let tcx = Self.isTCX(uri), activityExtension = uri == Self.activityExtension
        switch (level, name) {
        case (1, "Time") where tcx, (1, "AltitudeMeters") where tcx, (1, "Cadence") where tcx:
            collectText(name)
        case (1, "Position") where tcx, (1, "HeartRateBpm") where tcx, (1, "Extensions") where tcx:
            return
        case (2, "LatitudeDegrees") where tcx && pointChild == "Position",
             (2, "LongitudeDegrees") where tcx && pointChild == "Position",
             (2, "Value") where tcx && pointChild == "HeartRateBpm":
            collectText(name)
        case (2, "TPX") where activityExtension && pointChild == "Extensions":
            return
        // Other children of Extensions are skipped whole, so level 3 there is inside TPX.
        case (3, "Speed") where activityExtension && pointChild == "Extensions",
             (3, "Watts") where activityExtension && pointChild == "Extensions",
             (3, "RunCadence") where activityExtension && pointChild == "Extensions":
            collectText(name)
        default:
            if pointChild == "Extensions" { contents.unknownExtensions += 1 }
            skipUntilDepth = depth
        }
    }

    /// The value of a number element: TCX declares them `xsd:double`, read in the same
    /// grammar as GPX's (``XSDNumber``: no `0x1p5`, `inf` or `nan`).
    func number(_ value: String, _ what: String) -> Double? {
        guard let number = XSDNumber.parse(value) else {
            stop("<\(what)> holds \"\(value.prefix(40))\", not a number")
            return nil
        }
        return number
    }

    func setPointValue(_ name: String, _ value: String) {
        switch name {
        case "Time":
            guard let date = ISO8601Time.parse(value[...]) else {
                return stop("<Time>\(value.prefix(40))</Time> is not an ISO 8601 date and time")
            }
            guard RouteImportOptions.isValidTime(date.timeIntervalSince1970) else {
                return stop("<Time>\(value.prefix(40))</Time> is outside 1970...2200, which RouteLog cannot store")
            }
            point?.timestamp = date
            pointHasTime = true
        case "LatitudeDegrees":
            guard let degrees = number(value, name) else { return }
            guard (-90...90).contains(degrees) else { return stop("<LatitudeDegrees> \(degrees) is outside -90...90") }
            latitude = degrees
        case "LongitudeDegrees":
            guard let degrees = number(value, name) else { return }
            guard (-180...180).contains(degrees) else {
                return stop("<LongitudeDegrees> \(degrees) is outside -180...180")
            }
            longitude = degrees
        case "AltitudeMeters": point?.altitude = number(value, name)
        // A heart rate of 0 is a sensor that lost contact, not a reading.
        case "Value": point?.heartRate = number(value, "HeartRateBpm/Value").flatMap { $0 > 0 ? $0 : nil }
        case "Cadence": point?.cadence = number(value, name)
        case "RunCadence":
            let cadence = number(value, name)
            if point?.cadence == nil { point?.cadence = cadence }
        case "Speed": point?.speed = number(value, name)
        case "Watts": pointHasPower = number(value, name) != nil
        default: break
        }
    }

    func setPathValue(_ name: String, _ value: String) {
        switch name {
        case "Id":
            // An Activity's Id is its start time; one that is not a time is only a name.
            if let date = ISO8601Time.parse(value[...]),
               RouteImportOptions.isValidTime(date.timeIntervalSince1970) {
                current?.idTime = date
            }
        case "Name":
            current?.path.name = value
        case "Calories":
            guard let calories = number(value, name) else { return }
            let sum = (current?.path.calories ?? 0) + calories
            current?.path.calories = sum
        default:
            break
        }
    }
}
