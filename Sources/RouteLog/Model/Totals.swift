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
        // Asking the calendar for each route's week costs microseconds on some platforms;
        // the local day number needs only the zone's offset, and the calendar is asked
        // once per week found.
        let zone = calendar.timeZone
        var weeks: [Int: RouteTotals] = [:]
        for summary in summaries {
            let seconds = summary.startDate.timeIntervalSince1970
            let local = seconds + Double(zone.secondsFromGMT(for: summary.startDate))
            let day = Int((local / 86_400).rounded(.down))
            let monday = day - (((day + 3) % 7) + 7) % 7  // 1970-01-01 was a Thursday
            weeks[monday, default: RouteTotals()].add(summary)
        }
        var cal = calendar
        cal.firstWeekday = 2
        return weeks.map { monday, totals in
            // Noon local time on that Monday, then back to its first instant.
            let noon = Date(timeIntervalSince1970: Double(monday) * 86_400 + 43_200)
            let noonLocal = noon.addingTimeInterval(-Double(zone.secondsFromGMT(for: noon)))
            return WeeklyTotals(weekStart: cal.startOfDay(for: noonLocal), totals: totals)
        }
        .sorted { $0.weekStart > $1.weekStart }
    }
}
