import CRouteLogSystem
import Foundation

extension PointBlockV2 {
    /// The points of a version 2 block, at stored precision.
    /// - Throws: ``ByteReader/Malformed`` for bytes that are not a valid block.
    static func decode(_ block: ArraySlice<UInt8>) throws -> [TrackPoint] {
        points(try decodeColumns(block))
    }

    /// Builds the points a chunk at a time. A column with a value at every point is read
    /// as it is; a column with gaps is first spread over the chunk's points as doubles
    /// (divided by its scale, ``TrackPoint/absent`` in the gaps), and a missing column
    /// is absent throughout. Then `routelog_build_points` writes each point once, whole
    /// (it is 80 bytes), its fields divided by their scales there (the exact quotients
    /// version 1 gives), four points at a time where the processor can. Chunks keep the
    /// spread doubles in the first-level cache and the scratch memory small.
    static func points(_ columns: Columns) -> [TrackPoint] {
        let n = columns.count
        guard n > 0 else { return [] }
        guard Self.pointsAreTenDoubles else { return pointsOneByOne(columns) }
        let chunk = min(n, Self.chunkPoints)
        let scratch = ScratchMemory.take(Double.self, count: chunk * 7)
        defer { ScratchMemory.give(scratch, count: chunk * 7) }
        var fields = (0..<7).map { OptionalField(absent: scratch + $0 * chunk, count: chunk) }
        for (tag, column) in columns.optional {
            guard let slot = Self.slot[tag] else { continue }
            fields[slot] = OptionalField(column, scale: Self.scale[slot], scratch: scratch + slot * chunk)
        }
        let required = [(columns.latitudes, FormatConstants.degreeScale, 0.0),
                        (columns.longitudes, FormatConstants.degreeScale, 0.0),
                        (columns.times, FormatConstants.millisecondsPerSecond,
                         Date.timeIntervalBetween1970AndReferenceDate)]
        return withExtendedLifetime(columns) {
            [TrackPoint](unsafeUninitializedCapacity: n) { buffer, initialized in
                // Fresh memory (the allocator gave the last load's back to the system)
                // made present in a call or two, not a page fault every 4 KB.
                routelog_prepare_for_writing(buffer.baseAddress, n * MemoryLayout<TrackPoint>.stride)
                var sources = [routelog_point_source](repeating: routelog_point_source(), count: 10)
                var start = 0
                while start < n {
                    let length = min(chunk, n - start)
                    for (f, (column, scale, offset)) in required.enumerated() {
                        sources[f] = routelog_point_source(integers: column.base + start, doubles: nil,
                                                           divisor: scale, offset: offset)
                    }
                    for f in fields.indices { sources[3 + f] = fields[f].source(from: start, length) }
                    routelog_build_points(sources, length, UnsafeMutableRawPointer(buffer.baseAddress! + start))
                    start += length
                }
                initialized = n
            }
        }
    }

    /// The points built field by field in Swift, for a `TrackPoint` that is not ten
    /// doubles in declaration order (``TrackPointLayout``): the same points.
    static func pointsOneByOne(_ columns: Columns) -> [TrackPoint] {
        let n = columns.count
        guard n > 0 else { return [] }
        let chunk = min(n, Self.chunkPoints)
        // Scratch: latitudes, longitudes, seconds, then the seven optional slots.
        let scratch = ScratchMemory.take(Double.self, count: chunk * 10)
        defer { ScratchMemory.give(scratch, count: chunk * 10) }
        let lat = scratch, lon = scratch + chunk, seconds = scratch + 2 * chunk
        let slots = (0..<7).map { scratch + (3 + $0) * chunk }
        var fields = slots.map { OptionalField(absent: $0, count: chunk) }
        for (tag, column) in columns.optional {
            guard let slot = Self.slot[tag] else { continue }
            fields[slot] = OptionalField(column, scale: Self.scale[slot], scratch: slots[slot])
        }
        let s0 = slots[0], s1 = slots[1], s2 = slots[2], s3 = slots[3], s4 = slots[4], s5 = slots[5], s6 = slots[6]
        return withExtendedLifetime(columns) {
            [TrackPoint](unsafeUninitializedCapacity: n) { buffer, initialized in
                var start = 0
                while start < n {
                    let length = min(chunk, n - start)
                    routelog_divide_integers(columns.latitudes.base + start, length, FormatConstants.degreeScale, lat)
                    routelog_divide_integers(columns.longitudes.base + start, length, FormatConstants.degreeScale, lon)
                    routelog_divide_integers(columns.times.base + start, length, FormatConstants.millisecondsPerSecond,
                                             seconds)
                    for f in fields.indices { fields[f].fill(from: start, length) }
                    let out = buffer.baseAddress! + start
                    for j in 0..<length {
                        (out + j).initialize(to: TrackPoint(
                            latitude: lat[j], longitude: lon[j], timestamp: Date(timeIntervalSince1970: seconds[j]),
                            raw: (s0[j], s1[j], s2[j], s3[j], s4[j], s5[j], s6[j])))
                    }
                    start += length
                }
                initialized = n
            }
        }
    }

