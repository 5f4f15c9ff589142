/// A route validated and encoded for a save, before it has an id: all the CPU work of
/// a save, done outside every lock.
struct EncodedRoute: Sendable {
    let record: RouteRecord

    /// Validates `route` (nothing is written for a bad one) and encodes it.
    ///
    /// - Parameters:
    ///   - position: its place in a batch of `batchCount`, named in errors of a batch.
    /// - Throws: `.invalidArgument` naming the point and the problem, or a route too
    ///   large for one record.
    init(_ route: Route, position: Int = 0, batchCount: Int = 1) throws {
        do {
            // Checked in the order RouteValidation.validate checks, with the points
            // validated, quantized and measured in one pass; the index's derived fields
            // (stats, grid cells, preview) from the same columns.
            var columns = try RouteEncoder.gather(route)
            var metadata = StoredMetadata(route.metadata.withUUID())
            metadata.derived = DerivedFields(points: route.points, columns: columns, segmentStarts: route.segmentStarts)
            columns.releaseMeasuredTrack()
            record = RouteRecord(id: RouteID(0), shape: RouteEncoder.shape(columns),
                                 metadata: metadata, splits: route.splits,
                                 segmentStarts: route.segmentStarts, pointBlock: RouteCodec.encodePoints(columns)[...])
            let size = record.payloadSize, encoded = record
            guard RecordFrame.fitsOnceEscaped(size: size, payload: { encoded.payload() }) else {
                throw RouteLogError.invalid("the route encodes to \(size) bytes; one route may take at most 64 MiB")
            }
        } catch let error as RouteLogError where batchCount > 1 {
            throw RouteLogError(error.code, "route \(position): \(error.message)")
        }
    }

    /// The RoutePut of this route saved as `id`.
    func prepared(id: RouteID) -> PreparedRecord {
        var record = self.record
        record.id = id
        let shape = record.shape, metadata = record.metadata
        return PreparedRecord(type: .routePut, payload: record.payload(), event: { .put(id, shape, metadata, $0) },
                              encodedMetadata: record.metadataBytes?[...])
    }
}
