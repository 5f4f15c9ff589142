import Foundation

/// What a list screen shows of a route, kept in the store's index so that listing and
/// totals never read coordinates.
public struct RouteSummary: Sendable, Equatable, Hashable, Codable {
    /// The route's id.
    public var id: RouteID
    /// Timestamp of the first point, with the route's time shift applied.
    public var startDate: Date
    /// Seconds from the first to the last point (0 if time went backwards overall).
    public var duration: TimeInterval
    /// Metres: the app's figure if it gave one, else computed from the points.
    public var distance: Double
    /// Kilocalories (0 when the app gave none).
    public var calories: Double
    /// Number of points.
    public var pointCount: Int
    /// The rectangle holding every point.
    public var boundingBox: BoundingBox
    /// The first point's position.
    public var startCoordinate: Coordinate
    /// The last point's position.
    public var endCoordinate: Coordinate
    /// The route's name, if it has one.
    public var name: String?
    /// The route's stable identifier (``RouteMetadata/uuid``).
    public var uuid: UUID
    /// Walk, run, ride..., when known.
    public var activity: ActivityKind?
    /// The route's tags, in the app's order.
    public var tags: [String]
    /// Moving time, elevation, speed, heart rate and cadence, computed at save; nil when
    /// unknown (a route saved by an older version, or recorded with ``RouteRecorder``).
    public var stats: RouteStats?
    /// A simplified shape (at most 64 points) for a thumbnail or map overview; nil when
    /// unknown, as for ``stats``.
    public var preview: RoutePreview?

    /// Metres per second over the whole route (0 for a route without duration).
    public var averageSpeed: Double { duration > 0 ? distance / duration : 0 }

    /// When the last point was taken.
    public var endDate: Date { startDate.addingTimeInterval(duration) }

    /// Creates a summary (RouteStore makes these; apps rarely need to).
    public init(id: RouteID, startDate: Date, duration: TimeInterval, distance: Double,
                calories: Double, pointCount: Int, boundingBox: BoundingBox,
                startCoordinate: Coordinate, endCoordinate: Coordinate, name: String?,
                uuid: UUID = UUID(), activity: ActivityKind? = nil, tags: [String] = [],
                stats: RouteStats? = nil, preview: RoutePreview? = nil) {
        self.id = id
        self.startDate = startDate
        self.duration = duration
        self.distance = distance
        self.calories = calories
        self.pointCount = pointCount
        self.boundingBox = boundingBox
        self.startCoordinate = startCoordinate
        self.endCoordinate = endCoordinate
        self.name = name
        self.uuid = uuid
        self.activity = activity
        self.tags = tags
        self.stats = stats
        self.preview = preview
    }
}
