import Foundation

/// Sums over a set of routes: what the home screen shows.
public struct RouteTotals: Sendable, Equatable, Hashable, Codable {
    /// How many routes.
    public var routeCount: Int
    /// Metres.
    public var distance: Double
    /// Seconds.
    public var duration: TimeInterval
    /// Kilocalories.
    public var calories: Double

    /// Creates totals.
    public init(routeCount: Int = 0, distance: Double = 0, duration: TimeInterval = 0,
                calories: Double = 0) {
        self.routeCount = routeCount
        self.distance = distance
        self.duration = duration
        self.calories = calories
    }

    /// Adds one route's summary.
    public mutating func add(_ summary: RouteSummary) {
        routeCount += 1
        distance += summary.distance
        duration += summary.duration
        calories += summary.calories
    }
}

/// The totals of one calendar week.
public struct WeeklyTotals: Sendable, Equatable, Hashable, Codable {
    /// Midnight at the start of the week's Monday, in the calendar's time zone.
    public var weekStart: Date
    /// The routes that started in that week.
    public var totals: RouteTotals

    /// Creates a week's totals.
    public init(weekStart: Date, totals: RouteTotals) {
        self.weekStart = weekStart
        self.totals = totals
    }

    /// Groups summaries into weeks that start on Monday in `calendar`'s time zone,
    /// newest week first. Weeks without routes are left out.
    public static func group(_ summaries: some Sequence<RouteSummary>,
                             calendar: Calendar = .current) -> [WeeklyTotals] {
        var cal = calendar
        cal.firstWeekday = 2  // Monday, whatever the locale says
        cal.minimumDaysInFirstWeek = 4
        var weeks: [Date: RouteTotals] = [:]
        for summary in summaries {
            guard let start = cal.dateInterval(of: .weekOfYear, for: summary.startDate)?.start
            else { continue }
            weeks[start, default: RouteTotals()].add(summary)
        }
        return weeks.map { WeeklyTotals(weekStart: $0.key, totals: $0.value) }
            .sorted { $0.weekStart > $1.weekStart }
    }
}
