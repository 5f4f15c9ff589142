import Foundation
import RouteLog

/// `routelog chart STORE --by week|month|year -o FILE.svg`: totals per period as bars.
enum ChartCommand: Command {
    static let spec = CommandSpec(
        name: "chart",
        summary: "an SVG bar chart of the distance, duration and number of routes per week, month or year",
        positionals: [PositionalSpec(name: "STORE")],
        options: [.value("by", "week|month|year", "the period of each bar (week by default; weeks start on Monday)"),
                  .value("output", "FILE.svg", "where to write the chart ('-' for stdout); required", short: "o"),
                  .value("last", "N", "how many periods, up to the newest route's (default: 52 weeks, 36 months or 60 years)"),
                  .units],
        discussion: """
        Periods without routes are drawn empty, so the time axis is even; it starts no
        earlier than the oldest route. Each chart has its own scale, which an outlier does
        not flatten: a period more than twice the next largest, among the largest tenth,
        is drawn cut, with a break and its value above it, and the others are scaled to
        the largest of the rest. Dates are local (the TZ environment variable).
        """,
        optionsSynopsis: "[--by week|month|year] -o FILE.svg [--last N] [--units km|mi]")

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let text = arguments.value("by") ?? "week"
        guard let period = PeriodTotals.Period(rawValue: text) else {
            throw CLIError.usage("bad period '\(text)' for --by", spec, todo: "use week, month or year")
        }
        guard let output = arguments.value("output"), !output.isEmpty else {
            throw CLIError.usage("missing -o FILE.svg", spec)
        }
        let count = try arguments.count("last") ?? period.defaultCount
        let units = try arguments.units()
        let store = try StoreAccess.openForReading(arguments)
        let totals = PeriodTotals(try store.summaries(), by: period, count: count)
        let svg = TotalsChartSVG(totals: totals, units: units).render()
        try PictureFile.write(svg, to: output, console: console)
        if output != "-" { console.print("wrote \(totals.periods.count) \(period.rawValue)s to \(output)") }
        return .success
    }
}

/// Where `render` and `chart` put a picture: a regular file replaced whole, or stdout
/// for `-o -`; a link, FIFO or device at the path is refused (``OutputFile``).
enum PictureFile {
    static func write(_ svg: String, to output: String, console: Console) throws {
        if output == "-" {
            console.writeOut(svg)
            return
        }
        try OutputFile.write(Data(svg.utf8), to: output, what: "the picture")
    }
}
