/// A route's points as stored integers, one array per column, made in a single pass
/// over the points that also validates them: a 3,600-point route is half a megabyte
/// of `TrackPoint`s, and walking it once instead of a dozen times is most of a save's
/// CPU.
struct PointColumns {
    typealias Tag = FormatConstants.ColumnTag

    let count: Int
    var latitudes: [Int64]
    var longitudes: [Int64]
    var times: [Int64]
    /// The optional columns some point has: tag, values of the points that have one,
    /// and a presence bitmap when not every point has one.
    var optional: [(tag: Tag, values: [Int64], bitmap: [UInt8]?)] = []

    /// - Throws: ``RouteLogError/Code/invalidArgument`` naming the first bad point, when
    ///   `validating` (the points must be valid otherwise).
    init(_ points: [TrackPoint], validating: Bool) throws {
        count = points.count
        latitudes = [Int64](repeating: 0, count: count)
        longitudes = [Int64](repeating: 0, count: count)
        times = [Int64](repeating: 0, count: count)
        let fields = PointField.optional
        // One builder per optional field, unrolled: a closure or key path per field
        // costs more than the field itself.
        var altitude = OptionalColumn(fields[0], count), horizontal = OptionalColumn(fields[1], count)
        var vertical = OptionalColumn(fields[2], count), speed = OptionalColumn(fields[3], count)
        var course = OptionalColumn(fields[4], count), heartRate = OptionalColumn(fields[5], count)
        var cadence = OptionalColumn(fields[6], count)
        for i in 0..<count {
            let point = points[i]
            if validating { try RouteValidation.validate(point, index: i) }
            latitudes[i] = Quantization.degrees(point.latitude)
            longitudes[i] = Quantization.degrees(point.longitude)
            times[i] = Quantization.milliseconds(point.timestamp)
            altitude.take(point.altitude, at: i)
            horizontal.take(point.horizontalAccuracy, at: i)
            vertical.take(point.verticalAccuracy, at: i)
            speed.take(point.speed, at: i)
            course.take(point.course, at: i)
            heartRate.take(point.heartRate, at: i)
            cadence.take(point.cadence, at: i)
        }
        for column in [altitude, horizontal, vertical, speed, course, heartRate, cadence] where !column.values.isEmpty {
            optional.append((column.field.tag, column.values, column.values.count == count ? nil : column.bitmap))
        }
    }
}

/// The values of one optional field, and which points have one.
private struct OptionalColumn {
    let field: PointField
    let count: Int
    var values: [Int64] = []
    /// Empty until the first point without a value.
    var bitmap: [UInt8] = []

    init(_ field: PointField, _ count: Int) {
        self.field = field
        self.count = count
    }

    @inline(__always)
    mutating func take(_ value: Double?, at i: Int) {
        guard let value else {
            if bitmap.isEmpty {
                // The first gap: every point before this one had a value.
                bitmap = [UInt8](repeating: 0, count: (count + 7) / 8)
                for j in 0..<i { bitmap[j >> 3] |= 1 << UInt8(j & 7) }
            }
            return
        }
        if values.isEmpty { values.reserveCapacity(count - i) }
        if !bitmap.isEmpty { bitmap[i >> 3] |= 1 << UInt8(i & 7) }
        values.append(Quantization.scaled(value, field.scale))
    }
}
