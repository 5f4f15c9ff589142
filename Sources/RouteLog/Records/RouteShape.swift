import Foundation

/// What a RoutePut says about its points, so that listing never decodes them
/// (format-spec.md, "RouteShape"). Integers in the stored units.
struct RouteShape: Equatable, Sendable {
    // The point count follows the 8-byte fields, so that the shape takes 60 bytes with
    // no padding inside (the index keeps one in every route's row).
    var firstMs: Int64
    var durationMs: Int64
    var distance: Double
    var pointCount: UInt32
    var south: Int32, west: Int32, north: Int32, east: Int32
    var startLat: Int32, startLon: Int32, endLat: Int32, endLon: Int32


    /// The shape of validated points, in stored units. The distance is the app's
    /// points' geodesic length (before quantization: the difference is below 1 cm a step).
    /// The shape from columns gathered in one pass (the save path), the same as
    /// ``init(points:segmentStarts:)`` gives.
    init(columns: PointColumns, points: [TrackPoint], segmentStarts: [Int]) {
        let count = columns.count
        var south = Int64.max, north = Int64.min, west = Int64.max, east = Int64.min
        for i in 0..<count {
            let lat = columns.latitudes[i], lon = columns.longitudes[i]
            south = min(south, lat); north = max(north, lat)
            west = min(west, lon); east = max(east, lon)
        }
        self.south = Int32(south); self.north = Int32(north); self.west = Int32(west); self.east = Int32(east)
        firstMs = columns.times[0]
        durationMs = max(0, columns.times[count - 1] - firstMs)
        pointCount = UInt32(count)
        distance = RouteMetrics.distance(of: points, segmentStarts: segmentStarts)
        startLat = Int32(columns.latitudes[0]); startLon = Int32(columns.longitudes[0])
        endLat = Int32(columns.latitudes[count - 1]); endLon = Int32(columns.longitudes[count - 1])
    }

    init(points: [TrackPoint], segmentStarts: [Int]) {
        var south = Int32.max, north = Int32.min, west = Int32.max, east = Int32.min
        for point in points {
            let lat = Int32(Quantization.degrees(point.latitude)), lon = Int32(Quantization.degrees(point.longitude))
            south = min(south, lat); north = max(north, lat)
            west = min(west, lon); east = max(east, lon)
        }
        self.south = south; self.north = north; self.west = west; self.east = east
        let first = points[0], last = points[points.count - 1]
        firstMs = Quantization.milliseconds(first.timestamp)
        durationMs = max(0, Quantization.milliseconds(last.timestamp) - firstMs)
        pointCount = UInt32(points.count)
        distance = RouteMetrics.distance(of: points, segmentStarts: segmentStarts)
        startLat = Int32(Quantization.degrees(first.latitude)); startLon = Int32(Quantization.degrees(first.longitude))
        endLat = Int32(Quantization.degrees(last.latitude)); endLon = Int32(Quantization.degrees(last.longitude))
    }

    func write(to w: inout ByteWriter) {
        w.i64(firstMs)
        w.i64(durationMs)
        w.u32(pointCount)
        w.f64(distance)
        for v in [south, west, north, east, startLat, startLon, endLat, endLon] { w.i32(v) }
    }

    /// No shape: what a reader holds before it has read one.
    static let placeholder = RouteShape(firstMs: 0, durationMs: 0, pointCount: 0, distance: 0, south: 0, west: 0, north: 0,
                                        east: 0, startLat: 0, startLon: 0, endLat: 0, endLon: 0)

    init(from r: inout ByteReader) throws {
        self = try r.read { raw in (try RouteShape(raw, at: 0), FormatConstants.routeShapeSize) }.0
    }

    /// Reads and checks the shape stored at `offset` in `raw` (little-endian, 60 bytes).
    /// - Throws: ByteReader.Malformed, its offset from the start of `raw`.
    @inline(__always)
    init(_ raw: UnsafeRawBufferPointer, at offset: Int) throws {
        let size = FormatConstants.routeShapeSize
        try raw.need(size, at: offset)
        firstMs = raw.i64(at: offset)
        durationMs = raw.i64(at: offset + 8)
        pointCount = raw.u32(at: offset + 16)
        distance = raw.f64(at: offset + 20)
        south = raw.i32(at: offset + 28); west = raw.i32(at: offset + 32)
        north = raw.i32(at: offset + 36); east = raw.i32(at: offset + 40)
        startLat = raw.i32(at: offset + 44); startLon = raw.i32(at: offset + 48)
        endLat = raw.i32(at: offset + 52); endLon = raw.i32(at: offset + 56)
        // Times past 1970...2200 are no writer's and would overflow `firstMs + shiftMs`.
        let latest = FormatConstants.latestTimestampMs
        guard pointCount >= 1, firstMs >= 0, firstMs <= latest, durationMs >= 0, durationMs <= latest,
              distance.isFinite, distance >= 0 else {
            throw ByteReader.Malformed(
                reason: "route shape has \(pointCount) points, first time \(firstMs) ms, duration \(durationMs) ms, distance \(distance)",
                offset: offset + size)
        }
    }

    private static func coordinate(_ lat: Int32, _ lon: Int32) -> Coordinate {
        Coordinate(latitude: Quantization.degrees(Int64(lat)), longitude: Quantization.degrees(Int64(lon)))
    }

    func summary(id: RouteID, metadata: StoredMetadata) -> RouteSummary {
        RouteSummary(
            id: id,
            startDate: Quantization.date(milliseconds: firstMs + metadata.shiftMs),
            duration: Quantization.seconds(milliseconds: durationMs),
            distance: metadata.distance ?? distance,
            calories: metadata.calories ?? 0,
            pointCount: Int(pointCount),
            boundingBox: BoundingBox(southWest: Self.coordinate(south, west), northEast: Self.coordinate(north, east)),
            startCoordinate: Self.coordinate(startLat, startLon),
            endCoordinate: Self.coordinate(endLat, endLon),
            name: metadata.name,
            uuid: metadata.uuid ?? derivedUUID(id: id),
            activity: metadata.activity,
            tags: metadata.tags,
            stats: metadata.derived.stats,
            preview: metadata.derived.preview)
    }

    /// The uuid of a route saved without one (by format version 1): a version 8 UUID of
    /// its first timestamp, point count and id (format-spec.md, "Segment records").
    func derivedUUID(id: RouteID) -> UUID {
        var b = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 { b[i] = UInt8(truncatingIfNeeded: UInt64(bitPattern: firstMs) >> (8 * UInt64(7 - i))) }
        for i in 0..<4 { b[8 + i] = UInt8(truncatingIfNeeded: pointCount >> (8 * UInt32(3 - i))) }
        for i in 0..<4 { b[12 + i] ^= UInt8(truncatingIfNeeded: id.rawValue >> (8 * UInt64(3 - i))) }
        b[6] = (b[6] & 0x0F) | 0x80  // version 8
        b[8] = (b[8] & 0x3F) | 0x80  // RFC 9562 variant
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}
