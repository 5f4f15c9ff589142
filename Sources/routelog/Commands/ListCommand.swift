import Foundation
import RouteLog

/// `routelog ls STORE [--from DATE] [--to DATE] [--sort KEY] [--reverse] [--limit N]
/// [--follow] [--json]`: route summaries from the index; no coordinates are read.
enum ListCommand: Command {
    static let spec = CommandSpec(
        name: "ls",
        summary: "route summaries, from the index",
        positionals: [PositionalSpec(name: "STORE")],
        options: [
            .value("from", "DATE", "only routes that start at or after DATE"),
            .value("to", "DATE", "only routes that start before DATE; a DATE without a time includes that whole day"),
            .value("sort", "date|distance|duration|name", "the order: by start date (the default), distance, duration or name"),
            .flag("reverse", "the other way round: newest, longest or Z first"),
            .value("limit", "N", "only the first N routes of that order"),
            .flag("follow", "after the listing, print a line for each change as the store's writer makes it, until interrupted"),
            .units, .json,
        ],
        discussion: """
        Oldest first unless told otherwise; distance and duration sort shortest first, name
        from A to Z (routes without a name last); ties go by start date. --reverse turns
        the order round, then --limit keeps its first N: '--sort distance --reverse
        --limit 5' lists the five longest. The totals line adds up the routes listed.
        Dates are local (the TZ environment variable's zone). Opens the store read-only.
        --follow keeps running after the listing and prints one line per change an app
        (or another routelog) commits: 'saved 12: ...', 'edited', 'deleted',
        'recording-started', 'recording-flushed', 'recording-finished',
        'recording-discarded' or 'compacted', for every route whatever the other options;
        with --json the output is JSON Lines: the listing's object on the first line,
        then one object per change ({"change": "saved", "id": 12, "route": {...}}).
        Ctrl-C (SIGINT) or SIGTERM ends it with exit code 0; the store's directory
        deleted or moved away ends it with exit code 1.
        """)

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let from = try arguments.date("from")?.date
        let to = try arguments.date("to").map { argument in
            argument.isDay ? Formatting.calendar.date(byAdding: .day, value: 1, to: argument.date)! : argument.date
        }
        if let from, let to, from >= to {
            throw CLIError.usage("--from \(arguments.value("from")!) is not before --to \(arguments.value("to")!)", spec)
        }
        let units = try arguments.units()
        let order = try sortOrder(arguments)
        let limit = try arguments.count("limit")
        let store = try StoreAccess.openForReading(arguments)
        var summaries = try store.summaries(from: from, to: to)
        summaries = sorted(summaries, by: order, reverse: arguments.has("reverse"))
        if let limit { summaries = Array(summaries.prefix(limit)) }
        var totals = RouteTotals()
        for summary in summaries { totals.add(summary) }
        if arguments.has("json") {
            let listing = JSON.object([("routes", .array(summaries.map(JSONFields.summary))), ("totals", JSONFields.totals(totals))])
            // With --follow the output is JSON Lines: the listing is its first line.
            console.print(arguments.has("follow") ? listing.renderedOnOneLine() : listing.rendered())
        } else if summaries.isEmpty {
            console.print("no routes" + (from != nil || to != nil ? " in that range" : ""))
        } else {
            console.print(lines: table(summaries, units).lines() + ["", totalsLine(totals, units)])
        }
        guard arguments.has("follow") else { return .success }
        return try follow(store, json: arguments.has("json"), units: units, console: console)
    }

    enum SortKey: String, CaseIterable { case date, distance, duration, name }

    static func sortOrder(_ arguments: ParsedArguments) throws -> SortKey {
        let text = arguments.value("sort") ?? "date"
        guard let key = SortKey(rawValue: text) else {
            throw CLIError.usage("bad sort key '\(text)' for --sort", spec, todo: "use date, distance, duration or name")
        }
        return key
    }

    /// `summaries` (oldest first, as the index gives them) in the order asked; ties keep
    /// the start-date order, the other way round too with `reverse`.
    static func sorted(_ summaries: [RouteSummary], by key: SortKey, reverse: Bool) -> [RouteSummary] {
        func before(_ a: RouteSummary, _ b: RouteSummary) -> Bool? {
            switch key {
            case .date: return nil
            case .distance: return a.distance == b.distance ? nil : a.distance < b.distance
            case .duration: return a.duration == b.duration ? nil : a.duration < b.duration
            case .name:
                switch (a.name, b.name) {
                case (nil, nil): return nil
                case (nil, _): return false
                case (_, nil): return true
                case let (x?, y?):
                    let order = x.localizedCaseInsensitiveCompare(y)
                    return order == .orderedSame ? nil : order == .orderedAscending
                }
            }
        }
        let ordered = summaries.sorted { a, b in
            before(a, b) ?? ((a.startDate, a.id) < (b.startDate, b.id))
        }
        return reverse ? ordered.reversed() : ordered
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
        "\(Formatting.count(totals.routeCount, "route")), \(Formatting.distance(totals.distance, units)), "
            + "\(Formatting.duration(totals.duration)), \(Formatting.calories(totals.calories)) kcal"
    }
}
