import Foundation
import RouteLog

/// The length unit distances are shown in (`--units km|mi`).
enum DistanceUnit: String, Sendable {
    case kilometres = "km"
    case miles = "mi"

    var metres: Double { self == .kilometres ? 1000 : 1609.344 }
    var symbol: String { rawValue }
    /// The split unit the library counts for this length.
    var split: Split.Unit { self == .kilometres ? .kilometre : .mile }
}

/// How human output shows values: local dates, `h:mm:ss` durations, distances and
/// paces in the chosen unit. JSON output uses ``JSONFields`` instead.
enum Formatting {
    /// `1 point`, `413 points`: a count and its noun, singular for exactly one.
    static func count(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    /// `4.51 km`
    static func distance(_ metres: Double, _ unit: DistanceUnit) -> String {
        String(format: "%.2f", metres / unit.metres) + " " + unit.symbol
    }

    /// `248`, `-3`: a value rounded to a whole number, however large. A store's figures
    /// are checked as they are read, but not all against what a writer could have made (a
    /// forged route's calories or climb can be 1e300), and `Int(_:)` of those would stop
    /// the command.
    static func whole(_ value: Double) -> String {
        let rounded = value.rounded()
        if let exact = Int(exactly: rounded) { return String(exact) }
        return rounded.isFinite ? String(format: "%.0f", rounded) : String(describing: rounded)
    }

    /// `1:02:03`, or `2:03` under an hour.
    static func duration(_ seconds: TimeInterval) -> String {
        // Past a million hours (or not a number) said as a count of seconds, not split.
        guard seconds.isFinite, seconds < 3.6e9 else { return whole(seconds) + " s" }
        let total = Int(max(0, seconds).rounded())
        let h = total / 3600, m = total / 60 % 60, s = total % 60
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }

    /// `13:18 /km`, or `-` when there is no distance to speak of.
    static func pace(seconds: TimeInterval, metres: Double, _ unit: DistanceUnit) -> String {
        guard metres >= 1, seconds > 0 else { return "-" }
        return duration(seconds / (metres / unit.metres)) + " /" + unit.symbol
    }

    /// `18.4 km/h`
    static func speed(_ metresPerSecond: Double, _ unit: DistanceUnit) -> String {
        String(format: "%.1f", metresPerSecond * 3600 / unit.metres) + " \(unit.symbol)/h"
    }

    /// Speed for kinds where it says more than pace (``ActivityKind/showsSpeed``: rides),
    /// else pace; both over the moving time when it is known, as sports apps show them.
    static func paceOrSpeed(_ s: RouteSummary, _ unit: DistanceUnit) -> String {
        let seconds = s.stats.map(\.movingTime).flatMap { $0 > 0 ? $0 : nil } ?? s.duration
        if s.activity?.showsSpeed == true {
            return seconds > 0 ? speed(s.distance / seconds, unit) : "-"
        }
        return pace(seconds: seconds, metres: s.distance, unit)
    }

    /// `248`
    static func calories(_ kcal: Double) -> String { whole(kcal) }

    /// `18.2 MiB`, `512 B`
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var index = 0
        while value >= 1024, index < units.count - 1 { value /= 1024; index += 1 }
        return index == 0 ? "\(count) B" : String(format: "%.1f", value) + " " + units[index]
    }

    /// `45.4642000, 9.1900000`: the stored precision, 1e-7 degree.
    static func coordinate(_ c: Coordinate) -> String {
        String(format: "%.7f, %.7f", c.latitude, c.longitude)
    }

    // MARK: Dates

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// The local calendar (the TZ environment variable's zone), Gregorian whatever the locale.
    static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        return calendar
    }

    /// `Mon 2026-01-05` in local time.
    static func day(_ date: Date) -> String {
        let c = calendar.dateComponents([.year, .month, .day, .weekday], from: date)
        return "\(weekdays[c.weekday! - 1]) " + String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    /// `2026-01-05` in local time.
    static func isoDay(_ date: Date) -> String {
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    /// `07:30` in local time.
    static func time(_ date: Date) -> String {
        let c = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", c.hour!, c.minute!)
    }

    /// `Mon 2026-01-05 07:30:15` in local time.
    static func dateTime(_ date: Date) -> String {
        let c = calendar.dateComponents([.second], from: date)
        return day(date) + " " + time(date) + String(format: ":%02d", c.second!)
    }

    /// `2026-W02`: the ISO 8601 week (weeks start on Monday; week 1 holds a Thursday).
    static func isoWeek(_ date: Date) -> String {
        var iso = Calendar(identifier: .iso8601)
        iso.timeZone = TimeZone.current
        let c = iso.dateComponents([.yearForWeekOfYear, .weekOfYear], from: date)
        return String(format: "%04d-W%02d", c.yearForWeekOfYear!, c.weekOfYear!)
    }

    /// `2026-01-05T07:30:00.000Z`: the JSON form of a date, in UTC to the millisecond.
    static func timestamp(_ date: Date) -> String {
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(secondsFromGMT: 0)!
        let whole = Date(timeIntervalSince1970: (ms / 1000).rounded(.down))
        let c = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: whole)
        let millis = Int(ms - (ms / 1000).rounded(.down) * 1000)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!, millis)
    }
}
