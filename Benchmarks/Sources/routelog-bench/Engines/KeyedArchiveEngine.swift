import Foundation
import RouteLog
#if canImport(Glibc)
import Glibc
#endif

/// What apps did before Core Data: every route in one NSMutableArray of NSCoding
/// objects (a route object holding CLLocation-like point objects), archived whole with
/// NSKeyedArchiver on every save and written atomically (temporary file, rename). In
/// durable mode the temporary file and the directory are fsynced, as a careful app would.
final class KeyedArchiveEngine: StorageEngine {
    private let directory: URL
    private let file: URL
    private var routes = NSMutableArray()
    private var durable = true

    init(directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        file = directory.appendingPathComponent("routes.archive")
    }

    var isQueryable: Bool { true }
    var diskBytes: Int64 { ProcessStats.diskBytes(at: directory) }

    func prepare(durable: Bool) throws { self.durable = durable }

    func save(_ route: Route) throws {
        routes.add(ArchivedRoute(route))
        let data = try NSKeyedArchiver.archivedData(withRootObject: routes, requiringSecureCoding: false)
        try writeAtomically(data)
    }

    /// Growth adds the routes to the array only: the next save archives the whole array
    /// anyway, so the file it writes is the same as if every route had been saved.
    func fill(_ fills: [FillRoute]) throws {
        for fill in fills { routes.add(ArchivedRoute(fill.route)) }
    }

    func close() throws { routes = NSMutableArray() }

    func open() throws {
        let data = try Data(contentsOf: file)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        guard let array = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? NSArray else {
            throw BenchError("keyed archive: the root object is not an array")
        }
        routes = NSMutableArray(array: array)
    }

    private func summaries() -> [RouteSummary] {
        var result: [RouteSummary] = []
        result.reserveCapacity(routes.count)
        for case let (offset, route as ArchivedRoute) in routes.enumerated() {
            result.append(route.summary.summary(id: UInt64(offset + 1)))
        }
        return result.sorted { ($0.startDate, $0.id) < ($1.startDate, $1.id) }
    }

    func listSummaries() throws -> Int { summaries().count }

    func weeklyTotals() throws -> Int { WeeklyTotals.group(summaries(), calendar: benchmarkCalendar).count }

    /// The array is in memory after open: loading is turning objects back into a Route.
    func loadRoute(ordinal: Int) throws -> Int {
        guard let archived = routes[ordinal] as? ArchivedRoute else { throw BenchError("keyed archive: bad object") }
        return archived.route().points.count
    }

    private func writeAtomically(_ data: Data) throws {
        let temporary = directory.appendingPathComponent("routes.archive.tmp")
        let fd = posixOpen(temporary.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw BenchError("open \(temporary.path): errno \(errno)") }
        defer { posixClose(fd) }
        try data.withUnsafeBytes { try FileIO.writeAll(fd, $0) }
        if durable { try FileIO.sync(fd) }
        guard rename(temporary.path, file.path) == 0 else { throw BenchError("rename: errno \(errno)") }
        if durable { try FileIO.syncDirectory(directory) }
    }
}

/// A route as the old app kept it: an NSObject with NSCoding, holding location objects.
final class ArchivedRoute: NSObject, NSCoding {
    let summary: SummaryFields
    let locations: [ArchivedLocation]
    let splits: [[Double]]
    let segmentStarts: [Int]

    init(_ route: Route) {
        summary = SummaryFields(route)
        locations = route.points.map(ArchivedLocation.init)
        splits = route.splits.map { [Double($0.unit.rawValue), Double($0.pointIndex), $0.elapsedTime] }
        segmentStarts = route.segmentStarts
    }

    func route() -> Route {
        Route(points: locations.map(\.point),
              splits: splits.map { Split(unit: Split.Unit(rawValue: UInt8($0[0])) ?? .kilometre,
                                         pointIndex: Int($0[1]), elapsedTime: $0[2]) },
              metadata: RouteMetadata(name: summary.name, calories: summary.calories),
              segmentStarts: segmentStarts)
    }

