import Foundation

/// Distances and timings computed from a route's points.
public enum RouteMetrics {
    /// Metres travelled along `points`, skipping the step into each index of
    /// `segmentStarts` (a pause or a new GPX segment is not travelled).
    public static func distance(of points: [TrackPoint], segmentStarts: [Int] = []) -> Double {
        guard points.count > 1 else { return 0 }
        var breaks = Set(segmentStarts)
        breaks.remove(0)
        var total = 0.0
        for i in 1..<points.count where !breaks.contains(i) {
            total += greatCircleDistance(points[i - 1].coordinate, points[i].coordinate)
        }
        return total
    }

    /// Haversine distance on a sphere of the WGS84 mean radius, in metres.
    static func greatCircleDistance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let radius = 6_371_008.8
        let lat1 = a.latitude * .pi / 180, lat2 = b.latitude * .pi / 180
        let dLat = lat2 - lat1
        let dLon = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(lat1) * cos(lat2) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * radius * asin(min(1, sqrt(h)))
    }
}
