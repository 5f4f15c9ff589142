import Foundation
import RouteLog

/// `routelog weeks STORE [--json]`: the home screen's weekly totals.
enum WeeksCommand: Command {
    static let spec = CommandSpec(
        name: "weeks",
        summary: "weekly totals, weeks starting Monday",
        positionals: [PositionalSpec(name: "STORE")],
        options: [.units, .json],
        discussion: "Newest week first; weeks without routes are left out. Weeks start at local midnight on Monday.")

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let units = try arguments.units()
        let store = try StoreAccess.openForReading(arguments)
        let weeks = try store.weeklyTotals(calendar: Formatting.calendar)
        let totals = try store.totals()
        if arguments.has("json") {
            console.print(JSON.object([("weeks", .array(weeks.map(JSONFields.week))), ("totals", JSONFields.totals(totals))]).rendered())
            return .success
        }
        guard !weeks.isEmpty else {
            console.print("no routes")
            return .success
        }
        let longest = weeks.map(\.totals.distance).max() ?? 0
        var table = Table([("WEEK", .left), ("MONDAY", .left), ("ROUTES", .right), ("DISTANCE", .right),
                           ("DURATION", .right), ("KCAL", .right), ("", .left)])
        for week in weeks {
            let t = week.totals
            table.add([Formatting.isoWeek(week.weekStart), Formatting.isoDay(week.weekStart), "\(t.routeCount)",
                       Formatting.distance(t.distance, units), Formatting.duration(t.duration),
                       Formatting.calories(t.calories), bar(t.distance, of: longest)])
        }
        console.print(lines: table.lines() + ["", ListCommand.totalsLine(totals, units)])
        return .success
    }

    /// A bar of up to 20 cells, in eighths, for a glance at the weeks.
    static func bar(_ value: Double, of maximum: Double) -> String {
        guard maximum > 0 else { return "" }
        let eighths = Int((value / maximum * 160).rounded())
        let partial = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"][eighths % 8]
        return String(repeating: "█", count: eighths / 8) + partial
    }
}
