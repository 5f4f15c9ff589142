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

    /// One point at stored precision.
    public static func quantize(_ point: TrackPoint) -> TrackPoint {
        var q = point
        q.latitude = Quantization.degrees(Quantization.degrees(point.latitude))
        q.longitude = Quantization.degrees(Quantization.degrees(point.longitude))
        q.timestamp = Quantization.date(milliseconds: Quantization.milliseconds(point.timestamp))
        for field in PointField.optional {
            if let v = field.get(point) { field.set(&q, field.value(field.integer(v))) }
        }
        return q
    }

    /// The encoded point block of `points` (format-spec.md, "PointBlock"): columns,
    /// then LZ4. The points must have passed ``RouteValidation``.
    static func encodePoints(_ points: [TrackPoint]) -> [UInt8] {
        PointBlock.encode(columns: ColumnCodec.encode(points))
    }

    /// The points of an encoded point block. Throws ``ByteReader/Malformed`` for bytes
    /// that are not a valid block; never allocates more than the format's bounds.
    static func decodePoints(_ block: ArraySlice<UInt8>) throws -> [TrackPoint] {
        try ColumnCodec.decode(PointBlock.decode(block))
    }
}
