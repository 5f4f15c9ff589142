import Foundation
import CRouteLogSystem

/// The fixed precision of every stored value (format-spec.md, "Quantization").
/// `value(of:)` and `integer(of:)` are exact inverses on quantized values, so
/// quantizing twice changes nothing.
enum Quantization {
    @inline(__always) static func degrees(_ value: Double) -> Int64 { scaled(value, FormatConstants.degreeScale) }
    static func degrees(_ integer: Int64) -> Double { Double(integer) / FormatConstants.degreeScale }

    @inline(__always) static func milliseconds(_ date: Date) -> Int64 {
        scaled(date.timeIntervalSince1970, FormatConstants.millisecondsPerSecond)
    }

    static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / FormatConstants.millisecondsPerSecond)
    }

    static func milliseconds(_ interval: TimeInterval) -> Int64 {
        scaled(interval, FormatConstants.millisecondsPerSecond)
    }

    static func seconds(milliseconds: Int64) -> TimeInterval {
        Double(milliseconds) / FormatConstants.millisecondsPerSecond
    }

    /// `value × scale` rounded to the nearest integer, ties away from zero. Values
    /// beyond ±4.6e18 (or not finite) are clamped: validation refuses them before they
    /// are stored, and quantizing must never trap.
    /// One definition, in C (``routelog_scaled``), so that the conversion is not checked
    /// a second time: QuantizationRoundingTests checks it against the standard library's
    /// rounding.
    @inline(__always)
    static func scaled(_ value: Double, _ scale: Double) -> Int64 { routelog_scaled(value, scale) }

    static func coordinate(_ c: Coordinate) -> Coordinate {
        Coordinate(latitude: degrees(degrees(c.latitude)), longitude: degrees(degrees(c.longitude)))
    }

    /// The stored integers a writer can give an optional column (its field's limits,
    /// quantized), by tag; nil for latitude, longitude and time, which readers check
    /// on their own (``PointBlockV2/storedRanges``).
    static func storedLimits(_ tag: FormatConstants.ColumnTag) -> ClosedRange<Int64>? {
        optionalLimits[Int(tag.rawValue)]
    }

    /// Why the column `tag`'s stored value number `index` (counting the points that have
    /// one, as `presence`, a bitmap, marks them; every point when nil) is damage: named
    /// by its point, as a coordinate out of range is.
    static func outsideLimits(_ tag: FormatConstants.ColumnTag, _ values: UnsafePointer<Int64>, _ index: Int,
                              presence: [UInt8]?, _ limits: ClosedRange<Int64>) -> String {
        let name = PointField.optional.first { $0.tag == tag }?.name ?? "column \(tag.rawValue)"
        var point = index
        if let presence {
            var seen = -1
            point = 0
            for i in 0..<(presence.count * 8) where presence[i >> 3] & (1 << UInt8(i & 7)) != 0 {
                seen += 1
                if seen == index {
                    point = i
                    break
                }
            }
        }
        return "point \(point) has a stored \(name) of \(values[index]), outside \(limits.lowerBound)...\(limits.upperBound), "
            + "the most a writer stores"
    }

    private static let optionalLimits: [ClosedRange<Int64>?] = {
        var limits = [ClosedRange<Int64>?](repeating: nil, count: 256)
        for field in PointField.optional {
            limits[Int(field.tag.rawValue)] = field.integer(field.limits.lowerBound)...field.integer(field.limits.upperBound)
        }
        return limits
    }()
}

/// One point column: how its values are read from and written to a ``TrackPoint``.
struct PointField: Sendable {
    let tag: FormatConstants.ColumnTag
    let name: String
    let scale: Double
    let limits: ClosedRange<Double>
    let get: @Sendable (TrackPoint) -> Double?
    let set: @Sendable (inout TrackPoint, Double?) -> Void

    func integer(_ value: Double) -> Int64 { Quantization.scaled(value, scale) }
    func value(_ integer: Int64) -> Double { Double(integer) / scale }

    /// The optional columns, in the order they are written.
    static let optional: [PointField] = {
        let metric = -FormatConstants.metricLimit...FormatConstants.metricLimit
        let perMinute = 0...FormatConstants.perMinuteLimit
        let cm = FormatConstants.centimetreScale
        return [
            PointField(tag: .altitude, name: "altitude", scale: cm, limits: metric,
                       get: { $0.altitude }, set: { $0.altitude = $1 }),
            PointField(tag: .horizontalAccuracy, name: "horizontal accuracy", scale: cm, limits: metric,
                       get: { $0.horizontalAccuracy }, set: { $0.horizontalAccuracy = $1 }),
            PointField(tag: .verticalAccuracy, name: "vertical accuracy", scale: cm, limits: metric,
                       get: { $0.verticalAccuracy }, set: { $0.verticalAccuracy = $1 }),
            PointField(tag: .speed, name: "speed", scale: cm, limits: metric,
                       get: { $0.speed }, set: { $0.speed = $1 }),
            PointField(tag: .course, name: "course", scale: FormatConstants.courseScale, limits: metric,
                       get: { $0.course }, set: { $0.course = $1 }),
            PointField(tag: .heartRate, name: "heart rate", scale: FormatConstants.perMinuteScale,
                       limits: perMinute, get: { $0.heartRate }, set: { $0.heartRate = $1 }),
            PointField(tag: .cadence, name: "cadence", scale: FormatConstants.perMinuteScale,
                       limits: perMinute, get: { $0.cadence }, set: { $0.cadence = $1 }),
        ]
    }()
}

extension FormatConstants.ColumnTag {
    /// The optional field this column holds, read without a closure (hot path).
    @inline(__always)
    func value(of point: TrackPoint) -> Double? {
        switch self {
        case .altitude: return point.altitude
        case .horizontalAccuracy: return point.horizontalAccuracy
        case .verticalAccuracy: return point.verticalAccuracy
        case .speed: return point.speed
        case .course: return point.course
        case .heartRate: return point.heartRate
        case .cadence: return point.cadence
        case .latitude: return point.latitude
        case .longitude: return point.longitude
        case .time: return point.timestamp.timeIntervalSince1970
        }
    }
}
