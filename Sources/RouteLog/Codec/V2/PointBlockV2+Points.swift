import CRouteLogSystem
import Foundation

extension PointBlockV2 {
    /// The points of a version 2 block, at stored precision.
    /// - Throws: ``ByteReader/Malformed`` for bytes that are not a valid block.
    static func decode(_ block: ArraySlice<UInt8>) throws -> [TrackPoint] {
        points(try decodeColumns(block))
    }

    /// Builds the points a chunk at a time, in two steps. First each column's values for
    /// the chunk become doubles: the stored integers are divided by their scale (the
    /// exact result version 1 gives), several quotients per instruction
    /// (`routelog_divide_integers`), since the divider is what building points waits on.
    /// Then each point is written once, whole (it is 80 bytes; a pass per optional field
    /// would write every point seven more times), its optional fields as stored
    /// (``TrackPoint/absent`` for none), with no `Optional` made per field. Chunks keep
    /// the doubles in the first-level cache and the scratch memory small.
    static func points(_ columns: Columns) -> [TrackPoint] {
        let n = columns.count
        guard n > 0 else { return [] }
        let chunk = min(n, Self.chunkPoints)
        // Scratch: latitudes, longitudes, seconds, then the seven optional slots.
        let scratch = UnsafeMutablePointer<Double>.allocate(capacity: chunk * 10)
        defer { scratch.deallocate() }
        let lat = scratch, lon = scratch + chunk, seconds = scratch + 2 * chunk
        var fields = [OptionalField](repeating: OptionalField(), count: 7)
        for (tag, column) in columns.optional {
            guard let slot = Self.slot[tag] else { continue }
            fields[slot] = OptionalField(column, scale: Self.scale[slot], scratch: scratch + (3 + slot) * chunk)
        }
        var altitude = fields[0], horizontal = fields[1], vertical = fields[2], speed = fields[3]
        var course = fields[4], heartRate = fields[5], cadence = fields[6]
        return withExtendedLifetime(columns) {
            [TrackPoint](unsafeUninitializedCapacity: n) { buffer, initialized in
                var start = 0
                while start < n {
                    let length = min(chunk, n - start)
                    routelog_divide_integers(columns.latitudes.base + start, length, FormatConstants.degreeScale, lat)
                    routelog_divide_integers(columns.longitudes.base + start, length, FormatConstants.degreeScale, lon)
                    routelog_divide_integers(columns.times.base + start, length, FormatConstants.millisecondsPerSecond,
                                             seconds)
                    altitude.fill(from: start, length)
                    horizontal.fill(from: start, length)
                    vertical.fill(from: start, length)
                    speed.fill(from: start, length)
                    course.fill(from: start, length)
                    heartRate.fill(from: start, length)
                    cadence.fill(from: start, length)
                    for j in 0..<length {
                        let i = start + j
                        (buffer.baseAddress! + i).initialize(to: TrackPoint(
                            latitude: lat[j], longitude: lon[j], timestamp: Date(timeIntervalSince1970: seconds[j]),
                            raw: (altitude.next(i), horizontal.next(i), vertical.next(i), speed.next(i),
                                  course.next(i), heartRate.next(i), cadence.next(i))))
                    }
                    start += length
                }
                initialized = n
            }
        }
    }

    /// Points built per chunk: 10 columns of 256 doubles fill 20 KiB.
    private static let chunkPoints = 256

    private static let slot: [FormatConstants.ColumnTag: Int] = [
        .altitude: 0, .horizontalAccuracy: 1, .verticalAccuracy: 2, .speed: 3, .course: 4, .heartRate: 5, .cadence: 6,
    ]

    /// Each slot's scale (format-spec.md, "Quantization").
    private static let scale: [Double] = [
        FormatConstants.centimetreScale, FormatConstants.centimetreScale, FormatConstants.centimetreScale,
        FormatConstants.centimetreScale, FormatConstants.courseScale, FormatConstants.perMinuteScale,
        FormatConstants.perMinuteScale,
    ]
}

/// Reads one optional field's values point by point: nothing when the block has no
/// such column, every point's value when it has no presence, else the marked ones. Its
/// values are divided a chunk at a time into scratch memory the caller owns.
private struct OptionalField {
    private let source: UnsafePointer<Int64>?
    private let count: Int
    private let presence: [UInt8]?
    private let scale: Double
    private let scratch: UnsafeMutablePointer<Double>?
    /// Index of the next stored value; index of the value in scratch[0].
    private var next = 0, first = 0

    init() {
        source = nil
        count = 0
        presence = nil
        scale = 1
        scratch = nil
    }

    /// The caller keeps `column` alive while the field is read.
    init(_ column: ColumnDecoderV2.Column, scale: Double, scratch: UnsafeMutablePointer<Double>) {
        source = UnsafePointer(column.values.base)
        count = column.values.count
        presence = column.presence
        self.scale = scale
        self.scratch = scratch
    }

    /// Divides the values that points start..<start+length can use: those points' own
    /// values without presence, else the next `length` stored values at most.
    @inline(__always)
    mutating func fill(from start: Int, _ length: Int) {
        guard let source, let scratch else { return }
        first = presence == nil ? start : next
        let available = min(length, count - first)
        if available > 0 { routelog_divide_integers(source + first, available, scale, scratch) }
    }

    /// Point i's value, or ``TrackPoint/absent``.
    @inline(__always)
    mutating func next(_ i: Int) -> Double {
        guard let scratch else { return TrackPoint.absent }
        guard let presence else { return scratch[i - first] }
        if presence[i >> 3] & (1 << UInt8(i & 7)) == 0 { return TrackPoint.absent }
        defer { next += 1 }
        return scratch[next - first]
    }
}
