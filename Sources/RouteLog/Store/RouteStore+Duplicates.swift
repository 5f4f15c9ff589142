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
    /// Candidates come from the index (same start time and point count, a binary search
    /// by date); only they are loaded and compared point by point.
    /// - Throws: `.closed`; read errors of a candidate route (`.corrupted`, `.io`).
    public func existingRoute(equalTo route: Route) throws -> RouteID? {
        guard let key = RoutePositions(route) else { return nil }
        let start = Quantization.date(milliseconds: key.times[0])
        for summary in try summaries(from: start, to: start.addingTimeInterval(0.001))
        where summary.pointCount == key.times.count && Quantization.milliseconds(summary.startDate) == key.times[0] {
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
