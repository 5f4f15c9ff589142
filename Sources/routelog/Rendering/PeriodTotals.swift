import Foundation
import RouteLog

/// Routes summed per calendar week (from Monday), month or year, in local time, with
/// the empty periods between the first and the last kept (a chart's time axis must not
/// skip the weeks without a walk).
struct PeriodTotals {
    enum Period: String, CaseIterable {
        case week, month, year

        var component: Calendar.Component {
            switch self {
            case .week: return .weekOfYear
            case .month: return .month
            case .year: return .year
            }
        }

        /// How many periods a chart shows when not told: a year of weeks, three years of
        /// months, every year up to sixty.
        var defaultCount: Int {
            switch self {
            case .week: return 52
            case .month: return 36
            case .year: return 60
            }
        }
    }

    let period: Period
    /// Each period's first instant and its totals, oldest first.
    let periods: [(start: Date, totals: RouteTotals)]

    /// The totals of `summaries` per `period`, for the newest `count` periods up to the
    /// period of the newest route, and none before the oldest route's.
    init(_ summaries: [RouteSummary], by period: Period, count: Int, calendar base: Calendar = Formatting.calendar) {
        self.period = period
        var calendar = base
        calendar.firstWeekday = 2
        calendar.minimumDaysInFirstWeek = 4
        func start(_ date: Date) -> Date { calendar.dateInterval(of: period.component, for: date)?.start ?? date }
        guard let newest = summaries.map(\.startDate).max(), let oldest = summaries.map(\.startDate).min() else {
            periods = []
            return
        }
        let first = start(oldest)
        var starts = [start(newest)]
        while starts.count < count, starts[0] > first, let previous = calendar.date(byAdding: period.component, value: -1, to: starts[0]) {
            starts.insert(start(previous), at: 0)
        }
        var totals = [Date: RouteTotals]()
        for summary in summaries where summary.startDate >= starts[0] {
            totals[start(summary.startDate), default: RouteTotals()].add(summary)
        }
        periods = starts.map { ($0, totals[$0] ?? RouteTotals()) }
    }

    /// A short label of a period: `W48`, `Nov`, `2026`; January is labelled with its
    /// year, so that a chart of several years says which is which.
    func label(_ date: Date) -> String {
        switch period {
        case .week: return String(Formatting.isoWeek(date).suffix(3))
        case .month:
            let month = Formatting.calendar.component(.month, from: date)
            return month == 1 ? String(Formatting.calendar.component(.year, from: date)) : Self.months[month - 1]
        case .year: return String(Formatting.calendar.component(.year, from: date))
        }
    }

    /// A period named in full: `2026-W48`, `Nov 2026`, `2026`.
    func longLabel(_ date: Date) -> String {
        switch period {
        case .week: return Formatting.isoWeek(date)
        case .month: return Self.months[Formatting.calendar.component(.month, from: date) - 1] + " "
            + String(Formatting.calendar.component(.year, from: date))
        case .year: return label(date)
        }
    }

    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
