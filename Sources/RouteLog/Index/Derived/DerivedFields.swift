import Foundation

/// The extension fields a writer computes from a route's points at save: stats, grid
/// cells and preview (format-spec.md, "Derived fields"). Each is nil when unknown (a
/// route saved before they existed, or a recorded one).
struct DerivedFields: Equatable, Sendable {
    /// Boxed: 106 bytes inline that the index would hold for every route; a reference
    /// costs 8 (the stats never change once computed, so the box is shared, not copied).
    private var statsBox: StatsBox?
    var cells: GridCells?
    var preview: RoutePreview?

    var stats: RouteStats? {
        get { statsBox?.stats }
        set { statsBox = newValue.map(StatsBox.init) }
    }

    private final class StatsBox: Sendable {
        let stats: RouteStats
        init(_ stats: RouteStats) { self.stats = stats }
    }

    init() {}

    static func == (a: DerivedFields, b: DerivedFields) -> Bool {
        a.stats == b.stats && a.cells == b.cells && a.preview == b.preview
    }

    var isEmpty: Bool { stats == nil && cells == nil && preview == nil }

    /// Takes each field of `other` that these lack (a MetadataEdit's replay,
    /// format-spec.md, "Derived fields"); true when one was taken.
    mutating func takeMissing(from other: DerivedFields) -> Bool {
        var took = false
        if statsBox == nil, let box = other.statsBox { statsBox = box; took = true }
        if cells == nil, let cells = other.cells { self.cells = cells; took = true }
        if preview == nil, let preview = other.preview { self.preview = preview; took = true }
        return took
    }

    /// The fields of validated `points` (`columns` their stored units), as a reader will
    /// read them back: computed, then passed through their stored form so that a summary
    /// made at save equals the one a later open makes.
    init(points: [TrackPoint], columns: PointColumns, segmentStarts: [Int]) {
        var fields = DerivedFields()
        fields.stats = RouteStats.compute(points, segmentStarts: segmentStarts, movingTime: columns.statistics?.movingTime,
                                          measured: columns.measuredTrack)
        fields.cells = GridCells(latitudes: columns.latitudes.buffer, longitudes: columns.longitudes.buffer)
        // The preview is of the stored coordinates, so that a route made from stored
        // points (a recording merged by compaction) gets the same one as its save would.
        let latitudes = columns.latitudes.buffer, longitudes = columns.longitudes.buffer
        let (kept, error) = PreviewSimplifier(latitudes: latitudes, longitudes: longitudes)
            .keep(maxPoints: RoutePreview.maxPoints, tolerance: RoutePreview.minimumTolerance)
        fields.preview = RoutePreview(coordinates: kept.map {
            Coordinate(latitude: Quantization.degrees(latitudes[$0]), longitude: Quantization.degrees(longitudes[$0]))
        }, tolerance: error)
        var w = ByteWriter(capacity: 512)
        fields.write { tag, value in
            w.varint(tag.rawValue)
            w.varint(value.count)
            w.append(contentsOf: value)
        }
        var r = ByteReader(w.bytes[...])
        var read = DerivedFields()
        while !r.isAtEnd {
            // Cannot fail: these are the bytes just written.
            guard let rawTag = try? r.varint(), let tag = FormatConstants.MetadataField(rawValue: rawTag),
                  let length = try? r.count(max: r.remaining), let value = try? r.bytes(length),
                  (try? read.read(tag, value)) == true else { break }
        }
        self = read
    }

    /// Calls `field` with each known field's tag and value bytes, in tag order.
    func write(_ field: (FormatConstants.MetadataField, [UInt8]) -> Void) {
        if let stats { field(.stats, Self.encode(stats)) }
        if let cells {
            var w = ByteWriter(capacity: cells.ids.count * 2 + 4)
            cells.write(to: &w)
            field(.cells, w.bytes)
        }
        if let preview {
            var w = ByteWriter(capacity: preview.encoded.count + 4)
            w.varint(UInt64((preview.tolerance * 10).rounded(.up)))
            w.varint(preview.count)
            w.append(contentsOf: preview.encoded)
            field(.preview, w.bytes)
        }
    }

    /// Reads the value of a derived field; false for a tag that is none.
    /// - Throws: ByteReader.Malformed for a value that breaks format-spec.md's rules.
    /// A field is changed only once its value reads whole: after a throw, the fields
    /// are as they were.
    mutating func read(_ tag: FormatConstants.MetadataField, _ value: ArraySlice<UInt8>) throws -> Bool {
        var r = ByteReader(value)
        func whole<T>(_ read: T) throws -> T {
            guard r.isAtEnd else { throw r.fail("derived field \(tag) has trailing bytes") }
            return read
        }
        switch tag {
        case .stats: stats = try whole(try Self.decodeStats(&r))
        case .cells: cells = try whole(try GridCells(from: &r))
        case .preview: preview = try whole(try Self.decodePreview(&r))
        default: return false
        }
        return true
    }

    /// Checks the value of a derived field without keeping it: the rules ``read(_:_:)``
    /// applies, with nothing allocated.
    /// - Throws: ByteReader.Malformed for a value that breaks format-spec.md's rules.
    static func check(_ tag: FormatConstants.MetadataField, _ value: ArraySlice<UInt8>) throws {
        var r = ByteReader(value)
        switch tag {
        case .stats: _ = try decodeStats(&r)
        case .cells: try GridCells.check(&r)
        case .preview: _ = try checkPreview(&r)
        default: return
        }
        guard r.isAtEnd else { throw r.fail("derived field \(tag) has trailing bytes") }
    }

