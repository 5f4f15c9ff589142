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
    /// Midnight at the start of the week's first day (the calendar's `firstWeekday`), in
    /// the calendar's time zone.
    public var weekStart: Date
    /// The routes that started in that week.
    public var totals: RouteTotals

    /// Creates a week's totals.
    public init(weekStart: Date, totals: RouteTotals) {
        self.weekStart = weekStart
        self.totals = totals
    }

    /// Groups summaries into weeks that start on `calendar.firstWeekday` (Monday with the
    /// default calendar, Sunday to Saturday with a Sunday-first one) in its time zone,
    /// newest week first. Weeks without routes are left out.
    public static func group(_ summaries: some Sequence<RouteSummary>,
                             calendar: Calendar = .mondayFirst) -> [WeeklyTotals] {
        // Asking the calendar for each route's week costs microseconds on some platforms;
        // the local day number needs only the zone's offset, and the calendar is asked
        // once per week found.
        let zone = calendar.timeZone
        // Days from the week's first day back to 1970-01-01, a Thursday (weekday 5, with
        // Sunday 1): a Monday-first week puts it 3 days in, a Sunday-first one 4.
        let thursdayOffset = ((5 - calendar.firstWeekday) % 7 + 7) % 7
        var weeks: [Int: RouteTotals] = [:]
        for summary in summaries {
            let seconds = summary.startDate.timeIntervalSince1970
            let local = seconds + Double(zone.secondsFromGMT(for: summary.startDate))
            let day = Int((local / 86_400).rounded(.down))
            let first = day - (((day + thursdayOffset) % 7) + 7) % 7
            weeks[first, default: RouteTotals()].add(summary)
        }
        return weeks.map { first, totals in
            // Noon local time on that first day, then back to its first instant.
            let noon = Date(timeIntervalSince1970: Double(first) * 86_400 + 43_200)
            let noonLocal = noon.addingTimeInterval(-Double(zone.secondsFromGMT(for: noon)))
            return WeeklyTotals(weekStart: calendar.startOfDay(for: noonLocal), totals: totals)
        }
        .sorted { $0.weekStart > $1.weekStart }
    }
}
