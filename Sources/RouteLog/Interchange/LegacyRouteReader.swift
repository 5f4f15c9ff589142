import Foundation

/// Turns one archived route object of the old app into a ``Route``, within
/// ``ImportLimits``: every count is checked against the limits before anything of
/// that size is allocated, and a split is matched to its point through a
/// ``NearestTimeIndex``, so a route costs time linear in its points and splits.
struct LegacyRouteReader {
    let archive: KeyedArchive
    let limits: ImportLimits

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

    /// The route, or why it was skipped. (The archive's location counts were checked
    /// against the point limits before; splits are checked here.)
    /// - Throws: `.invalidArgument` for a limit passed or a damaged property list.
    func route(_ object: KeyedArchive.ArchivedObject, number: Int,
               report: inout LegacyMigrationReport, splitsInFile: inout Int) throws -> Result<Route, Skip> {
        guard let locations = try archive.array(object["routeCoordinates"]) else {
            return .failure(Skip(text: "no routeCoordinates array"))
        }
        var points: [TrackPoint] = []
        points.reserveCapacity(locations.count)
        for i in 0..<locations.count {
            if let point = try point(archive.element(locations, i)) { points.append(point) } else { report.pointsSkipped += 1 }
        }
        guard !points.isEmpty else {
            return .failure(Skip(text: locations.count == 0 ? "no locations" : "none of its \(locations.count) locations is valid"))
        }
        var metadata = RouteMetadata()
        if let distance = try archive.number(object["totalDistance"]), distance.isFinite, distance >= 0 {
            metadata.distance = distance
        }
        if let key = object.keys.sorted().first(where: { $0.lowercased().contains("calorie") }),
           let calories = try archive.number(object[key]), calories.isFinite, calories >= 0 {
            metadata.calories = calories
        }
        var archived: [Split.Unit: [Split]] = [:]
        var index = NearestTimeIndex(points)
        for (unit, coordinatesKey, timesKey) in [(Split.Unit.kilometre, "kmCoordinates", "kmTimes"),
                                                 (.mile, "mileCoordinates", "mileTimes")] {
            let coordinates = try archive.array(object[coordinatesKey]), times = try archive.array(object[timesKey])
            let count = max(coordinates?.count ?? 0, times?.count ?? 0)
            guard count + archived.values.reduce(0, { $0 + $1.count }) <= limits.splitsPerRoute else {
                throw refusal("archived route \(number) has more than \(ImportLimits.grouped(limits.splitsPerRoute)) "
                                  + "kilometre and mile splits (ImportLimits.splitsPerRoute)")
            }
            guard limits.admitSplits(count, into: &splitsInFile) else { throw splitsPerFileRefusal(number) }
            archived[unit] = try splits(unit, count: count, coordinates, times, points, &index)
        }
        var splits: [Split] = []
        var computed: [Split]?
        for unit in Split.Unit.allCases {
            if let own = archived[unit], !own.isEmpty {
                splits += own
                report.splitsFromArchive += own.count
                continue
            }
            if computed == nil {
                let metres = RouteMetrics.distance(of: points)
                guard ImportLimits.splitCount(metres: metres) <= Double(limits.splitsPerRoute) else {
                    throw refusal("archived route \(number) is \(Int(metres / 1000)) km long, which makes more than "
                                      + "\(ImportLimits.grouped(limits.splitsPerRoute)) kilometre and mile splits "
                                      + "(ImportLimits.splitsPerRoute)")
                }
                // Charged for the units the archive lacks only: those are the computed
                // splits kept (an old app's archive has its kilometres, not its miles).
                let kept = Split.Unit.allCases.filter { archived[$0]?.isEmpty ?? true }
                    .reduce(0.0) { $0 + (metres / $1.metres).rounded(.down) }
                guard limits.admitSplits(Int(kept), into: &splitsInFile) else { throw splitsPerFileRefusal(number) }
                computed = RouteMetrics.splits(of: points)
            }
            let own = computed!.filter { $0.unit == unit }
            splits += own
            report.splitsComputed += own.count
        }
        return .success(Route(points: points, splits: splits, metadata: metadata))
    }

    private func splitsPerFileRefusal(_ number: Int) -> RouteLogError {
        refusal("with archived route \(number), the routes make more than \(ImportLimits.grouped(limits.splitsPerFile)) "
                    + "kilometre and mile splits together (ImportLimits.splitsPerFile)")
    }

    func refusal(_ what: String) -> RouteLogError {
        RouteLogError(.invalidArgument, "archive refused: \(what); nothing was migrated", path: archive.plist.source)
    }

    /// A TrackPoint from an archived CLLocation, or nil when it is not a valid fix.
    func point(_ value: Int?) throws -> TrackPoint? {
        guard let location = try archive.object(value),
              let lat = try archive.number(location[Key.latitude]), let lon = try archive.number(location[Key.longitude]),
              lat.isFinite, lon.isFinite, (-90...90).contains(lat), (-180...180).contains(lon),
              let time = try archive.date(location[Key.timestamp]),
              GPXImportOptions.isValidTime(time.timeIntervalSince1970) else { return nil }
        let horizontal = try archive.number(location[Key.horizontalAccuracy])
        // CoreLocation: a negative horizontal accuracy means the coordinate is invalid.
        if let horizontal, horizontal < 0 { return nil }
        func finite(_ key: String) throws -> Double? { try archive.number(location[key]).flatMap { $0.isFinite ? $0 : nil } }
        return TrackPoint(latitude: lat, longitude: lon, timestamp: time, altitude: try finite(Key.altitude),
                          horizontalAccuracy: horizontal.flatMap { $0.isFinite ? $0 : nil },
                          verticalAccuracy: try finite(Key.verticalAccuracy), speed: try finite(Key.speed),
                          course: try finite(Key.course))
    }

    /// Archived splits of one unit: the time from `times` (or the split location's own
    /// timestamp), matched to the point nearest in time. A split without a usable time
    /// (none, or not a finite one) is left out.
    func splits(_ unit: Split.Unit, count: Int, _ locations: BinaryPropertyList.References?,
                _ times: BinaryPropertyList.References?, _ points: [TrackPoint],
                _ index: inout NearestTimeIndex) throws -> [Split] {
        let start = points[0].timestamp
        var result: [Split] = []
        result.reserveCapacity(count)
        for i in 0..<count {
            var when: Date?
            if let times, i < times.count { when = try archive.date(archive.element(times, i)) }
            if when == nil, let locations, i < locations.count,
               let location = try archive.object(archive.element(locations, i)) {
                when = try archive.date(location[Key.timestamp])
            }
            guard let when, when.timeIntervalSince1970.isFinite else { continue }
            let point = index.nearest(to: when)
            result.append(Split(unit: unit, pointIndex: point, elapsedTime: max(0, when.timeIntervalSince(start))))
        }
        return result
    }
}
