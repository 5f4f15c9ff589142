import Foundation

/// Totals per local day of one time zone, kept up to date as routes are saved, edited
/// and deleted, so that ``RouteStore/totals()``, ``RouteStore/weeklyTotals(calendar:)``
/// and ``RouteStore/totals(by:calendar:matching:)`` cost a pass over the days that have
/// routes, not over the routes. Built by the index the first time totals are asked for
/// in a zone (a store nobody asks pays nothing), then maintained.
///
/// A day's sums are recomputed from its members when one leaves instead of subtracted,
/// so no rounding drift builds up however many routes come and go.
struct TotalsLedger: Sendable {
    /// One route's share of a day's totals.
    struct Member: Sendable {
        var id: RouteID
        var distance: Double
        var duration: Double
        var calories: Double
    }

    /// The routes that started on one local day, and their sums.
    struct Day: Sendable {
        var totals = RouteTotals()
        var members: [Member] = []

        /// The same sums as ``RouteTotals/add(_:)`` of the route's summary.
        mutating func add(_ member: Member) {
            members.append(member)
            totals.routeCount += 1
            totals.distance += member.distance
            totals.duration += member.duration
            totals.calories += member.calories
        }
    }

    let zone: TimeZone
    /// Local day number (days since 1970-01-01 in `zone`) → that day's routes.
    private(set) var days: [Int: Day] = [:]
    /// Day of each route, to find it again when it leaves.
    private var dayOf: [RouteID: Int] = [:]
    /// The periods of the calendars asked for, kept as days change (a few at most).
    private var groups: [StartKey: Periods] = [:]

    /// How days are grouped: ``WeeklyTotals`` keys a week by its first day, the periods
    /// of ``PeriodTotals`` by the day itself.
    enum Grouping: Hashable, Sendable { case weeklyTotals, period(TotalsPeriod) }

    private struct StartKey: Hashable, Sendable {
        var calendar: Calendar
        var grouping: Grouping
    }

    /// One calendar's periods: which period each day falls in (asking a calendar costs
    /// microseconds, and the answer for a day never changes), the days of each period
    /// in order, and each period's totals: the merge of its days' totals, in day order,
    /// remade whenever one of its days changes, so that it is what grouping the days
    /// afresh gives.
    private struct Periods: Sendable {
        var startOfDay: [Int: Date] = [:]
        var days: [Date: [Int]] = [:]
        var totals: [Date: RouteTotals] = [:]
    }

    init(zone: TimeZone) { self.zone = zone }

    /// The local day a route starting at `startMs` (ms since 1970) falls on.
    func day(startMs: Int64) -> Int {
        let date = Quantization.date(milliseconds: startMs)
        let local = date.timeIntervalSince1970 + Double(zone.secondsFromGMT(for: date))
        return Int((local / 86_400).rounded(.down))
    }

    /// Counts route `id` (not counted yet), from what its summary would say.
    mutating func add(_ id: RouteID, _ route: IndexedRoute) {
        add(id, route.shape, shiftMs: route.metadata.shiftMs, distance: route.metadata.distance, calories: route.metadata.calories)
    }

    /// Counts route `id` (not counted yet) from its shape and the metadata's values
    /// that totals use.
    mutating func add(_ id: RouteID, _ shape: RouteShape, shiftMs: Int64, distance: Double?, calories: Double?) {
        let day = day(startMs: shape.firstMs + shiftMs)
        let member = Member(id: id, distance: distance ?? shape.distance,
                            duration: Quantization.seconds(milliseconds: shape.durationMs),
                            calories: calories ?? 0)
        dayOf[id] = day
        days[day, default: Day()].add(member)
        dayChanged(day)
    }

    mutating func remove(_ id: RouteID) {
        guard let day = dayOf.removeValue(forKey: id), var bucket = days.removeValue(forKey: day) else { return }
        bucket.members.removeAll { $0.id == id }
        defer { dayChanged(day) }
        guard !bucket.members.isEmpty else { return }
        // Summed again in member order: the sums the day would have had without the route.
        var rebuilt = Day()
        for member in bucket.members { rebuilt.add(member) }
        days[day] = rebuilt
    }