    /// Whether a `TrackPoint` is ten doubles, latitude, longitude, the timestamp's
    /// seconds since the reference date, then the optional fields in order: the layout
    /// `routelog_build_points` writes.
    static let pointsAreTenDoubles: Bool = {
        guard let layout = TrackPointLayout.current else { return false }
        return layout.stride == Int(ROUTELOG_POINT_FIELDS) && layout.latitude == 0 && layout.longitude == 1
            && layout.time == 2 && layout.optional == Array(3..<10)
    }()

    /// Points built per chunk: 10 columns of 256 doubles fill 20 KiB.
    private static let chunkPoints = 256

    /// The optional fields in the order `TrackPoint` keeps them (altitude ... cadence),
    /// which is ``PointField/optional``'s: each tag's slot, and each slot's scale.
    private static let slot = Dictionary(uniqueKeysWithValues: PointField.optional.enumerated().map { ($1.tag, $0) })
    private static let scale: [Double] = PointField.optional.map(\.scale)
}

/// One optional field's doubles for a chunk of points, in scratch memory the caller
/// owns: each point's value divided by the field's scale, or ``TrackPoint/absent``.
private struct OptionalField {
    private let source: UnsafePointer<Int64>?
    private let count: Int
    private let presence: [UInt8]?
    private let scale: Double
    private let scratch: UnsafeMutablePointer<Double>
    /// Index of the next stored value (a column with gaps).
    private var next = 0

    /// A field the block has no column for: absent at every point, filled once.
    init(absent scratch: UnsafeMutablePointer<Double>, count chunk: Int) {
        source = nil
        count = 0
        presence = nil
        scale = 1
        self.scratch = scratch
        scratch.initialize(repeating: TrackPoint.absent, count: chunk)
    }

    /// The caller keeps `column` alive while the field is read.
    init(_ column: ColumnDecoderV2.Column, scale: Double, scratch: UnsafeMutablePointer<Double>) {
        source = UnsafePointer(column.values.base)
        count = column.values.count
        presence = column.presence
        self.scale = scale
        self.scratch = scratch
    }

    /// Where `routelog_build_points` takes the field from for points
    /// start..<start+length (start a multiple of 8): the column itself when every point
    /// has a value, else the scratch, filled.
    mutating func source(from start: Int, _ length: Int) -> routelog_point_source {
        if let source, presence == nil {
            return routelog_point_source(integers: source + start, doubles: nil, divisor: scale, offset: 0)
        }
        fill(from: start, length)
        return routelog_point_source(integers: nil, doubles: scratch, divisor: 1, offset: 0)
    }

    /// The doubles of points start..<start+length (start a multiple of 8).
    mutating func fill(from start: Int, _ length: Int) {
        guard let source else { return }
        guard let presence else {
            routelog_divide_integers(source + start, length, scale, scratch)
            return
        }
        // The chunk's stored values, divided at the front of the scratch, then moved out
        // to their points from the back: a value only moves towards the end, onto a
        // slot whose own value has moved already.
        var present = 0
        for byte in (start >> 3)..<((start + length + 7) >> 3) { present += presence[byte].nonzeroBitCount }
        present = min(present, count - next)  // the decoder made them equal
        if present > 0 { routelog_divide_integers(source + next, present, scale, scratch) }
        next += present
        var left = present, j = length - 1
        while j >= 0 {
            let i = start + j
            if left > 0 && presence[i >> 3] & (1 << UInt8(i & 7)) != 0 {
                left -= 1
                scratch[j] = scratch[left]
            } else {
                scratch[j] = TrackPoint.absent
            }
            j -= 1
        }
    }
}