    /// Decodes the value of a derived field ``check(_:_:)`` accepted; one that does not
    /// read whole (only in an IndexPutRun's metadata, whose fields an open does not
    /// check) is left out, not kept as far as it reads.
    mutating func decode(_ tag: FormatConstants.MetadataField, _ value: ArraySlice<UInt8>) {
        _ = try? read(tag, value)
    }

    private enum Present {
        static let elevation: UInt8 = 1, heartRate: UInt8 = 2, cadence: UInt8 = 4, all: UInt8 = 7
    }
    static let maxValue: UInt64 = 1 << 40
    static let maxMovingMs: UInt64 = 1 << 42

    private static func units(_ value: Double, _ scale: Double) -> UInt64 {
        let v = (value * scale).rounded()
        return v.isFinite && v > 0 ? UInt64(min(v, Double(maxValue))) : 0
    }

    static func encode(_ s: RouteStats) -> [UInt8] {
        var w = ByteWriter(capacity: 24)
        let hasElevation = s.elevationGain != nil && s.elevationLoss != nil
        let hasHR = s.averageHeartRate != nil && s.maxHeartRate != nil
        let hasCadence = s.averageCadence != nil && s.maxCadence != nil
        w.u8((hasElevation ? Present.elevation : 0) | (hasHR ? Present.heartRate : 0) | (hasCadence ? Present.cadence : 0))
        w.varint(min(units(s.movingTime, 1000), maxMovingMs))
        w.varint(units(s.maxSpeed, 100))
        if hasElevation {
            w.varint(units(s.elevationGain!, 100))
            w.varint(units(s.elevationLoss!, 100))
        }
        if hasHR {
            w.varint(units(s.averageHeartRate!, 10))
            w.varint(units(s.maxHeartRate!, 1))
        }
        if hasCadence {
            w.varint(units(s.averageCadence!, 10))
            w.varint(units(s.maxCadence!, 1))
        }
        return w.bytes
    }

    static func decodeStats(_ r: inout ByteReader) throws -> RouteStats {
        let present = try r.u8()
        guard present & ~Present.all == 0 else { throw r.fail("unknown stats bits \(present)") }
        func value(_ limit: UInt64 = maxValue) throws -> Double {
            let v = try r.varint()
            guard v <= limit else { throw r.fail("stat value \(v) past \(limit)") }
            return Double(v)
        }
        var stats = RouteStats(movingTime: try value(maxMovingMs) / 1000, maxSpeed: try value() / 100)
        if present & Present.elevation != 0 {
            stats.elevationGain = try value() / 100
            stats.elevationLoss = try value() / 100
        }
        if present & Present.heartRate != 0 {
            stats.averageHeartRate = try value() / 10
            stats.maxHeartRate = try value()
        }
        if present & Present.cadence != 0 {
            stats.averageCadence = try value() / 10
            stats.maxCadence = try value()
        }
        return stats
    }

    static func decodePreview(_ r: inout ByteReader) throws -> RoutePreview {
        let (tolerance, count, bytes) = try checkPreview(&r)
        return RoutePreview(encoded: Array(bytes), count: count, tolerance: Double(tolerance) / 10)
    }

    /// Reads and checks a stored preview, leaving its points as bytes: tolerance in
    /// tenths of a metre, point count, the points' varints.
    private static func checkPreview(_ r: inout ByteReader) throws -> (tolerance: UInt64, count: Int, points: ArraySlice<UInt8>) {
        let tolerance = try r.varint()
        guard tolerance <= maxValue else { throw r.fail("preview tolerance \(tolerance)") }
        let count = try r.count(max: RoutePreview.maxPoints)
        guard count >= 1 else { throw r.fail("empty preview") }
        let bytes = try r.bytes(r.remaining)
        // Every load of a route checks its preview: a valid one is read straight from
        // its bytes, and anything else is read again by the loop below, which says what.
        if previewPointsAreValid(bytes, count: count) { return (tolerance, count, bytes) }
        var points = ByteReader(bytes)
        var lat: Int64 = 0, lon: Int64 = 0
        for _ in 0..<count {
            lat &+= ByteReader.unzigzag(try points.varint())
            lon &+= ByteReader.unzigzag(try points.varint())
            // Magnitudes, not abs(): a forged sum of Int64.min has none that abs() can give.
            guard lat.magnitude <= 9_000_000, lon.magnitude <= 18_000_000 else {
                throw r.fail("preview point outside the globe")
            }
        }
        guard points.isAtEnd else { throw r.fail("preview has trailing bytes") }
        return (tolerance, count, bytes)
    }

    /// Whether `bytes` are `count` preview points, each coordinate a varint of at most
    /// 9 bytes, every point on the globe, nothing after: the checks of the loop in
    /// ``checkPreview(_:)`` for the previews a writer makes, with no bounds check or
    /// throw per byte (that loop, through `ByteReader`, cost about 130 instructions a
    /// coordinate). False for anything else, for that loop to read and name.
    private static func previewPointsAreValid(_ bytes: ArraySlice<UInt8>, count: Int) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            let end = buffer.count
            var i = 0
            func coordinate() -> Int64? {
                var value: UInt64 = 0, shift: UInt64 = 0
                while i < end && shift < 63 {
                    let byte = buffer[i]
                    i += 1
                    value |= UInt64(byte & 0x7F) << shift
                    if byte & 0x80 == 0 { return ByteReader.unzigzag(value) }
                    shift += 7
                }
                return nil
            }
            var lat: Int64 = 0, lon: Int64 = 0
            for _ in 0..<count {
                guard let dlat = coordinate(), let dlon = coordinate() else { return false }
                lat &+= dlat
                lon &+= dlon
                guard lat.magnitude <= 9_000_000, lon.magnitude <= 18_000_000 else { return false }
            }
            return i == end
        }
    }
}