    /// Every route's totals.
    var all: RouteTotals {
        var totals = RouteTotals()
        for day in days.keys.sorted() { totals.merge(days[day]!.totals) }
        return totals
    }

    /// The days' totals grouped by `grouping` with `calendar` (whose zone is this
    /// ledger's), newest period first, as (start, totals). The first call for a calendar
    /// groups every day; later ones find the periods kept.
    mutating func grouped(_ grouping: Grouping, calendar: Calendar) -> [(start: Date, totals: RouteTotals)] {
        let key = StartKey(calendar: calendar, grouping: grouping)
        if groups[key] == nil {
            if groups.count >= 4 { groups = [:] }  // each calendar kept costs every save a little
            var periods = Periods()
            for day in days.keys.sorted() { Self.place(day, in: &periods, key) }
            for start in periods.days.keys { periods.totals[start] = merged(periods.days[start]!) }
            groups[key] = periods
        }
        return groups[key]!.totals.map { ($0.key, $0.value) }.sorted { $0.start > $1.start }
    }

    /// Keeps every calendar's periods in step with day `day`, which just changed.
    private mutating func dayChanged(_ day: Int) {
        for key in groups.keys {
            var periods = groups.removeValue(forKey: key)!
            if days[day] != nil { Self.place(day, in: &periods, key) }
            if let start = periods.startOfDay[day], var members = periods.days[start] {
                if days[day] == nil { members.removeAll { $0 == day } }
                periods.days[start] = members.isEmpty ? nil : members
                periods.totals[start] = members.isEmpty ? nil : merged(members)
            }
            groups[key] = periods
        }
    }

    /// Adds `day` to its period's days (in order) unless it is there.
    private static func place(_ day: Int, in periods: inout Periods, _ key: StartKey) {
        let bucketDay = key.grouping == .weeklyTotals ? weekFirstDay(day, calendar: key.calendar) : day
        let start: Date
        if let known = periods.startOfDay[day] {
            start = known
        } else {
            start = Self.start(of: bucketDay, key.grouping, calendar: key.calendar)
            periods.startOfDay[day] = start
        }
        var members = periods.days[start] ?? []
        guard !members.contains(day) else { return }
        members.insert(day, at: members.firstIndex { $0 > day } ?? members.endIndex)
        periods.days[start] = members
    }

    /// The totals of `days` (ascending), merged in order.
    private func merged(_ days: [Int]) -> RouteTotals {
        var totals = RouteTotals()
        for day in days { totals.merge(self.days[day]!.totals) }
        return totals
    }

    /// The first day of the week holding `day`: 1970-01-01 was a Thursday (weekday 5,
    /// Sunday 1), so a Monday-first week puts it 3 days in, a Sunday-first one 4.
    static func weekFirstDay(_ day: Int, calendar: Calendar) -> Int {
        let thursdayOffset = ((5 - calendar.firstWeekday) % 7 + 7) % 7
        return day - (((day + thursdayOffset) % 7) + 7) % 7
    }

    /// The first instant of the period holding local `day`, asked of the calendar at
    /// noon local time on that day (inside it whatever the daylight saving).
    private static func start(of day: Int, _ grouping: Grouping, calendar: Calendar) -> Date {
        let zone = calendar.timeZone
        let noon = Date(timeIntervalSince1970: Double(day) * 86_400 + 43_200)
        let noonLocal = noon.addingTimeInterval(-Double(zone.secondsFromGMT(for: noon)))
        switch grouping {
        case .weeklyTotals:
            return calendar.startOfDay(for: noonLocal)
        case .period(let period):
            return calendar.dateInterval(of: period.component, for: noonLocal)?.start ?? calendar.startOfDay(for: noonLocal)
        }
    }
}
