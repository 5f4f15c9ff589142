import Foundation

/// One recorded GPS fix: the fields of a CLLocation, plus the heart rate and cadence
/// that fitness devices add.
///
/// RouteLog stores every field at a fixed precision (see ``RouteCodec/quantize(_:)-(TrackPoint)``):
/// 1e-7 degree for coordinates, 1 ms for time, 1 cm for altitude and accuracies,
/// 1 cm/s for speed, 0.01 degree for course, and whole beats or steps per minute.
/// A point read back from a store equals the quantized point exactly.
///
/// A point is 80 bytes: each optional field is kept as a plain `Double`, an absent one
/// as a NaN of RouteLog's own (``absentBitPattern``), instead of 16 bytes an `Optional`.
/// A 3,600-point route is 288 KB instead of 490 KB, which every save reads and every
/// load writes. Only nil makes a field absent: a `Double` given with exactly that bit
/// pattern is kept as `Double.nan` (a NaN the save refuses, as it refuses every NaN);
/// any other value, NaN included, is kept as given.
public struct TrackPoint: Sendable, Equatable, Hashable, Codable {
    /// Degrees north, -90...90.
    public var latitude: Double
    /// Degrees east, -180...180.
    public var longitude: Double
    /// When the fix was taken. Between 1970 and 2200; may go backwards between points.
    public var timestamp: Date
    /// The optional fields as stored: a value, or ``absent``.
    var rawAltitude: Double, rawHorizontalAccuracy: Double, rawVerticalAccuracy: Double
    var rawSpeed: Double, rawCourse: Double, rawHeartRate: Double, rawCadence: Double

    /// Metres above sea level.
    public var altitude: Double? {
        get { Self.optional(rawAltitude) }
        set { rawAltitude = Self.raw(newValue) }
    }
    /// Radius of uncertainty of the coordinate, in metres (negative: invalid, as in CLLocation).
    public var horizontalAccuracy: Double? {
        get { Self.optional(rawHorizontalAccuracy) }
        set { rawHorizontalAccuracy = Self.raw(newValue) }
    }
    /// Uncertainty of the altitude, in metres (negative: invalid).
    public var verticalAccuracy: Double? {
        get { Self.optional(rawVerticalAccuracy) }
        set { rawVerticalAccuracy = Self.raw(newValue) }
    }
    /// Metres per second (negative: invalid).
    public var speed: Double? {
        get { Self.optional(rawSpeed) }
        set { rawSpeed = Self.raw(newValue) }
    }
    /// Degrees clockwise from true north (negative: invalid).
    public var course: Double? {
        get { Self.optional(rawCourse) }
        set { rawCourse = Self.raw(newValue) }
    }
    /// Beats per minute.
    public var heartRate: Double? {
        get { Self.optional(rawHeartRate) }
        set { rawHeartRate = Self.raw(newValue) }
    }
    /// Steps or revolutions per minute.
    public var cadence: Double? {
        get { Self.optional(rawCadence) }
        set { rawCadence = Self.raw(newValue) }
    }

    /// Creates a point; only the coordinate and the timestamp are required.
    public init(
        latitude: Double, longitude: Double, timestamp: Date,
        altitude: Double? = nil, horizontalAccuracy: Double? = nil,
        verticalAccuracy: Double? = nil, speed: Double? = nil, course: Double? = nil,
        heartRate: Double? = nil, cadence: Double? = nil
    ) {
        self.init(latitude: latitude, longitude: longitude, timestamp: timestamp,
                  raw: (Self.raw(altitude), Self.raw(horizontalAccuracy), Self.raw(verticalAccuracy), Self.raw(speed),
                        Self.raw(course), Self.raw(heartRate), Self.raw(cadence)))
    }

    /// A point from its optional fields as stored (``absent`` for none), in declaration
    /// order: what a decoder writes, with no `Optional` made and unwrapped per field.
    @inline(__always)
    init(latitude: Double, longitude: Double, timestamp: Date,
         raw: (Double, Double, Double, Double, Double, Double, Double)) {
        self.latitude = latitude
        self.longitude = longitude
        self.timestamp = timestamp
        (rawAltitude, rawHorizontalAccuracy, rawVerticalAccuracy, rawSpeed, rawCourse, rawHeartRate, rawCadence) = raw
    }

