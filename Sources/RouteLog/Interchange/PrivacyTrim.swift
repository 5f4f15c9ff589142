import Foundation

/// What privacy zones leave of a route for export.
///
/// - The leading points that lie inside any zone are removed, up to the first point
///   outside every zone; likewise the trailing points, back to the last point outside
///   every zone. The exported track therefore begins and ends outside the zones.
/// - Points inside a zone between those two stay: a route that passes a zone on the way
///   is not cut in the middle.
/// - When every point lies inside a zone nothing is left: ``route`` is nil, and the
///   exporters refuse the route rather than write an empty track.
/// - When points were removed, the route left is described by its own points only:
///   segment starts are shifted, splits are computed again from the first point left
///   (the stored ones count from the real start, so the first split would tell how far
///   away it is), and the calories and the app's distance are dropped (they cover the
///   removed part). Exports then compute every figure from the points left.
/// - Without zones, or when no point is removed, the route is exported as stored.
///
/// The stored route is never changed.
public struct PrivacyTrim: Sendable, Equatable {
    /// The route to export, or nil when every point lies inside a zone.
    public let route: Route?
    /// Points removed from the start.
    public let removedAtStart: Int
    /// Points removed from the end.
    public let removedAtEnd: Int

    /// Points removed in all.
    public var removedPoints: Int { removedAtStart + removedAtEnd }

    /// Trims `route` by `zones`. Linear in the points times the zones.
    public init(_ route: Route, zones: [PrivacyZone]) {
        let points = route.points
        func inside(_ p: TrackPoint) -> Bool { zones.contains { $0.contains(p.coordinate) } }
        guard !zones.isEmpty, !points.isEmpty else {
            self.route = route
            removedAtStart = 0
            removedAtEnd = 0
            return
        }
        guard let first = points.firstIndex(where: { !inside($0) }) else {
            self.route = nil
            removedAtStart = points.count
            removedAtEnd = 0
            return
        }
        // A point outside exists, so the backward search stops at `first` at the latest.
        let last = points.lastIndex { !inside($0) }!
        removedAtStart = first
        removedAtEnd = points.count - 1 - last
        guard first > 0 || last < points.count - 1 else {
            self.route = route
            return
        }
        let kept = Array(points[first...last])
        let starts = route.segmentStarts.filter { $0 > first && $0 <= last }.map { $0 - first }
        var metadata = route.metadata
        metadata.calories = nil
        metadata.distance = nil
        // Splits of the points left, unless there would be more than an import allows
        // (a track hopping round the globe): then none, rather than millions.
        let metres = RouteMetrics.distance(of: kept, segmentStarts: starts)
        let splits = ImportLimits.splitCount(metres: metres) <= Double(ImportLimits().splitsPerRoute)
            ? RouteMetrics.splits(of: kept, segmentStarts: starts) : []
        self.route = Route(points: kept, splits: splits, metadata: metadata, segmentStarts: starts)
    }

    /// The error exporters throw for a route that lies wholly inside the zones.
    static func nothingLeft(_ id: RouteID?) -> RouteLogError {
        RouteLogError(.invalidArgument, "every point of " + (id.map { "route \($0)" } ?? "the route")
                      + " lies inside a privacy zone; nothing is left to export")
    }
}