    func encode(with coder: NSCoder) {
        coder.encode(summary.startDate as NSDate, forKey: "startDate")
        coder.encode(summary.duration, forKey: "duration")
        coder.encode(summary.distance, forKey: "distance")
        coder.encode(summary.calories, forKey: "calories")
        coder.encode(summary.pointCount, forKey: "pointCount")
        coder.encode([summary.south, summary.west, summary.north, summary.east,
                      summary.start.latitude, summary.start.longitude,
                      summary.end.latitude, summary.end.longitude] as NSArray, forKey: "box")
        if let name = summary.name { coder.encode(name as NSString, forKey: "name") }
        coder.encode(locations as NSArray, forKey: "locations")
        coder.encode(splits as NSArray, forKey: "splits")
        coder.encode(segmentStarts as NSArray, forKey: "segmentStarts")
    }

    init?(coder: NSCoder) {
        guard let start = coder.decodeObject(forKey: "startDate") as? Date,
              let box = coder.decodeObject(forKey: "box") as? [Double], box.count == 8,
              let locations = coder.decodeObject(forKey: "locations") as? [ArchivedLocation]
        else { return nil }
        var fields = SummaryFields(Route(points: [TrackPoint(latitude: box[4], longitude: box[5], timestamp: start)]))
        fields.startDate = start
        fields.duration = coder.decodeDouble(forKey: "duration")
        fields.distance = coder.decodeDouble(forKey: "distance")
        fields.calories = coder.decodeDouble(forKey: "calories")
        fields.pointCount = coder.decodeInteger(forKey: "pointCount")
        (fields.south, fields.west, fields.north, fields.east) = (box[0], box[1], box[2], box[3])
        fields.end = Coordinate(latitude: box[6], longitude: box[7])
        // Routes without a name have no "name" key (and decoding a missing key traps).
        fields.name = coder.containsValue(forKey: "name") ? coder.decodeObject(forKey: "name") as? String : nil
        summary = fields
        self.locations = locations
        splits = coder.decodeObject(forKey: "splits") as? [[Double]] ?? []
        segmentStarts = coder.decodeObject(forKey: "segmentStarts") as? [Int] ?? []
    }
}

/// A point as CLLocation archives itself: one keyed value per field.
final class ArchivedLocation: NSObject, NSCoding {
    let point: TrackPoint

    init(_ point: TrackPoint) { self.point = point }

    func encode(with coder: NSCoder) {
        coder.encode(point.latitude, forKey: "kCLLocationCodingKeyCoordinateLatitude")
        coder.encode(point.longitude, forKey: "kCLLocationCodingKeyCoordinateLongitude")
        coder.encode(point.timestamp.timeIntervalSinceReferenceDate, forKey: "kCLLocationCodingKeyTimestamp")
        coder.encode(point.altitude ?? 0, forKey: "kCLLocationCodingKeyAltitude")
        coder.encode(point.horizontalAccuracy ?? -1, forKey: "kCLLocationCodingKeyHorizontalAccuracy")
        coder.encode(point.verticalAccuracy ?? -1, forKey: "kCLLocationCodingKeyVerticalAccuracy")
        coder.encode(point.speed ?? -1, forKey: "kCLLocationCodingKeySpeed")
        coder.encode(point.course ?? -1, forKey: "kCLLocationCodingKeyCourse")
    }

    init?(coder: NSCoder) {
        func optional(_ key: String) -> Double? {
            let value = coder.decodeDouble(forKey: key)
            return value < 0 ? nil : value
        }
        point = TrackPoint(
            latitude: coder.decodeDouble(forKey: "kCLLocationCodingKeyCoordinateLatitude"),
            longitude: coder.decodeDouble(forKey: "kCLLocationCodingKeyCoordinateLongitude"),
            timestamp: Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "kCLLocationCodingKeyTimestamp")),
            altitude: coder.decodeDouble(forKey: "kCLLocationCodingKeyAltitude"),
            horizontalAccuracy: optional("kCLLocationCodingKeyHorizontalAccuracy"),
            verticalAccuracy: optional("kCLLocationCodingKeyVerticalAccuracy"),
            speed: optional("kCLLocationCodingKeySpeed"),
            course: optional("kCLLocationCodingKeyCourse"))
    }
}
