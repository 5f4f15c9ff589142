import Foundation

/// The calendar periods ``RouteStore/totals(by:calendar:matching:)`` groups by.
public enum TotalsPeriod: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    /// Weeks starting on the calendar's `firstWeekday`.
    case week
    /// The calendar's months.
    case month
    /// The calendar's years.
    case year

    var component: Calendar.Component {
        switch self {
        case .week: return .weekOfYear
        case .month: return .month
        case .year: return .year
        }
    }
}

/// The totals of one week, month or year.
public struct PeriodTotals: Sendable, Equatable, Hashable, Codable {
    /// The first instant of the period in the calendar's time zone.
    public var start: Date
    /// Which kind of period.
    public var period: TotalsPeriod
    /// The routes that started in it.
    public var totals: RouteTotals

    /// Creates a period's totals.
    public init(start: Date, period: TotalsPeriod, totals: RouteTotals) {
        self.start = start
        self.period = period
        self.totals = totals
    }

    /// Groups summaries into the calendar's periods, newest first; periods without routes
    /// are left out. Weeks start on `calendar.firstWeekday`.
    public static func group(_ summaries: some Sequence<RouteSummary>, by period: TotalsPeriod,
                             calendar: Calendar = .mondayFirst) -> [PeriodTotals] {
        // Asking the calendar for each route costs microseconds; routes are grouped by
        // local day first (the zone's offset is enough for that) and the calendar is
        // asked once per day found.
        let zone = calendar.timeZone
        var days: [Int: RouteTotals] = [:]
        for summary in summaries {
            let local = summary.startDate.timeIntervalSince1970 + Double(zone.secondsFromGMT(for: summary.startDate))
            let day = Int((local / 86_400).rounded(.down))
            days[day, default: RouteTotals()].add(summary)
        }
        var periods: [Date: RouteTotals] = [:]
        for (day, totals) in days {
            // Noon local time on that day: inside it whatever the daylight saving.
            let noon = Date(timeIntervalSince1970: Double(day) * 86_400 + 43_200)
            let noonLocal = noon.addingTimeInterval(-Double(zone.secondsFromGMT(for: noon)))
            let start = calendar.dateInterval(of: period.component, for: noonLocal)?.start ?? calendar.startOfDay(for: noonLocal)
            periods[start, default: RouteTotals()].merge(totals)
        }
        return periods.map { PeriodTotals(start: $0.key, period: period, totals: $0.value) }.sorted { $0.start > $1.start }
    }
}

extension RouteTotals {
    /// Adds another set of totals to these.
    public mutating func merge(_ other: RouteTotals) {
        routeCount += other.routeCount
        distance += other.distance
        duration += other.duration
        calories += other.calories
    }
}

extension Calendar {
    /// The current calendar with weeks starting on Monday: the default of
    /// ``RouteStore/totals(by:calendar:matching:)``.
    public static var mondayFirst: Calendar {
        var calendar = Calendar.current
        calendar.firstWeekday = 2
        return calendar
    }
}
