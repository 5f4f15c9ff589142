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
    /// Routes whose bytes could not be read: in no file.
    var unreadable: [UnreadableRoute] = []

    /// Reads and encodes the routes of `summaries`.
    /// - Throws: The store's read errors other than `.notFound` (a route deleted since
    ///   it was listed is left out and named in ``vanished``), `.corrupted` and `.io`
    ///   (a route that cannot be read is left out and named in ``unreadable``).
    ///   Routes are trimmed by `zones` first (``PrivacyTrim``); a trimmed route's figures
    ///   are its own, and one wholly inside the zones is named in ``withheld``.
    ///   The geometry is drawn as `geometry` says; a trimmed route's preview and stats
    ///   are computed from the points kept, never taken from the whole route's.
    init(_ summaries: ArraySlice<RouteSummary>, from store: RouteStore, codec: ParquetFormat.Codec,
         zones: [PrivacyZone] = [], geometry: ParquetExportOptions.Geometry = .preview) throws {
        var shapes: [WKBGeometry] = []
        var routes: [(id: RouteID, points: QuantizedPoints)] = []
        for listed in summaries {
            var route: Route
            do {
                guard let read = try UnreadableRoute.read(listed.id, of: store, noting: &unreadable) else { continue }
                route = read
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
                summary = Self.summary(of: kept, id: listed.id)
                summary.uuid = listed.uuid  // the route's own, whatever was trimmed
            }
            let stored = QuantizedPoints(route.points)
            let shape: WKBGeometry
            if geometry == .preview, let preview = summary.preview, preview.count > 0 {
                let coordinates = preview.coordinates
                shape = WKBGeometry(latitudes: coordinates.map { Int32(truncatingIfNeeded: Quantization.degrees($0.latitude)) },
                                    longitudes: coordinates.map { Int32(truncatingIfNeeded: Quantization.degrees($0.longitude)) },
                                    segmentStarts: [])
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

    /// The summary of a route trimmed by privacy zones, with the stats and preview a save
    /// of the kept points would give them (none if they cannot be computed).
    static func summary(of kept: Route, id: RouteID) -> RouteSummary {
        var metadata = StoredMetadata(kept.metadata)
        if let columns = try? RouteEncoder.gather(kept) {
            metadata.derived = DerivedFields(points: kept.points, columns: columns, segmentStarts: kept.segmentStarts)
        }
        return RouteShape(points: kept.points, segmentStarts: kept.segmentStarts).summary(id: id, metadata: metadata)
    }
}
