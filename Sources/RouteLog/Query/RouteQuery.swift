import Foundation

/// Which routes ``RouteStore/summaries(matching:)`` returns, in what order, and how many.
/// Every condition given must hold; a condition left nil (or empty) does not filter.
///
/// ```swift
/// var query = RouteQuery(from: lastMonth, to: now)
/// query.activities = [.ride]
/// query.passesThrough = BoundingBox(southWest: .init(latitude: 45.46, longitude: 9.18),
///                                   northEast: .init(latitude: 45.47, longitude: 9.20))
/// query.sort = .distance
/// query.ascending = false
/// query.limit = 20
/// let longestRidesThroughTheCentre = try store.summaries(matching: query)
/// ```
public struct RouteQuery: Sendable, Equatable, Hashable {
    /// What results are ordered by; ties are broken by start date, then id, ascending.
    public enum Sort: Sendable, Equatable, Hashable {
        /// The start date (time shift applied).
        case startDate
        /// The summary's distance (the app's figure if it gave one).
        case distance
        /// The duration, first point to last.
        case duration
        /// The name, ignoring case and diacritics; unnamed routes sort as an empty name.
        case name
    }

    /// Routes that start at or after this date.
    public var from: Date?
    /// Routes that start before this date.
    public var to: Date?
    /// Routes of one of these kinds (a route without a kind matches none).
    public var activities: Set<ActivityKind>?
    /// Routes that have every one of these tags (exact, case-sensitive).
    public var tags: [String] = []
    /// Routes whose name contains this text, ignoring case and diacritics ("cafe"
    /// finds "Café"); an empty text matches every route.
    public var nameContains: String?
    /// Routes whose bounding box meets this area. An area whose west edge is east of its
    /// east edge crosses the antimeridian.
    public var boundingBoxIntersects: BoundingBox?
    /// Routes with at least one point inside this area (the index's grid cells pick the
    /// candidates; only routes at the area's edge are decoded and tested point by point).
    public var passesThrough: BoundingBox?
    /// The order of the results.
    public var sort: Sort = .startDate
    /// Ascending (the default: oldest, shortest, A first) or descending.
    public var ascending = true
    /// At most this many results (nil: all; 0: none).
    public var limit: Int?
    /// Results to skip, after sorting.
    public var offset = 0

    /// A query over start dates `from..<to` (either may be nil); every other condition empty.
    public init(from: Date? = nil, to: Date? = nil) {
        self.from = from
        self.to = to
    }

    /// A query over the routes that start inside `interval` (its end excluded).
    public init(_ interval: DateInterval) {
        self.init(from: interval.start, to: interval.end)
    }

    /// Checks every value, so that a bad query is refused before it reads anything.
    /// - Throws: `.invalidArgument` naming the field: dates that are not finite or
    ///   inverted (`from` after `to`), a negative limit or offset, an area with a
    ///   non-finite or out-of-range corner or its south above its north.
    public func validate() throws {
        for (label, date) in [("from", from), ("to", to)] {
            if let date, !date.timeIntervalSince1970.isFinite { throw RouteLogError.invalid("query \(label) date is not finite") }
        }
        if let from, let to, from > to {
            throw RouteLogError.invalid("query dates are inverted: from \(from) is after to \(to)")
        }
        if let limit, limit < 0 { throw RouteLogError.invalid("query limit \(limit) is negative") }
        if offset < 0 { throw RouteLogError.invalid("query offset \(offset) is negative") }
        for (label, box) in [("boundingBoxIntersects", boundingBoxIntersects), ("passesThrough", passesThrough)] {
            guard let box else { continue }
            let corners = [box.southWest, box.northEast]
            guard corners.allSatisfy({ $0.latitude.isFinite && $0.longitude.isFinite && abs($0.latitude) <= 90 && abs($0.longitude) <= 180 }) else {
                throw RouteLogError.invalid("query \(label) has a corner outside the globe or not finite: \(box)")
            }
            guard box.southWest.latitude <= box.northEast.latitude else {
                throw RouteLogError.invalid("query \(label) has its south edge (\(box.southWest.latitude)) north of its north edge (\(box.northEast.latitude))")
            }
        }
    }
}
