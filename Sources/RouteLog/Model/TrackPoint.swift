import Foundation

/// One recorded GPS fix: the fields of a CLLocation, plus the heart rate and cadence
/// that fitness devices add.
///
/// RouteLog stores every field at a fixed precision (see ``RouteCodec/quantize(_:)-(TrackPoint)``):
/// 1e-7 degree for coordinates, 1 ms for time, 1 cm for altitude and accuracies,
/// 1 cm/s for speed, 0.01 degree for course, and whole beats or steps per minute.
/// A point read back from a store equals the quantized point exactly.
public struct TrackPoint: Sendable, Equatable, Hashable, Codable {
    /// Degrees north, -90...90.
    public var latitude: Double
    /// Degrees east, -180...180.
    public var longitude: Double
    /// When the fix was taken. Between 1970 and 2200; may go backwards between points.
    public var timestamp: Date
    /// Metres above sea level.
    public var altitude: Double?
    /// Radius of uncertainty of the coordinate, in metres (negative: invalid, as in CLLocation).
    public var horizontalAccuracy: Double?
    /// Uncertainty of the altitude, in metres (negative: invalid).
    public var verticalAccuracy: Double?
    /// Metres per second (negative: invalid).
    public var speed: Double?
    /// Degrees clockwise from true north (negative: invalid).
    public var course: Double?
    /// Beats per minute.
    public var heartRate: Double?
    /// Steps or revolutions per minute.
    public var cadence: Double?

    /// Creates a point; only the coordinate and the timestamp are required.
    public init(
        latitude: Double, longitude: Double, timestamp: Date,
        altitude: Double? = nil, horizontalAccuracy: Double? = nil,
        verticalAccuracy: Double? = nil, speed: Double? = nil, course: Double? = nil,
        heartRate: Double? = nil, cadence: Double? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.timestamp = timestamp
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.heartRate = heartRate
        self.cadence = cadence
    }

    /// The point's position.
    public var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }
}

/// A latitude and longitude in degrees (WGS84).
public struct Coordinate: Sendable, Equatable, Hashable, Codable {
    /// Degrees north.
    public var latitude: Double
    /// Degrees east.
    public var longitude: Double

    /// Creates a coordinate.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// The smallest latitude/longitude rectangle holding every point of a route.
public struct BoundingBox: Sendable, Equatable, Hashable, Codable {
    /// South-west corner.
    public var southWest: Coordinate
    /// North-east corner.
    public var northEast: Coordinate

    /// Creates a box from its corners.
    public init(southWest: Coordinate, northEast: Coordinate) {
        self.southWest = southWest
        self.northEast = northEast
    }
}
