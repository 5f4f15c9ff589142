import CRouteLogSystem

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
    /// The app's coordinates and times and each step's length, when made with
    /// `measuring`: what the stats measure a route's largest speed from when its points
    /// have no speed of their own (``RouteStats``). Its memory goes back to
    /// ``ScratchMemory`` with the columns.
    private(set) var measuredTrack: TrackScratch?

    /// Gives the measured track's memory back once the stats are made (32 bytes a
    /// point, which the point block's encoding after them does not need).
    mutating func releaseMeasuredTrack() { measuredTrack = nil }

    /// - Parameters:
    ///   - validating: checks every point as ``RouteValidation/validate(_:index:)`` does
    ///     (the points must be valid otherwise).
    ///   - segmentStarts: when given, also measures the route (``statistics``).
    ///   - layout: how to read the points a field at a time; nil reads them point by
    ///     point (the same columns; tests compare the two).
    /// - Throws: ``RouteLogError/Code/invalidArgument`` naming the first bad point.
    init(_ points: [TrackPoint], validating: Bool, measuring segmentStarts: [Int]? = nil,
         layout: TrackPointLayout? = TrackPointLayout.current) throws {
        let n = points.count
        count = n
        latitudes = Int64Column(capacity: n)
        longitudes = Int64Column(capacity: n)
        times = Int64Column(capacity: n)
        let cm = FormatConstants.centimetreScale, perMinute = FormatConstants.perMinuteScale
        let metric = FormatConstants.metricLimit, perMinuteLimit = FormatConstants.perMinuteLimit
        let altitude = OptionalSink(cm, metric, n), horizontal = OptionalSink(cm, metric, n)
        let vertical = OptionalSink(cm, metric, n), speed = OptionalSink(cm, metric, n)
        let course = OptionalSink(FormatConstants.courseScale, metric, n)
        let heartRate = OptionalSink(perMinute, perMinuteLimit, n, nonNegative: true)
        let cadence = OptionalSink(perMinute, perMinuteLimit, n, nonNegative: true)
        // The app's own coordinates and times, for measuring (distances are of the
        // points as given, before quantization).
        let track = segmentStarts == nil ? nil : TrackScratch(count: n)
        let lat = latitudes.base, lon = longitudes.base, time = times.base
        var south = Int64.max, north = Int64.min, west = Int64.max, east = Int64.min
        var valid: UInt8 = 1
        var sinks = [altitude, horizontal, vertical, speed, course, heartRate, cadence]
        if let layout {
            // Every field, a few hundred points at a time, four points at a time where the
            // processor can (``routelog_quantize_fields``): one loop over all the fields
            // had more live values than the processor has registers.
            let degrees = FormatConstants.degreeScale, ref = Self.referenceDateSince1970
            var specs = [
                routelog_field_spec(field: layout.latitude, optional: 0, offset: 0, scale: degrees, low: -90, high: 90,
                                    values: lat, raw: track?.latitudes),
                routelog_field_spec(field: layout.longitude, optional: 0, offset: 0, scale: degrees, low: -180, high: 180,
                                    values: lon, raw: track?.longitudes),
                routelog_field_spec(field: layout.time, optional: 0, offset: ref, scale: FormatConstants.millisecondsPerSecond,
                                    low: -ref, high: .infinity, values: time, raw: track?.times),
            ]
            for (k, field) in layout.optional.enumerated() { specs.append(sinks[k].spec(field: field)) }
            // The fields the stats read, copied as they are read (the copies are
            // contiguous; the points are 80 bytes apart).
            let copies = track?.statsFieldCopies()
            for (k, copy) in zip(TrackScratch.statsFieldSlots, copies ?? []) { specs[3 + k].raw = copy }
            var summaries = [routelog_field_summary](repeating: routelog_field_summary(), count: specs.count)
            points.withUnsafeBufferPointer { p in
                guard let start = p.baseAddress else { return }
                UnsafeRawPointer(start).withMemoryRebound(to: Double.self, capacity: n * layout.stride) { d in
                    routelog_quantize_fields(d, n, layout.stride, specs, specs.count, TrackPoint.absentBitPattern, &summaries)
                    for s in summaries.prefix(3) { valid &= bit(s.in_range != 0) }
                    valid &= bit(summaries[2].max < FormatConstants.latestTimestampMs)
                    (south, north, west, east) = (summaries[0].min, summaries[0].max, summaries[1].min, summaries[1].max)
                    for (k, field) in layout.optional.enumerated() {
                        valid &= sinks[k].finishGathering(summaries[3 + k], d, field: field, stride: layout.stride, count: n)
                    }
                    if let track, let copies {
                        let kept = zip(TrackScratch.statsFieldSlots, copies).map { k, copy in summaries[3 + k].absent < n ? copy : nil }
                        track.statsFields = StatsFields(altitudes: kept[0], speeds: kept[1], heartRates: kept[2], cadences: kept[3])
                    }
                }
            }
        } else {
            // Validity is gathered as bits, without a branch per check, and looked at
            // once: only a route with a bad point pays for finding which one.
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
                    let raw = (point.rawAltitude, point.rawHorizontalAccuracy, point.rawVerticalAccuracy, point.rawSpeed,
                               point.rawCourse, point.rawHeartRate, point.rawCadence)
                    valid &= sinks[0].take(raw.0, i) & sinks[1].take(raw.1, i) & sinks[2].take(raw.2, i)
                        & sinks[3].take(raw.3, i) & sinks[4].take(raw.4, i) & sinks[5].take(raw.5, i) & sinks[6].take(raw.6, i)
                    track?.set(i, point.latitude, point.longitude, seconds)
                }
            }
        }
        latitudes.count = n
        longitudes.count = n
        times.count = n
        let tags: [Tag] = [.altitude, .horizontalAccuracy, .verticalAccuracy, .speed, .course, .heartRate, .cadence]
        optional = zip(tags, sinks).compactMap { tag, sink in sink.finish().map { (tag, $0.values, $0.bitmap) } }
        if validating && valid == 0 {
            for (i, point) in points.enumerated() { try RouteValidation.validate(point, index: i) }
        }
        (self.south, self.north, self.west, self.east) = (south, north, west, east)
        if let track, let segmentStarts {
            statistics = RouteStatistics(track: track, segmentStarts: segmentStarts)
            measuredTrack = track
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
    /// The points' own altitudes, speeds, heart rates and cadences, as the stats read
    /// them, when the gathering pass copied them (it reads the points a field at a
    /// time).
    var statsFields: StatsFields?
    /// The memory of ``statsFieldCopies()``.
    private var copies: UnsafeMutablePointer<Double>?
    /// The slots of ``PointField/optional`` the stats read: altitude, speed, heart rate,
    /// cadence.
    static let statsFieldSlots = [0, 3, 5, 6]

    init(count: Int) {
        self.count = count
        latitudes = ScratchMemory.take(Double.self, count: max(1, count))
        longitudes = ScratchMemory.take(Double.self, count: max(1, count))
        times = ScratchMemory.take(Double.self, count: max(1, count))
        lengths = ScratchMemory.take(Double.self, count: max(1, count))
    }

    @inline(__always)
    func set(_ i: Int, _ latitude: Double, _ longitude: Double, _ time: Double) {
        latitudes[i] = latitude
        longitudes[i] = longitude
        times[i] = time
    }

    /// Room for a copy of each field the stats read, in ``statsFieldSlots``' order.
    func statsFieldCopies() -> [UnsafeMutablePointer<Double>] {
        let n = max(1, count)
        let memory = copies ?? ScratchMemory.take(Double.self, count: 4 * n)
        copies = memory
        return (0..<4).map { memory + $0 * n }
    }

    deinit {
        if let copies { ScratchMemory.give(copies, count: 4 * max(1, count)) }
        ScratchMemory.give(latitudes, count: max(1, count))
        ScratchMemory.give(longitudes, count: max(1, count))
        ScratchMemory.give(times, count: max(1, count))
        ScratchMemory.give(lengths, count: max(1, count))
    }
}

