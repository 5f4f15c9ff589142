import Foundation
import RouteLog

/// `routelog weeks STORE [--json]`: the home screen's weekly totals.
enum WeeksCommand: Command {
    static let spec = CommandSpec(
        name: "weeks",
        summary: "weekly totals, weeks starting Monday",
        positionals: [PositionalSpec(name: "STORE")],
        options: [.value("limit", "N", "show only the newest N weeks (the totals still count every route)"), .units, .json],
        discussion: """
        Newest week first; weeks without routes are left out. Weeks start at local midnight on Monday.
        The bars share one scale that an outlier week does not flatten: a week more than
        twice the next longest, among the longest tenth, is drawn full and marked », and
        the others are scaled to the longest of the rest.
        """)

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let units = try arguments.units()
        let limit = try arguments.count("limit")
        let store = try StoreAccess.openForReading(arguments)
        var weeks = try store.weeklyTotals(calendar: Formatting.calendar)
        let scale = BarScale(weeks.map(\.totals.distance))
        if let limit { weeks = Array(weeks.prefix(limit)) }
        let totals = try store.totals()
        if arguments.has("json") {
            console.print(JSON.object([("weeks", .array(weeks.map(JSONFields.week))), ("totals", JSONFields.totals(totals))]).rendered())
            return .success
        }
        guard !weeks.isEmpty else {
            console.print("no routes")
            return .success
        }
        var table = Table([("WEEK", .left), ("MONDAY", .left), ("ROUTES", .right), ("DISTANCE", .right),
                           ("DURATION", .right), ("KCAL", .right), ("", .left)])
        for week in weeks {
            let t = week.totals
            table.add([Formatting.isoWeek(week.weekStart), Formatting.isoDay(week.weekStart), "\(t.routeCount)",
                       Formatting.distance(t.distance, units), Formatting.duration(t.duration),
                       Formatting.calories(t.calories), bar(t.distance, scale)])
        }
        console.print(lines: table.lines() + ["", ListCommand.totalsLine(totals, units)])
        return .success
    }

    /// A bar of up to 20 cells, in eighths, for a glance at the weeks; an outlier is
    /// drawn full and marked ».
    static func bar(_ value: Double, _ scale: BarScale) -> String {
        let eighths = Int((scale.fraction(value) * 160).rounded())
        let partial = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"][eighths % 8]
        return String(repeating: "█", count: eighths / 8) + partial + (scale.isCut(value) ? "»" : "")
    }
}
