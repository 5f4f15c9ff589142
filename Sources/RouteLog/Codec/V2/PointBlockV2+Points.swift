import Foundation

extension PointBlockV2 {
    /// The points of a version 2 block, at stored precision.
    /// - Throws: ``ByteReader/Malformed`` for bytes that are not a valid block.
    static func decode(_ block: ArraySlice<UInt8>) throws -> [TrackPoint] {
        points(try decodeColumns(block))
    }

    /// Builds the points in one pass: each point is written once, whole (it is 80
    /// bytes; a pass per optional field would write every point seven more times), its
    /// optional fields as stored (``TrackPoint/absent`` for none), with no `Optional`
    /// made per field. The stored integers become doubles by division, the exact result
    /// version 1 gives.
    static func points(_ columns: Columns) -> [TrackPoint] {
        let n = columns.count
        var fields = (0..<7).map { _ in OptionalField() }
        for (tag, column) in columns.optional {
            guard let slot = Self.slot[tag] else { continue }
            fields[slot] = OptionalField(column.values, column.presence)
        }
        var altitude = fields[0], horizontal = fields[1], vertical = fields[2], speed = fields[3]
        var course = fields[4], heartRate = fields[5], cadence = fields[6]
        let lat = columns.latitudes.base, lon = columns.longitudes.base, time = columns.times.base
        let cm = FormatConstants.centimetreScale, perMinute = FormatConstants.perMinuteScale
        return [TrackPoint](unsafeUninitializedCapacity: n) { buffer, initialized in
            for i in 0..<n {
                (buffer.baseAddress! + i).initialize(to: TrackPoint(
                    latitude: Quantization.degrees(lat[i]), longitude: Quantization.degrees(lon[i]),
                    timestamp: Quantization.date(milliseconds: time[i]),
                    raw: (altitude.next(i, cm), horizontal.next(i, cm), vertical.next(i, cm), speed.next(i, cm),
                          course.next(i, FormatConstants.courseScale), heartRate.next(i, perMinute),
                          cadence.next(i, perMinute))))
            }
            initialized = n
        }
    }

    private static let slot: [FormatConstants.ColumnTag: Int] = [
        .altitude: 0, .horizontalAccuracy: 1, .verticalAccuracy: 2, .speed: 3, .course: 4, .heartRate: 5, .cadence: 6,
    ]

}

/// Reads one optional field's values point by point: nothing when the block
/// has no such column, every point's value when it has no presence, else the marked ones.
private struct OptionalField {
    private let values: UnsafeMutablePointer<Int64>?
    private let presence: [UInt8]?
    private var next = 0
    /// Keeps the values alive while `values` points into them.
    private let column: Int64Column?

    init() {
        values = nil
        presence = nil
        column = nil
    }

    init(_ column: Int64Column, _ presence: [UInt8]?) {
        self.column = column
        values = column.base
        self.presence = presence
    }

    /// Point i's value divided by `scale` (a constant at each call, so a scale of 1
    /// costs no division), or ``TrackPoint/absent``.
    @inline(__always)
    mutating func next(_ i: Int, _ scale: Double) -> Double {
        guard let values else { return TrackPoint.absent }
        if let presence, presence[i >> 3] & (1 << UInt8(i & 7)) == 0 { return TrackPoint.absent }
        defer { next += 1 }
        return Double(values[next]) / scale
    }
}
