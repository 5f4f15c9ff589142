import Foundation

/// A recorded route: its points in order, its kilometre and mile splits, and its
/// metadata. What ``RouteStore/save(_:)->RouteID`` takes and ``RouteStore/route(_:)`` returns.
public struct Route: Sendable, Equatable, Hashable, Codable {
    /// The fixes in recording order. At least one.
    public var points: [TrackPoint]
    /// One split per kilometre and one per mile, in any order.
    public var splits: [Split]
    /// Name, calories, distance override and time shift.
    public var metadata: RouteMetadata
    /// Indices in ``points`` where a new recording segment starts (a pause, or a GPX
    /// `<trkseg>`): the step into such a point is not travelled distance. Sorted, each
    /// in 1..<points.count.
    public var segmentStarts: [Int]

    /// Creates a route.
    public init(points: [TrackPoint], splits: [Split] = [], metadata: RouteMetadata = .init(),
                segmentStarts: [Int] = []) {
        self.points = points
        self.splits = splits
        self.metadata = metadata
        self.segmentStarts = segmentStarts
    }
}
