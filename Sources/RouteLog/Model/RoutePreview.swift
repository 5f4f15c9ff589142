import Foundation

/// A simplified shape of a route, at most 64 points with both ends kept, stored in the
/// index at save: enough to draw a list thumbnail or a map overview without reading the
/// route (format-spec.md, "Derived fields").
///
/// It holds its stored bytes and decodes them when ``coordinates`` is read, so that the
/// summaries of 100,000 routes cost a few hundred bytes each, not 64 coordinates each.
public struct RoutePreview: Sendable, Equatable, Hashable, Codable {
    /// The stored points: zigzag varint differences in 1e-5 degree.
    let encoded: [UInt8]
    /// The number of points.
    public let count: Int
    /// The largest distance, in metres, from a point of the route to the preview's line
    /// (before its coordinates were rounded to 1e-5 degree, which adds at most 0.8 m).
    public let tolerance: Double

    /// The most points a stored preview holds.
    public static let maxPoints = 64
    /// Points nearer than this many metres to the line are never kept.
    public static let minimumTolerance = 2.0
    /// Stored coordinates are multiples of 1 / this many degrees.
    static let scale = 1e5

    init(encoded: [UInt8], count: Int, tolerance: Double) {
        self.encoded = encoded
        self.count = count
        self.tolerance = tolerance
    }

    /// The preview's points, first to last.
    public var coordinates: [Coordinate] {
        var r = ByteReader(encoded[...])
        var lat: Int64 = 0, lon: Int64 = 0
        var result: [Coordinate] = []
        result.reserveCapacity(count)
        // The bytes were checked when read from disk, so a failure here cannot happen.
        for _ in 0..<count {
            guard let dLat = try? r.varint(), let dLon = try? r.varint() else { break }
            lat &+= Self.unzigzag(dLat)
            lon &+= Self.unzigzag(dLon)
            result.append(Coordinate(latitude: Double(lat) / Self.scale, longitude: Double(lon) / Self.scale))
        }
        return result
    }

    /// Encodes `coordinates` (at most ``maxPoints``) as a preview.
    init(coordinates: [Coordinate], tolerance: Double) {
        var w = ByteWriter(capacity: coordinates.count * 5)
        var lat: Int64 = 0, lon: Int64 = 0
        for c in coordinates {
            let qLat = Int64((c.latitude * Self.scale).rounded()), qLon = Int64((c.longitude * Self.scale).rounded())
            w.varint(Self.zigzag(qLat - lat))
            w.varint(Self.zigzag(qLon - lon))
            lat = qLat
            lon = qLon
        }
        self.init(encoded: w.bytes, count: coordinates.count, tolerance: tolerance)
    }

    static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }
    static func unzigzag(_ v: UInt64) -> Int64 { Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1) }

    private enum CodingKeys: String, CodingKey { case coordinates, tolerance }

    /// Decodes a preview from its coordinates and tolerance.
    /// - Throws: `DecodingError` when a field is missing, there are more than 64 points,
    ///   a latitude is not within ±90 or a longitude within ±180, or the tolerance is
    ///   negative or not finite.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let coordinates = try c.decode([Coordinate].self, forKey: .coordinates)
        guard coordinates.count <= Self.maxPoints else {
            throw DecodingError.dataCorruptedError(forKey: .coordinates, in: c, debugDescription: "more than \(Self.maxPoints) points")
        }
        if let bad = coordinates.firstIndex(where: { !($0.latitude.magnitude <= 90 && $0.longitude.magnitude <= 180) }) {
            throw DecodingError.dataCorruptedError(
                forKey: .coordinates, in: c,
                debugDescription: "point \(bad) (\(coordinates[bad].latitude), \(coordinates[bad].longitude)) is not a latitude within ±90 and a longitude within ±180")
        }
        let tolerance = try c.decode(Double.self, forKey: .tolerance)
        guard tolerance >= 0 && tolerance.isFinite else {
            throw DecodingError.dataCorruptedError(forKey: .tolerance, in: c, debugDescription: "\(tolerance) is not a finite distance of 0 or more")
        }
        self.init(coordinates: coordinates, tolerance: tolerance)
    }

    /// Encodes the preview as its coordinates and tolerance.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(coordinates, forKey: .coordinates)
        try c.encode(tolerance, forKey: .tolerance)
    }
}
