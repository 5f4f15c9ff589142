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
    /// Walk, run, ride...
    public var activity: ActivityKind?
    /// Free text, at most 4,096 bytes of UTF-8.
    public var notes: String?
    /// Labels for filtering ("commute", "with Ada"): at most 32, each 1 to 64 bytes of
    /// UTF-8, in the app's order.
    public var tags: [String]
    /// The app's own small values (a weather code, a shoe): at most 32 keys of 1 to 64
    /// bytes, values of at most 1,024 bytes (UTF-8).
    public var values: [String: String]
    /// The route's stable identifier, kept through edits, compaction and export (a
    /// backend's key for it). nil when saving: the store assigns a random one; an app
    /// that already has one for the route passes it.
    public var uuid: UUID?

    /// Creates metadata; everything is optional.
    public init(name: String? = nil, calories: Double? = nil, distance: Double? = nil,
                activity: ActivityKind? = nil, notes: String? = nil, tags: [String] = [],
                values: [String: String] = [:], uuid: UUID? = nil) {
        self.name = name
        self.calories = calories
        self.distance = distance
        self.activity = activity
        self.notes = notes
        self.tags = tags
        self.values = values
        self.uuid = uuid
    }
}

extension RouteMetadata {
    /// This metadata with a uuid: its own, else `existing`, else a new random one.
    func withUUID(_ existing: UUID? = nil) -> RouteMetadata {
        var copy = self
        copy.uuid = uuid ?? existing ?? UUID.random()
        return copy
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
    /// A new activity kind.
    public var activity: ActivityKind?
    /// Removes the activity kind (``activity`` must then be nil).
    public var removesActivity = false
    /// New notes; an empty string removes them.
    public var notes: String?
    /// New tags, replacing the old ones; an empty array removes them.
    public var tags: [String]?
    /// New values, replacing the old ones; an empty dictionary removes them.
    public var values: [String: String]?

    /// Creates an edit. Give `startDate` or `shift`, not both.
    public init(startDate: Date? = nil, shift: TimeInterval? = nil, name: String? = nil,
                calories: Double? = nil, distance: Double? = nil, activity: ActivityKind? = nil,
                removesActivity: Bool = false, notes: String? = nil, tags: [String]? = nil,
                values: [String: String]? = nil) {
        self.startDate = startDate
        self.shift = shift
        self.name = name
        self.calories = calories
        self.distance = distance
        self.activity = activity
        self.removesActivity = removesActivity
        self.notes = notes
        self.tags = tags
        self.values = values
    }
}
