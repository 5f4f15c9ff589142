import Foundation

/// One `<trk>` or `<rte>` as read, before the import policy (times, jumps) is applied.
///
/// The points are kept in columns of `Double`, an optional column only once some point
/// has that value: 16 bytes a point for a bare track, 24 with times, where a
/// `TrackPoint` takes 152. A file refused at the point limit has therefore cost a few
/// tens of megabytes, not hundreds.
struct GPXPath {
    /// The optional point fields GPX carries, in the order of their columns.
    enum Field: Int, CaseIterable {
        case altitude, horizontalAccuracy, verticalAccuracy, speed, course, heartRate, cadence
    }

    var name: String?
    var isPlannedRoute: Bool
    private(set) var latitudes: [Double] = []
    private(set) var longitudes: [Double] = []
    /// Unix seconds; NaN where the file gave the point no time.
    private(set) var times: [Double] = []
    /// One column per ``Field``: empty until a point has the value, NaN where a point
    /// lacks it.
    private var optional: [[Double]] = Array(repeating: [], count: Field.allCases.count)
    /// Indices where a new `<trkseg>` starts (never 0).
    var segmentStarts: [Int] = []
    /// `<trkseg>` elements without a point.
    var emptySegments = 0
    /// RouteLog's own track extensions: the app's calories and distance.
    var calories: Double?
    var distance: Double?
    /// The kind of activity: GPX `<type>`, FIT sport, TCX `Sport`.
    var activity: ActivityKind?
    /// Its place among the file's `<trk>` and `<rte>` elements, from 1 (those without
    /// points counted too), to name it in messages.
    var placeInFile = 0

    init(name: String? = nil, isPlannedRoute: Bool) {
        self.name = name
        self.isPlannedRoute = isPlannedRoute
    }

    var count: Int { latitudes.count }
    var isEmpty: Bool { latitudes.isEmpty }

    /// Whether point `index` had a `<time>` in the file.
    func hasTime(_ index: Int) -> Bool { !times[index].isNaN }

    /// Gives point `index` a time found after it was read (Unix seconds): a FIT
    /// record's system time made UTC by a later correlation.
    mutating func setTime(at index: Int, _ seconds: Double) { times[index] = seconds }

    /// Appends a point: its coordinate, its time if the file gave one, and whichever
    /// optional values it has (non-finite values never get here: the reader refuses them).
    mutating func append(_ point: GPXPointValues) {
        let index = count
        latitudes.append(point.latitude)
        longitudes.append(point.longitude)
        times.append(point.time ?? .nan)
        // Unrolled: a loop over the fields costs more than the fields themselves.
        Self.append(point.altitude, to: &optional[Field.altitude.rawValue], at: index)
        Self.append(point.horizontalAccuracy, to: &optional[Field.horizontalAccuracy.rawValue], at: index)
        Self.append(point.verticalAccuracy, to: &optional[Field.verticalAccuracy.rawValue], at: index)
        Self.append(point.speed, to: &optional[Field.speed.rawValue], at: index)
        Self.append(point.course, to: &optional[Field.course.rawValue], at: index)
        Self.append(point.heartRate, to: &optional[Field.heartRate.rawValue], at: index)
        Self.append(point.cadence, to: &optional[Field.cadence.rawValue], at: index)
    }

    /// Appends a value to an optional column, which starts (NaN-filled) at its first value.
    private static func append(_ value: Double?, to column: inout [Double], at index: Int) {
        if column.isEmpty {
            guard let value else { return }
            column = Array(repeating: .nan, count: index)
            column.reserveCapacity(Swift.max(16, 2 * index))
            column.append(value)
        } else {
            column.append(value ?? .nan)
        }
    }

    /// The points, each timestamp taken from `times` (which has no NaN left), the
    /// columns freed as the points are made.
    mutating func takePoints(times filled: [Double]) -> [TrackPoint] {
        var points: [TrackPoint] = []
        points.reserveCapacity(count)
        let columns = optional
        optional = Array(repeating: [], count: Field.allCases.count)
        func value(_ field: Field, _ i: Int) -> Double? {
            let column = columns[field.rawValue]
            guard !column.isEmpty, !column[i].isNaN else { return nil }
            return column[i]
        }
        for i in 0..<count {
            points.append(TrackPoint(
                latitude: latitudes[i], longitude: longitudes[i], timestamp: Date(timeIntervalSince1970: filled[i]),
                altitude: value(.altitude, i), horizontalAccuracy: value(.horizontalAccuracy, i),
                verticalAccuracy: value(.verticalAccuracy, i), speed: value(.speed, i), course: value(.course, i),
                heartRate: value(.heartRate, i), cadence: value(.cadence, i)))
        }
        latitudes = []
        longitudes = []
        times = []
        return points
    }
}

/// The values of the point being read, before it joins its path's columns.
struct GPXPointValues {
    var latitude: Double
    var longitude: Double
    var time: Double?
    var altitude: Double?
    var horizontalAccuracy: Double?
    var verticalAccuracy: Double?
    var speed: Double?
    var course: Double?
    var heartRate: Double?
    var cadence: Double?

}

extension GPXPointValues {
    /// The values of a point a FIT or TCX reader built; `hasTime` says whether its
    /// file gave it a time of its own.
    init(_ point: TrackPoint, hasTime: Bool) {
        self.init(latitude: point.latitude, longitude: point.longitude,
                  time: hasTime ? point.timestamp.timeIntervalSince1970 : nil,
                  altitude: point.altitude, horizontalAccuracy: point.horizontalAccuracy,
                  verticalAccuracy: point.verticalAccuracy, speed: point.speed, course: point.course,
                  heartRate: point.heartRate, cadence: point.cadence)
    }
}

/// Everything a GPX file held that the importer cares about.
///
/// Only the paths with points are kept; those without any are counted, with their
/// segments, so that a file of millions of `<trk/>` costs no memory per element
/// (memory grows with the points kept, never with the text).
struct GPXContents {
    var paths: [GPXPath] = []
    /// `<trk>` and `<rte>` elements without a point, not kept.
    var pathsWithoutPoints = 0
    /// The `<trkseg>` elements of those paths (all without a point).
    var segmentsOfPathsWithoutPoints = 0
    var fileTime: Date?
    var waypoints = 0
    var unknownExtensions = 0
    var version: String?
}
