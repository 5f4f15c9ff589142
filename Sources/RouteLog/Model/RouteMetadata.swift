import Foundation

/// What an app may say about a route beyond its points, and what can be edited later
/// without rewriting the points.
public struct RouteMetadata: Sendable, Equatable, Hashable, Codable {
    /// A name shown in lists ("Morning walk"). At most 1,024 bytes of UTF-8.
    public var name: String?
    /// Energy burnt, in kilocalories, as the app computed it.
    public var calories: Double?
    /// Distance in metres when the app's own figure should win over the one RouteLog
    /// computes from the points.
    public var distance: Double?
    /// Creates metadata; everything is optional.
    public init(name: String? = nil, calories: Double? = nil, distance: Double? = nil) {
        self.name = name
        self.calories = calories
        self.distance = distance
    }
}

/// A change to a stored route's metadata: each field left `nil` stays as it is.
///
/// Moving a route in time (``startDate`` or ``shift``) moves every point: the store
/// keeps the shift beside the points and applies it when the route is read, so the
/// points themselves are never rewritten.
///
/// ```swift
/// try store.edit(id, RouteEdit(shift: 7 * 86_400, calories: 310))
/// ```
public struct RouteEdit: Sendable, Equatable {
    /// Moves the route to start at this date (every timestamp moves with it).
    public var startDate: Date?
    /// Moves the route by this many seconds (added to any earlier shift).
    public var shift: TimeInterval?
    /// A new name; an empty string removes the name.
    public var name: String?
    /// New calories, in kilocalories.
    public var calories: Double?
    /// New distance in metres.
    public var distance: Double?

    /// Creates an edit. Give `startDate` or `shift`, not both.
    public init(startDate: Date? = nil, shift: TimeInterval? = nil, name: String? = nil,
                calories: Double? = nil, distance: Double? = nil) {
        self.startDate = startDate
        self.shift = shift
        self.name = name
        self.calories = calories
        self.distance = distance
    }
}
