import Foundation

/// Builds a RouteShape point by point, as a recording grows, with exactly the result
/// ``RouteShape/init(points:segmentStarts:)`` gives for all the points at once: the
/// same quantization, and the distance over the same coordinates summed in the same
/// order. (A recording resumed after a crash has only the stored, quantized points
/// before it; its distance is then that of those points and the new ones.)
struct RouteShapeBuilder: Sendable {
    private(set) var pointCount = 0
    private var firstMs: Int64 = 0, lastMs: Int64 = 0
    private var distance = 0.0
    private var south = Int32.max, north = Int32.min, west = Int32.max, east = Int32.min
    private var startLat: Int32 = 0, startLon: Int32 = 0
    private var endLat: Int32 = 0, endLon: Int32 = 0
    /// The last point's coordinate as given: distances are measured between these.
    private var last = Coordinate(latitude: 0, longitude: 0)

    /// Adds the next point (validated); `startsSegment` when its index is a segment start,
    /// so the step into it is not travelled.
    mutating func add(_ point: TrackPoint, startsSegment: Bool) {
        let lat = Int32(Quantization.degrees(point.latitude)), lon = Int32(Quantization.degrees(point.longitude))
        let ms = Quantization.milliseconds(point.timestamp)
        if pointCount == 0 {
            firstMs = ms
            startLat = lat
            startLon = lon
        } else if !startsSegment {
            distance += RouteMetrics.greatCircleDistance(last, point.coordinate)
        }
        last = point.coordinate
        lastMs = ms
        endLat = lat
        endLon = lon
        south = min(south, lat); north = max(north, lat)
        west = min(west, lon); east = max(east, lon)
        pointCount += 1
    }

    /// The shape of the points added so far; nil before the first.
    var shape: RouteShape? {
        guard pointCount > 0 else { return nil }
        return RouteShape(firstMs: firstMs, durationMs: max(0, lastMs - firstMs), pointCount: UInt32(pointCount),
                          distance: distance, south: south, west: west, north: north, east: east,
                          startLat: startLat, startLon: startLon, endLat: endLat, endLon: endLon)
    }

}

extension RouteShape {
    init(firstMs: Int64, durationMs: Int64, pointCount: UInt32, distance: Double,
         south: Int32, west: Int32, north: Int32, east: Int32,
         startLat: Int32, startLon: Int32, endLat: Int32, endLon: Int32) {
        self.firstMs = firstMs
        self.durationMs = durationMs
        self.pointCount = pointCount
        self.distance = distance
        self.south = south; self.west = west; self.north = north; self.east = east
        self.startLat = startLat; self.startLon = startLon; self.endLat = endLat; self.endLon = endLon
    }
}