    /// The point's position.
    public var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }

    /// The bit pattern that marks an optional field absent: a quiet NaN with a payload
    /// of its own (no arithmetic makes it from numbers, and `Double.nan` is another).
    /// A value given with this pattern is stored as `Double.nan`, not as absent.
    public static let absentBitPattern: UInt64 = 0x7FF8_0000_0A65_4E7D
    /// An absent field as stored.
    static let absent = Double(bitPattern: absentBitPattern)

    @inline(__always)
    static func isAbsent(_ raw: Double) -> Bool { raw.bitPattern == absentBitPattern }

    @inline(__always)
    static func optional(_ raw: Double) -> Double? { isAbsent(raw) ? nil : raw }

    /// A field as stored: ``absent`` for nil only. A value given with the absent
    /// pattern is a NaN like any other (refused at save, as every NaN is), so it is
    /// kept as `Double.nan`, never taken for a missing value.
    @inline(__always)
    static func raw(_ value: Double?) -> Double {
        guard let value else { return absent }
        return isAbsent(value) ? .nan : value
    }

    // Equality, hashing and coding as the fields' declared types give them (the raw
    // doubles would make an absent field unequal to itself, NaN being unequal to NaN).

    /// Equal when every field is, absent fields equal to each other (as `Double?`).
    public static func == (a: TrackPoint, b: TrackPoint) -> Bool {
        a.latitude == b.latitude && a.longitude == b.longitude && a.timestamp == b.timestamp
            && a.altitude == b.altitude && a.horizontalAccuracy == b.horizontalAccuracy
            && a.verticalAccuracy == b.verticalAccuracy && a.speed == b.speed && a.course == b.course
            && a.heartRate == b.heartRate && a.cadence == b.cadence
    }

    /// Hashes every field, the optional ones as `Double?`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(latitude)
        hasher.combine(longitude)
        hasher.combine(timestamp)
        hasher.combine(altitude)
        hasher.combine(horizontalAccuracy)
        hasher.combine(verticalAccuracy)
        hasher.combine(speed)
        hasher.combine(course)
        hasher.combine(heartRate)
        hasher.combine(cadence)
    }

    private enum CodingKeys: String, CodingKey {
        case latitude, longitude, timestamp, altitude, horizontalAccuracy, verticalAccuracy, speed, course, heartRate, cadence
    }

    /// Decodes the fields by name; an optional field that is missing is absent.
    /// - Throws: `DecodingError` when a required field is missing or a field is no number
    ///   (or, for `timestamp`, no date).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(latitude: try c.decode(Double.self, forKey: .latitude), longitude: try c.decode(Double.self, forKey: .longitude),
                  timestamp: try c.decode(Date.self, forKey: .timestamp),
                  altitude: try c.decodeIfPresent(Double.self, forKey: .altitude),
                  horizontalAccuracy: try c.decodeIfPresent(Double.self, forKey: .horizontalAccuracy),
                  verticalAccuracy: try c.decodeIfPresent(Double.self, forKey: .verticalAccuracy),
                  speed: try c.decodeIfPresent(Double.self, forKey: .speed),
                  course: try c.decodeIfPresent(Double.self, forKey: .course),
                  heartRate: try c.decodeIfPresent(Double.self, forKey: .heartRate),
                  cadence: try c.decodeIfPresent(Double.self, forKey: .cadence))
    }

    /// Encodes the fields by name, leaving out the absent optional ones.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(latitude, forKey: .latitude)
        try c.encode(longitude, forKey: .longitude)
        try c.encode(timestamp, forKey: .timestamp)
        try c.encodeIfPresent(altitude, forKey: .altitude)
        try c.encodeIfPresent(horizontalAccuracy, forKey: .horizontalAccuracy)
        try c.encodeIfPresent(verticalAccuracy, forKey: .verticalAccuracy)
        try c.encodeIfPresent(speed, forKey: .speed)
        try c.encodeIfPresent(course, forKey: .course)
        try c.encodeIfPresent(heartRate, forKey: .heartRate)
        try c.encodeIfPresent(cadence, forKey: .cadence)
    }
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
