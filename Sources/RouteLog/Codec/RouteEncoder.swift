/// Everything a save stores about a route, made in one pass over its points: the
/// RouteShape, the statistics for its summary, and the point block.
struct RouteEncoding {
    var shape: RouteShape
    var statistics: RouteStatistics
    var pointBlock: [UInt8]
}

/// The save path's codec: validates a route, quantizes and measures its points in a
/// single pass, and encodes them. Pure: no I/O.
enum RouteEncoder {
    /// - Parameter version: the point-block version to write (``PointBlock/writtenVersion``
    ///   unless a test or benchmark asks for another).
    /// - Throws: ``RouteLogError/Code/invalidArgument`` for what ``RouteValidation/validate(_:)``
    ///   refuses, the first problem in the same order: point count, points, splits and
    ///   segment starts, metadata.
    static func encode(_ route: Route, version: Int = PointBlock.writtenVersion) throws -> RouteEncoding {
        let columns = try gather(route)
        return RouteEncoding(shape: shape(columns), statistics: columns.statistics!,
                            pointBlock: RouteCodec.encodePoints(columns, version: version))
    }

    /// Validation, quantization and measures: the first stage of ``encode(_:version:)``.
    static func gather(_ route: Route) throws -> PointColumns {
        try RouteValidation.validateCount(route)
        let columns = try PointColumns(route.points, validating: true, measuring: route.segmentStarts)
        try RouteValidation.validateLayout(route)
        try RouteValidation.validate(route.metadata)
        return columns
    }

    /// The RouteShape of gathered columns: the same as ``RouteShape/init(points:segmentStarts:)``
    /// gives for the route's points.
    static func shape(_ columns: PointColumns) -> RouteShape {
        let last = columns.count - 1
        let firstMs = columns.times[0]
        return RouteShape(firstMs: firstMs, durationMs: max(0, columns.times[last] - firstMs), pointCount: UInt32(columns.count),
                          distance: columns.statistics?.distance ?? 0,
                          south: Int32(columns.south), west: Int32(columns.west), north: Int32(columns.north), east: Int32(columns.east),
                          startLat: Int32(columns.latitudes[0]), startLon: Int32(columns.longitudes[0]),
                          endLat: Int32(columns.latitudes[last]), endLon: Int32(columns.longitudes[last]))
    }
}
