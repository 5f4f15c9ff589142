/// A run of consecutive routes read and encoded together on one of the export's worker
/// threads: the routes table's figures, a fragment of the `geometry` column, and a
/// fragment of every points column. The writer thread only appends these, in order.
struct ExportBatch: Sendable {
    /// What the routes table needs of a route beyond its summary.
    struct RouteRow: Sendable {
        var summary: RouteSummary
        /// Whether the app gave calories (the summary says 0 either way).
        var hasCalories: Bool
        var geometryKind: WKBGeometry.Kind
    }

    var rows: [RouteRow] = []
    var geometries: EncodedColumnChunk
    var points: [EncodedColumnChunk]
    var pointCount = 0
    /// Routes deleted after the export listed them.
    var vanished: [RouteID] = []
    /// Routes lying wholly inside the privacy zones: in no file.
    var withheld: [RouteID] = []

    /// Reads and encodes the routes of `summaries`.
    /// - Throws: The store's read errors other than `.notFound` (a route deleted since
    ///   it was listed is left out and named in ``vanished``).
    ///   Routes are trimmed by `zones` first (``PrivacyTrim``); a trimmed route's figures
    ///   are its own, and one wholly inside the zones is named in ``withheld``.
    init(_ summaries: ArraySlice<RouteSummary>, from store: RouteStore, codec: ParquetFormat.Codec,
         zones: [PrivacyZone] = []) throws {
        var shapes: [WKBGeometry] = []
        var routes: [(id: RouteID, points: QuantizedPoints)] = []
        for listed in summaries {
            var route: Route
            do {
                route = try store.route(listed.id)
            } catch let error as RouteLogError where error.code == .notFound {
                vanished.append(listed.id)
                continue
            }
            var summary = listed
            let trim = PrivacyTrim(route, zones: zones)
            if trim.removedPoints > 0 {
                guard let kept = trim.route else {
                    withheld.append(listed.id)
                    continue
                }
                route = kept
                summary = RouteShape(points: kept.points, segmentStarts: kept.segmentStarts)
                    .summary(id: listed.id, metadata: StoredMetadata(kept.metadata))
            }
            let stored = QuantizedPoints(route.points)
            let shape: WKBGeometry
            if let preview = ParquetRouteFields.preview(of: summary) {
                let drawn = QuantizedPoints(preview.points)
                shape = WKBGeometry(latitudes: drawn.latitudes, longitudes: drawn.longitudes,
                                    segmentStarts: preview.segmentStarts)
            } else {
                shape = WKBGeometry(latitudes: stored.latitudes, longitudes: stored.longitudes,
                                    segmentStarts: route.segmentStarts)
            }
            rows.append(RouteRow(summary: summary, hasCalories: route.metadata.calories != nil, geometryKind: shape.kind))
            shapes.append(shape)
            routes.append((summary.id, stored))
            pointCount += stored.count
        }
        geometries = RoutesTable.encodeGeometries(shapes, codec: codec)
        points = PointsTable.encode(routes, codec: codec)
    }
}
