/// A route's points as stored integers, one column per field, made in a single pass
/// over the points that also validates them and, for a save, keeps what measuring the
/// route needs: a 3,600-point route is 288 KB of `TrackPoint`s, and walking it
/// once instead of a dozen times is most of a save's CPU.
struct PointColumns {
    typealias Tag = FormatConstants.ColumnTag

    let count: Int
    let latitudes: Int64Column
    let longitudes: Int64Column
    let times: Int64Column
    /// The optional columns some point has, in tag order: tag, the values of the points
    /// that have one, and a presence bitmap when not every point has one.
    var optional: [(tag: Tag, values: Int64Column, bitmap: [UInt8]?)] = []
    /// Quantized bounding box (1e-7 degree).
    var south = Int64.max, north = Int64.min, west = Int64.max, east = Int64.min
    /// Distance and moving time, when made with `measuring`.
    var statistics: RouteStatistics?

    /// - Parameters:
    ///   - validating: checks every point as ``RouteValidation/validate(_:index:)`` does
    ///     (the points must be valid otherwise).
    ///   - segmentStarts: when given, also measures the route (``statistics``).
    /// - Throws: ``RouteLogError/Code/invalidArgument`` naming the first bad point.
    init(_ points: [TrackPoint], validating: Bool, measuring segmentStarts: [Int]? = nil) throws {
        let n = points.count
        count = n
        latitudes = Int64Column(capacity: n)
        longitudes = Int64Column(capacity: n)
        times = Int64Column(capacity: n)
        let cm = FormatConstants.centimetreScale, perMinute = FormatConstants.perMinuteScale
        let metric = FormatConstants.metricLimit, perMinuteLimit = FormatConstants.perMinuteLimit
        var altitude = OptionalSink(cm, metric, n), horizontal = OptionalSink(cm, metric, n)
        var vertical = OptionalSink(cm, metric, n), speed = OptionalSink(cm, metric, n)
        var course = OptionalSink(FormatConstants.courseScale, metric, n)
        var heartRate = OptionalSink(perMinute, perMinuteLimit, n, nonNegative: true)
        var cadence = OptionalSink(perMinute, perMinuteLimit, n, nonNegative: true)
        // The app's own coordinates and times, for measuring (distances are of the
        // points as given, before quantization).
        let track = segmentStarts == nil ? nil : TrackScratch(count: n)
        defer { track?.deallocate() }
        let lat = latitudes.base, lon = longitudes.base, time = times.base
        var south = Int64.max, north = Int64.min, west = Int64.max, east = Int64.min
        // Validity is gathered as bits, without a branch per check, and looked at once:
        // only a route with a bad point pays for finding which one.
        var valid: UInt8 = 1
        points.withUnsafeBufferPointer { p in
            for i in 0..<n {
                let point = p[i]
                let seconds = point.timestamp.timeIntervalSinceReferenceDate
                let y = Quantization.degrees(point.latitude), x = Quantization.degrees(point.longitude)
                let ms = Quantization.milliseconds(point.timestamp)
                valid &= bit(point.latitude.magnitude <= 90) & bit(point.longitude.magnitude <= 180)
                    & bit(seconds >= -Self.referenceDateSince1970) & bit(ms < FormatConstants.latestTimestampMs)
                lat[i] = y
                lon[i] = x
                time[i] = ms
                south = Swift.min(south, y); north = Swift.max(north, y)
                west = Swift.min(west, x); east = Swift.max(east, x)
                valid &= altitude.take(point.rawAltitude, i) & horizontal.take(point.rawHorizontalAccuracy, i)
                    & vertical.take(point.rawVerticalAccuracy, i) & speed.take(point.rawSpeed, i) & course.take(point.rawCourse, i)
                    & heartRate.take(point.rawHeartRate, i) & cadence.take(point.rawCadence, i)
                track?.set(i, point.latitude, point.longitude, seconds)
            }
        }
        latitudes.count = n
        longitudes.count = n
        times.count = n
        let sinks = [(Tag.altitude, altitude), (.horizontalAccuracy, horizontal), (.verticalAccuracy, vertical),
                     (.speed, speed), (.course, course), (.heartRate, heartRate), (.cadence, cadence)]
        optional = sinks.compactMap { tag, sink in sink.finish().map { (tag, $0.values, $0.bitmap) } }
        if validating && valid == 0 {
            for (i, point) in points.enumerated() { try RouteValidation.validate(point, index: i) }
        }
        (self.south, self.north, self.west, self.east) = (south, north, west, east)
        if let track, let segmentStarts {
            statistics = RouteStatistics(track: track, segmentStarts: segmentStarts)
        }
    }

