import Foundation

/// Finding a route that is already stored, so that importing the same file (or the same
/// activity from another file) twice adds it once.
extension RouteStore {
    /// The id of a stored route whose points are `route`'s at stored precision: the same
    /// number of points, each with the same latitude, longitude (1e-7 degree) and time
    /// (1 ms). Other channels, metadata and segment breaks are not compared, so a track
    /// imported from GPX and the same activity from its FIT file match when their
    /// positions and times agree. Nil when no stored route matches.
    ///
    /// Candidates come from the index (same start time, point count, end time, first and
    /// last position and bounding box; a binary search by date); only they are loaded and
    /// compared point by point. Many stored routes equal in all of these but one point
    /// each (untimed copies of one path with a point moved) still cost a load each.
    /// - Throws: `.closed`; read errors of a candidate route (`.corrupted`, `.io`).
    public func existingRoute(equalTo route: Route) throws -> RouteID? {
        guard let key = RoutePositions(route) else { return nil }
        let start = Quantization.date(milliseconds: key.times[0])
        for summary in try summaries(from: start, to: start.addingTimeInterval(0.001))
        where summary.pointCount == key.times.count && key.mayEqual(summary) {
            if RoutePositions(try self.route(summary.id)) == key { return summary.id }
        }
        return nil
    }
}

/// A route's positions and times as the store keeps them: what two routes must share
/// to be the same route.
struct RoutePositions: Equatable, Hashable {
    var latitudes: [Int64] = []
    var longitudes: [Int64] = []
    var times: [Int64] = []

    /// Whether a stored route of this summary can hold these positions: the figures the
    /// index keeps (at stored precision) agree, so only such routes are loaded.
    func mayEqual(_ summary: RouteSummary) -> Bool {
        let last = times.count - 1
        let box = summary.boundingBox
        return Quantization.milliseconds(summary.startDate) == times[0]
            && Quantization.milliseconds(summary.endDate) == times[0] + max(0, times[last] - times[0])
            && Quantization.degrees(summary.startCoordinate.latitude) == latitudes[0]
            && Quantization.degrees(summary.startCoordinate.longitude) == longitudes[0]
            && Quantization.degrees(summary.endCoordinate.latitude) == latitudes[last]
            && Quantization.degrees(summary.endCoordinate.longitude) == longitudes[last]
            && Quantization.degrees(box.southWest.latitude) == latitudes.min()
            && Quantization.degrees(box.northEast.latitude) == latitudes.max()
            && Quantization.degrees(box.southWest.longitude) == longitudes.min()
            && Quantization.degrees(box.northEast.longitude) == longitudes.max()
    }

    /// Nil for a route without points or with a value a save would refuse.
    init?(_ route: Route) {
        guard !route.points.isEmpty else { return nil }
        latitudes.reserveCapacity(route.points.count)
        longitudes.reserveCapacity(route.points.count)
        times.reserveCapacity(route.points.count)
        for point in route.points {
            guard point.latitude.isFinite, point.longitude.isFinite, point.timestamp.timeIntervalSince1970.isFinite
            else { return nil }
            latitudes.append(Quantization.degrees(point.latitude))
            longitudes.append(Quantization.degrees(point.longitude))
            times.append(Quantization.milliseconds(point.timestamp))
        }
    }
}
