import Foundation
import RouteLog

/// `routelog ls STORE [--from DATE] [--to DATE] [--json]`: route summaries from the
/// index; no coordinates are read.
enum ListCommand: Command {
    static let spec = CommandSpec(
        name: "ls",
        summary: "route summaries, from the index",
        positionals: [PositionalSpec(name: "STORE")],
        options: [
            .value("from", "DATE", "only routes that start at or after DATE"),
            .value("to", "DATE", "only routes that start before DATE; a DATE without a time includes that whole day"),
            .units, .json,
        ],
        discussion: "Oldest first. Dates are local (the TZ environment variable's zone). Opens the store read-only.")

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let from = try arguments.date("from")?.date
        let to = try arguments.date("to").map { argument in
            argument.isDay ? Formatting.calendar.date(byAdding: .day, value: 1, to: argument.date)! : argument.date
        }
        if let from, let to, from >= to {
            throw CLIError.usage("--from \(arguments.value("from")!) is not before --to \(arguments.value("to")!)", spec)
        }
        let units = try arguments.units()
        let store = try StoreAccess.openForReading(arguments)
        let summaries = try store.summaries(from: from, to: to)
        var totals = RouteTotals()
        for summary in summaries { totals.add(summary) }
        if arguments.has("json") {
            console.print(JSON.object([("routes", .array(summaries.map(JSONFields.summary))),
                                       ("totals", JSONFields.totals(totals))]).rendered())
            return .success
        }
        guard !summaries.isEmpty else {
            console.print("no routes" + (from != nil || to != nil ? " in that range" : ""))
            return .success
        }
        console.print(lines: table(summaries, units).lines() + ["", totalsLine(totals, units)])
        return .success
    }

    /// The route table `ls` prints, one row a route; `set` and `delete` reuse it.
    static func table(_ summaries: [RouteSummary], _ units: DistanceUnit) -> Table {
        var table = Table([("ID", .right), ("DATE", .left), ("START", .left), ("DURATION", .right), ("MOVING", .right),
                           ("DISTANCE", .right), ("PACE/SPEED", .right), ("KCAL", .right), ("POINTS", .right), ("NAME", .left)])
        for s in summaries {
            table.add(["\(s.id)", Formatting.day(s.startDate), Formatting.time(s.startDate), Formatting.duration(s.duration),
                       s.stats.map { Formatting.duration($0.movingTime) } ?? "-",
                       Formatting.distance(s.distance, units), Formatting.paceOrSpeed(s, units),
                       Formatting.calories(s.calories), "\(s.pointCount)", s.name ?? ""])
        }
        return table
    }

    static func totalsLine(_ totals: RouteTotals, _ units: DistanceUnit) -> String {
        "\(totals.routeCount) route\(totals.routeCount == 1 ? "" : "s"), \(Formatting.distance(totals.distance, units)), "
            + "\(Formatting.duration(totals.duration)), \(Formatting.calories(totals.calories)) kcal"
    }
}
