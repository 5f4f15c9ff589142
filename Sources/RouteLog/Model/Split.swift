import Foundation

/// The moment a route passed a whole kilometre or mile.
public struct Split: Sendable, Equatable, Hashable, Codable {
    /// The length unit a split counts.
    public enum Unit: UInt8, Sendable, Equatable, Hashable, Codable, CaseIterable {
        /// One split per 1,000 metres.
        case kilometre = 1
        /// One split per 1,609.344 metres.
        case mile = 2

        /// The unit's length in metres.
        public var metres: Double { self == .kilometre ? 1000 : 1609.344 }
    }

    /// Kilometre or mile.
    public var unit: Unit
    /// Index in ``Route/points`` of the point where the split was reached.
    public var pointIndex: Int
    /// Time since the route's first point, in seconds (stored to the millisecond).
    public var elapsedTime: TimeInterval

    /// Creates a split.
    public init(unit: Unit, pointIndex: Int, elapsedTime: TimeInterval) {
        self.unit = unit
        self.pointIndex = pointIndex
        self.elapsedTime = elapsedTime
    }
}
