import Foundation
import RouteLog

/// `routelog show STORE ID [--json]`: one route's metadata and its splits.
enum ShowCommand: Command {
    static let spec = CommandSpec(
        name: "show",
        summary: "one route's metadata and its splits",
        positionals: [PositionalSpec(name: "STORE"), PositionalSpec(name: "ID")],
        options: [.units, .json],
        discussion: "Splits are shown for the unit of --units; --json gives both kilometre and mile splits.")

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let id = try arguments.routeIDs(from: 1)[0]
        let units = try arguments.units()
        let store = try StoreAccess.openForReading(arguments)
        let summary = try store.summary(id)
        let route = try store.route(id)
        let splits = numberedSplits(route.splits)
        if arguments.has("json") {
            console.print(JSON.object([
                ("route", JSONFields.summary(summary)),
                ("segmentStarts", .array(route.segmentStarts.map { .integer($0) })),
                ("splits", .array(splits.map { JSONFields.split($0.split, number: $0.number, splitSeconds: $0.seconds) })),
            ]).rendered())
            return .success
        }
        var lines = describe(summary, units)
        if route.segmentStarts.count > 0 { lines.append(label("pauses") + "\(route.segmentStarts.count)") }
        let chosen = splits.filter { $0.split.unit == units.split }
        lines.append("")
        if chosen.isEmpty {
            lines.append("no \(units == .kilometres ? "kilometre" : "mile") splits")
        } else {
            var table = Table([(units.symbol.uppercased(), .right), ("TIME", .right), ("SPLIT", .right), ("POINT", .right)])
            for split in chosen {
                table.add(["\(split.number)", Formatting.duration(split.split.elapsedTime),
                           Formatting.duration(split.seconds), "\(split.split.pointIndex)"])
            }
            lines += table.lines()
        }
        console.print(lines: lines)
        return .success
    }

    /// The labelled lines describing a summary, as `show` and `set` print them.
    static func describe(_ s: RouteSummary, _ units: DistanceUnit) -> [String] {
        [
            label("route") + "\(s.id)" + (s.name.map { "  " + TerminalText.quoted($0) } ?? ""),
            label("start") + Formatting.dateTime(s.startDate),
            label("end") + Formatting.dateTime(s.endDate),
            label("duration") + Formatting.duration(s.duration),
            label("distance") + Formatting.distance(s.distance, units),
        ] + effort(s, units) + [
            label("calories") + Formatting.calories(s.calories) + " kcal",
            label("points") + "\(s.pointCount)",
            label("start at") + Formatting.coordinate(s.startCoordinate),
            label("end at") + Formatting.coordinate(s.endCoordinate),
            label("bounds") + Formatting.coordinate(s.boundingBox.southWest) + "  to  " + Formatting.coordinate(s.boundingBox.northEast),
        ]
    }

    /// Moving time, pace or speed (speed first for rides), and the stats the route has.
    static func effort(_ s: RouteSummary, _ units: DistanceUnit) -> [String] {
        var lines: [String] = []
        if let stats = s.stats { lines.append(label("moving") + Formatting.duration(stats.movingTime)) }
        let seconds = s.stats.map(\.movingTime).flatMap { $0 > 0 ? $0 : nil } ?? s.duration
        let speed = Formatting.speed(seconds > 0 ? s.distance / seconds : 0, units)
        let pace = Formatting.pace(seconds: seconds, metres: s.distance, units)
        lines.append(s.activity?.showsSpeed == true ? label("speed") + speed + "  (" + pace + ")"
                                                    : label("pace") + pace + "  (" + speed + ")")
        guard let stats = s.stats else { return lines + [label("stats") + "unknown (saved before stats were kept)"] }
        lines.append(label("max speed") + Formatting.speed(stats.maxSpeed, units))
        if let gain = stats.elevationGain, let loss = stats.elevationLoss {
            lines.append(label("climb") + String(format: "+%.0f m  -%.0f m", gain, loss))
        }
        if let mean = stats.averageHeartRate, let max = stats.maxHeartRate {
            lines.append(label("heart") + String(format: "%.0f bpm average, %.0f max", mean, max))
        }
        if let mean = stats.averageCadence, let max = stats.maxCadence {
            lines.append(label("cadence") + String(format: "%.0f /min average, %.0f max", mean, max))
        }
        return lines
    }

    static func label(_ text: String) -> String { text.padding(toLength: 10, withPad: " ", startingAt: 0) }

    struct NumberedSplit {
        var split: Split
        /// 1, 2, 3... within its unit.
        var number: Int
        /// Time since the previous split of the same unit (or the start).
        var seconds: TimeInterval
    }

    /// Kilometre splits, then mile splits, each in order and numbered.
    static func numberedSplits(_ splits: [Split]) -> [NumberedSplit] {
        Split.Unit.allCases.flatMap { unit -> [NumberedSplit] in
            let ordered = splits.filter { $0.unit == unit }.sorted { ($0.pointIndex, $0.elapsedTime) < ($1.pointIndex, $1.elapsedTime) }
            return ordered.enumerated().map { i, split in
                NumberedSplit(split: split, number: i + 1, seconds: split.elapsedTime - (i > 0 ? ordered[i - 1].elapsedTime : 0))
            }
        }
    }
}