    /// Seconds from 1970 to 2001 (Foundation's reference date): a time is valid from
    /// -this many seconds after the reference date.
    static let referenceDateSince1970 = 978_307_200.0
}

@inline(__always)
private func bit(_ condition: Bool) -> UInt8 { condition ? 1 : 0 }

/// The points' coordinates and times as the app gave them, kept by the gathering pass
/// for the measuring pass after it.
final class TrackScratch {
    let latitudes: UnsafeMutablePointer<Double>
    let longitudes: UnsafeMutablePointer<Double>
    /// Seconds since Foundation's reference date, as `Date` keeps them.
    let times: UnsafeMutablePointer<Double>
    /// Room for the measuring pass's step lengths.
    let lengths: UnsafeMutablePointer<Double>
    let count: Int

    init(count: Int) {
        self.count = count
        latitudes = .allocate(capacity: max(1, count))
        longitudes = .allocate(capacity: max(1, count))
        times = .allocate(capacity: max(1, count))
        lengths = .allocate(capacity: max(1, count))
    }

    @inline(__always)
    func set(_ i: Int, _ latitude: Double, _ longitude: Double, _ time: Double) {
        latitudes[i] = latitude
        longitudes[i] = longitude
        times[i] = time
    }

    func deallocate() {
        latitudes.deallocate()
        longitudes.deallocate()
        times.deallocate()
        lengths.deallocate()
    }
}

/// One optional field's values as they are gathered: written through a raw pointer
/// (no array checks per value), with a bitmap only from the first point without one.
private struct OptionalSink {
    private let values: UnsafeMutablePointer<Int64>
    private var present = 0
    private var bitmap: UnsafeMutablePointer<UInt8>?
    private let scale: Double
    private let limit: Double
    private let nonNegative: Bool
    private let pointCount: Int

    init(_ scale: Double, _ limit: Double, _ pointCount: Int, nonNegative: Bool = false) {
        self.scale = scale
        self.limit = limit
        self.nonNegative = nonNegative
        self.pointCount = pointCount
        values = .allocate(capacity: max(1, pointCount))
    }

    /// Takes point i's value as stored in the point (``TrackPoint/absent`` for none);
    /// returns 1 when it is valid (or absent), 0 when not.
    @inline(__always)
    mutating func take(_ value: Double, _ i: Int) -> UInt8 {
        guard !TrackPoint.isAbsent(value) else {
            if bitmap == nil { bitmap = Self.startBitmap(at: i, pointCount) }
            return 1
        }
        values[present] = Quantization.scaled(value, scale)
        present += 1
        if let bitmap { bitmap[i >> 3] |= 1 << UInt8(i & 7) }
        // As RouteValidation: finite and within ±limit (0...limit for rates).
        return nonNegative ? bit(value >= 0) & bit(value <= limit) : bit(value.magnitude <= limit)
    }

    /// The first gap: every point before this one had a value.
    @inline(never)
    private static func startBitmap(at i: Int, _ count: Int) -> UnsafeMutablePointer<UInt8> {
        let bytes = (count + 7) / 8
        let bitmap = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes)
        bitmap.initialize(repeating: 0, count: bytes)
        for j in 0..<i { bitmap[j >> 3] |= 1 << UInt8(j & 7) }
        return bitmap
    }

    /// The column, or nil when no point had a value; the sink's memory goes to the
    /// column (or is freed).
    func finish() -> (values: Int64Column, bitmap: [UInt8]?)? {
        defer { bitmap?.deallocate() }
        guard present > 0 else {
            values.deallocate()
            return nil
        }
        let column = Int64Column(taking: values, capacity: max(1, pointCount), count: present)
        let bits = present == pointCount ? nil : bitmap.map { Array(UnsafeBufferPointer(start: $0, count: (pointCount + 7) / 8)) }
        return (column, bits)
    }
}
