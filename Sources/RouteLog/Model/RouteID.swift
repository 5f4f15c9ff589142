/// A route's identity in one store: assigned by ``RouteStore/save(_:)->RouteID``, never reused,
/// even after the route is deleted and the store compacted.
public struct RouteID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible,
    LosslessStringConvertible
{
    /// The number behind the id (1, 2, 3...).
    public let rawValue: UInt64

    /// Wraps a raw id.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    /// Parses the decimal form printed by `description` and by the `routelog` CLI.
    public init?(_ description: String) {
        guard let value = UInt64(description), value > 0 else { return nil }
        self.rawValue = value
    }

    /// The id in decimal.
    public var description: String { String(rawValue) }

    /// Ids order as they were given out: an earlier save has a smaller id.
    public static func < (lhs: RouteID, rhs: RouteID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Decodes the id from its number (an id is encoded as a bare number, not an object).
    ///
    /// - Throws: `DecodingError` when the value is not an unsigned 64-bit number.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(UInt64.self)
    }

    /// Encodes the id as a bare number.
    ///
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