/// Copies of the points' own values of the fields the stats read, one double a point
/// (``TrackPoint/absent`` where a point has none); nil for a field no point has.
struct StatsFields {
    var altitudes: UnsafeMutablePointer<Double>?
    var speeds: UnsafeMutablePointer<Double>?
    var heartRates: UnsafeMutablePointer<Double>?
    var cadences: UnsafeMutablePointer<Double>?
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
        values = ScratchMemory.take(Int64.self, count: max(1, pointCount))
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

    /// What ``routelog_quantize_fields`` is to do with this field, the `field`-th double
    /// of each point: every value into the sink's memory, in place.
    func spec(field: Int) -> routelog_field_spec {
        routelog_field_spec(field: field, optional: 1, offset: 0, scale: scale, low: nonNegative ? 0 : -limit, high: limit,
                            values: values, raw: nil)
    }

    /// Takes the field ``spec(field:)`` described, from what quantizing it found; returns
    /// 1 when every value is valid (or absent). A field every point has is already in
    /// place, and one no point has is no column; a field with gaps is taken again point
    /// by point, for its bitmap.
    mutating func finishGathering(_ s: routelog_field_summary, _ points: UnsafePointer<Double>, field: Int, stride: Int,
                                  count n: Int) -> UInt8 {
        if s.absent == 0 {
            present = n
            return bit(s.in_range != 0)
        }
        if s.absent == n { return 1 }
        var valid: UInt8 = 1
        for i in 0..<n { valid &= take(points[i * stride + field], i) }
        return valid
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
            ScratchMemory.give(values, count: max(1, pointCount))
            return nil
        }
        let column = Int64Column(taking: values, capacity: max(1, pointCount), count: present)
        let bits = present == pointCount ? nil : bitmap.map { Array(UnsafeBufferPointer(start: $0, count: (pointCount + 7) / 8)) }
        return (column, bits)
    }
}
