import Foundation

/// Turns one archived route object of the old app into a ``Route``.
struct LegacyRouteReader {
    let archive: KeyedArchive

    struct Skip: Error { var text: String }

    /// The CLLocation coding keys (CoreLocation's `kCLLocationCodingKey...`).
    enum Key {
        static let latitude = "kCLLocationCodingKeyCoordinateLatitude"
        static let longitude = "kCLLocationCodingKeyCoordinateLongitude"
        static let altitude = "kCLLocationCodingKeyAltitude"
        static let horizontalAccuracy = "kCLLocationCodingKeyHorizontalAccuracy"
        static let verticalAccuracy = "kCLLocationCodingKeyVerticalAccuracy"
        static let timestamp = "kCLLocationCodingKeyTimestamp"
        static let speed = "kCLLocationCodingKeySpeed"
        static let course = "kCLLocationCodingKeyCourse"
    }

    func route(_ object: [String: Any], report: inout LegacyMigrationReport) -> Result<Route, Skip> {
        guard let locations = archive.array(object["routeCoordinates"]) else {
            return .failure(Skip(text: "no routeCoordinates array"))
        }
        var points: [TrackPoint] = []
        points.reserveCapacity(locations.count)
        for location in locations {
            if let point = point(location) { points.append(point) } else { report.pointsSkipped += 1 }
        }
        guard !points.isEmpty else {
            return .failure(Skip(text: locations.isEmpty ? "no locations" : "none of its \(locations.count) locations is valid"))
        }
        var metadata = RouteMetadata()
        if let distance = archive.number(object["totalDistance"]), distance.isFinite, distance >= 0 {
            metadata.distance = distance
        }
        if let key = object.keys.sorted().first(where: { $0.lowercased().contains("calorie") }),
           let calories = archive.number(object[key]), calories.isFinite, calories >= 0 {
            metadata.calories = calories
        }
        var splits: [Split] = []
        let computed = RouteMetrics.splits(of: points)
        for (unit, coordinatesKey, timesKey) in [(Split.Unit.kilometre, "kmCoordinates", "kmTimes"),
                                                 (.mile, "mileCoordinates", "mileTimes")] {
            let archived = self.splits(unit, archive.array(object[coordinatesKey]) ?? [],
                                       archive.array(object[timesKey]) ?? [], points)
            if archived.isEmpty {
                let own = computed.filter { $0.unit == unit }
                splits += own
                report.splitsComputed += own.count
            } else {
                splits += archived
                report.splitsFromArchive += archived.count
            }
        }
        return .success(Route(points: points, splits: splits, metadata: metadata))
    }

    /// A TrackPoint from an archived CLLocation, or nil when it is not a valid fix.
    func point(_ value: Any) -> TrackPoint? {
        guard let location = value as? [String: Any],
              let lat = archive.number(location[Key.latitude]), let lon = archive.number(location[Key.longitude]),
              lat.isFinite, lon.isFinite, (-90...90).contains(lat), (-180...180).contains(lon),
              let time = archive.date(location[Key.timestamp]),
              GPXImportOptions.validTimes.contains(time.timeIntervalSince1970) else { return nil }
        let horizontal = archive.number(location[Key.horizontalAccuracy])
        // CoreLocation: a negative horizontal accuracy means the coordinate is invalid.
        if let horizontal, horizontal < 0 { return nil }
        func finite(_ key: String) -> Double? { archive.number(location[key]).flatMap { $0.isFinite ? $0 : nil } }
        return TrackPoint(latitude: lat, longitude: lon, timestamp: time, altitude: finite(Key.altitude),
                          horizontalAccuracy: horizontal.flatMap { $0.isFinite ? $0 : nil },
                          verticalAccuracy: finite(Key.verticalAccuracy), speed: finite(Key.speed),
                          course: finite(Key.course))
    }

    /// Archived splits of one unit: the time from `times` (or the split location's own
    /// timestamp), matched to the point nearest in time.
    func splits(_ unit: Split.Unit, _ locations: [Any], _ times: [Any], _ points: [TrackPoint]) -> [Split] {
        let start = points[0].timestamp
        let count = max(locations.count, times.count)
        var result: [Split] = []
        for i in 0..<count {
            let time = i < times.count ? archive.date(times[i]) : nil
            let fallback = i < locations.count ? (locations[i] as? [String: Any]).flatMap {
                archive.date($0[Key.timestamp])
            } : nil
            guard let when = time ?? fallback else { continue }
            let index = nearestIndex(points, to: when)
            result.append(Split(unit: unit, pointIndex: index, elapsedTime: max(0, when.timeIntervalSince(start))))
        }
        return result
    }

    /// The index of the point whose timestamp is nearest `date` (points are in
    /// recording order, but time may repeat, so this is a plain scan).
    func nearestIndex(_ points: [TrackPoint], to date: Date) -> Int {
        var best = 0
        var bestGap = Double.infinity
        for (i, p) in points.enumerated() {
            let gap = abs(p.timestamp.timeIntervalSince(date))
            if gap < bestGap {
                best = i
                bestGap = gap
            }
        }
        return best
    }
}
