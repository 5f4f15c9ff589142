import Foundation

/// Turns routes into the bytes of a RoutePut's point block and back, and fixes every
/// value to the precision the store keeps. Pure functions: no I/O.
public enum RouteCodec {
    /// The route as the store will return it: every value rounded to the stored
    /// precision (1e-7 degree, 1 ms, 1 cm, 1 cm/s, 0.01 degree, 1 per minute).
    /// Idempotent: `quantize(quantize(r)) == quantize(r)`.
    public static func quantize(_ route: Route) -> Route {
        var result = route
        result.points = route.points.map(quantize)
        result.splits = route.splits.map {
            Split(unit: $0.unit, pointIndex: $0.pointIndex,
                  elapsedTime: Quantization.seconds(milliseconds: Quantization.milliseconds($0.elapsedTime)))
        }
        return result
    }

    /// One point at stored precision. Values a save would refuse (NaN, infinities) are
    /// left as they are.
    public static func quantize(_ point: TrackPoint) -> TrackPoint {
        guard point.latitude.isFinite, point.longitude.isFinite, point.timestamp.timeIntervalSince1970.isFinite
        else { return point }
        var q = point
        q.latitude = Quantization.degrees(Quantization.degrees(point.latitude))
        q.longitude = Quantization.degrees(Quantization.degrees(point.longitude))
        q.timestamp = Quantization.date(milliseconds: Quantization.milliseconds(point.timestamp))
        for field in PointField.optional {
            if let v = field.get(point), v.isFinite { field.set(&q, field.value(field.integer(v))) }
        }
        return q
    }

    /// RouteLog's encoding of `points`: the point block a RoutePut carries
    /// (format-spec.md, "PointBlock"): one entropy-coded column per field (format
    /// version 2; version 1 wrote delta-coded columns, LZ4-compressed). For storing
    /// RouteLog's compact bytes elsewhere (a blob in another database, a file).
    ///
    /// - Throws: ``RouteLogError/Code/invalidArgument`` for the points a save refuses.
    public static func encodedPoints(of points: [TrackPoint]) throws -> [UInt8] {
        try RouteValidation.validate(Route(points: points))
        return encodePoints(points)
    }

    /// The points of a point block made by ``encodedPoints(of:)`` (or read from a store),
    /// at stored precision.
    ///
    /// - Throws: ``RouteLogError/Code/corrupted`` for bytes that are not a valid block;
    ///   never allocates more than the format's bounds, whatever the bytes claim.
    public static func points(decoding block: [UInt8]) throws -> [TrackPoint] {
        do {
            return try decodePoints(block[...])
        } catch let error as ByteReader.Malformed {
            throw RouteLogError(.corrupted, "the point block is damaged: \(error.reason)", offset: Int64(error.offset))
        }
    }

    /// The encoded point block of `points` (format-spec.md, "PointBlock"), in the
    /// version ``PointBlock/writtenVersion`` says. The points must have passed
    /// ``RouteValidation``.
    static func encodePoints(_ points: [TrackPoint], version: Int = PointBlock.writtenVersion) -> [UInt8] {
        // Valid points cannot fail; callers validated them.
        encodePoints(try! PointColumns(points, validating: false), version: version)
    }

    /// The point block of columns already gathered (and validated) in one pass.
    static func encodePoints(_ columns: PointColumns, version: Int = PointBlock.writtenVersion) -> [UInt8] {
        version >= 2 ? PointBlockV2.encode(columns) : PointBlock.encode(columns: ColumnCodec.encode(columns))
    }

    /// The points of an encoded point block of either version. Throws
    /// ``ByteReader/Malformed`` for bytes that are not a valid block; never allocates
    /// more than the format's bounds.
    static func decodePoints(_ block: ArraySlice<UInt8>) throws -> [TrackPoint] {
        if block.first == FormatConstants.Compression.columnsV2.rawValue { return try PointBlockV2.decode(block) }
        return try ColumnCodec.decode(PointBlock.decode(block))
    }
}
