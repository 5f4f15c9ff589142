import Foundation

/// A circle around a private place (a home, a workplace). Exports given zones leave out
/// the points inside any of them at the start and at the end of a route, so that the
/// exported track begins and ends outside them; the stored route is untouched.
///
/// ```swift
/// let home = try PrivacyZone(center: Coordinate(latitude: 45.4642, longitude: 9.19), radius: 200)
/// let gpx = try RouteExporter.data(for: route, format: .gpx, privacyZones: [home])
/// ```
///
/// A point is inside when its geodesic distance to the centre (WGS84, ``Geodesic``) is at
/// most the radius. ``PrivacyTrim`` says exactly what is removed.
public struct PrivacyZone: Sendable, Equatable, Hashable, Codable {
    /// The private place.
    public let center: Coordinate
    /// Metres around the centre; more than 0 and at most ``maximumRadius``.
    public let radius: Double

    /// The largest radius accepted, in metres: a zone is a neighbourhood, not a region.
    public static let maximumRadius = 100_000.0

    /// Creates a zone.
    /// - Parameters:
    ///   - center: The private place; latitude in -90...90, longitude in -180...180.
    ///   - radius: Metres, more than 0 and at most ``maximumRadius``.
    /// - Throws: ``RouteLogError`` `.invalidArgument` for a coordinate out of range or not
    ///   a number, or a radius that is not a positive number up to ``maximumRadius``: a
    ///   zone that silently hid nothing would be worse than an error.
    public init(center: Coordinate, radius: Double) throws {
        guard center.latitude.isFinite, center.longitude.isFinite, abs(center.latitude) <= 90,
              abs(center.longitude) <= 180 else {
            throw RouteLogError.invalid("a privacy zone's centre must be a latitude in -90...90 and a longitude in -180...180, "
                                        + "not \(center.latitude), \(center.longitude)")
        }
        guard radius.isFinite, radius > 0, radius <= Self.maximumRadius else {
            throw RouteLogError.invalid("a privacy zone's radius must be more than 0 and at most 100000 metres, not \(radius)")
        }
        self.center = center
        self.radius = radius
    }

    /// Whether `coordinate` lies in the zone (on its edge counts as inside).
    public func contains(_ coordinate: Coordinate) -> Bool {
        Geodesic.distance(center, coordinate) <= radius
    }

    private enum CodingKeys: String, CodingKey { case center, radius }

    /// Decodes a zone, checked like ``init(center:radius:)``.
    /// - Throws: ``RouteLogError`` `.invalidArgument` for a value out of range; the
    ///   decoder's errors.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(center: container.decode(Coordinate.self, forKey: .center),
                      radius: container.decode(Double.self, forKey: .radius))
    }

    /// Encodes the centre and the radius.
    /// - Throws: The encoder's errors.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(center, forKey: .center)
        try container.encode(radius, forKey: .radius)
    }
}
