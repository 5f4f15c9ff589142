import Foundation
import RouteLog

/// `routelog set STORE ID [--start DATE | --shift DURATION] [--name TEXT]
/// [--calories KCAL] [--distance METRES]`: edits a route's metadata (the points are
/// not rewritten; a move in time moves every point).
enum SetCommand: Command {
    static let spec = CommandSpec(
        name: "set",
        summary: "edit a route's metadata: move it in time, rename it, change its calories or distance",
        positionals: [PositionalSpec(name: "STORE"), PositionalSpec(name: "ID")],
        options: [
            .value("start", "DATE", "move the route to start at DATE (every point moves with it)"),
            .value("shift", "DURATION", "move the route by DURATION, like 7d or -3h"),
            .value("name", "TEXT", "rename the route; an empty TEXT removes the name"),
            .value("calories", "KCAL", "set the calories, in kilocalories"),
            .value("distance", "METRES", "set the distance, in metres (overrides the one computed from the points)"),
            .units, .json,
        ],
        discussion: "Refused with exit code 3 while another process (an app) holds the store for writing.",
        optionsSynopsis: "[--start DATE | --shift DURATION] [--name TEXT] [--calories KCAL] [--distance METRES] [--units km|mi] [--json]")

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let id = try arguments.routeIDs(from: 1)[0]
        let edit = RouteEdit(startDate: try arguments.date("start")?.date, shift: try arguments.duration("shift"),
                             name: arguments.value("name"), calories: try arguments.nonNegative("calories"),
                             distance: try arguments.nonNegative("distance"))
        if edit.startDate != nil && edit.shift != nil {
            throw CLIError.usage("--start and --shift both move the route", spec, todo: "give one of them")
        }
        if edit == RouteEdit() {
            throw CLIError.usage("nothing to change", spec, todo: "give --start, --shift, --name, --calories or --distance")
        }
        let units = try arguments.units()
        let store = try StoreAccess.openForWriting(arguments)
        let before = try store.summary(id)
        let after = try store.edit(id, edit)
        try store.close()
        if arguments.has("json") {
            console.print(JSON.object([("route", JSONFields.summary(after))]).rendered())
            return .success
        }
        var table = Table([("", .left), ("BEFORE", .left), ("AFTER", .left)])
        let fields: [(String, (RouteSummary) -> String)] = [
            ("start", { Formatting.dateTime($0.startDate) }),
            ("name", { $0.name ?? "-" }),
            ("calories", { Formatting.calories($0.calories) + " kcal" }),
            ("distance", { Formatting.distance($0.distance, units) }),
        ]
        for (label, value) in fields where value(before) != value(after) || label == "start" {
            table.add([label, value(before), value(after)])
        }
        console.print(lines: ["updated route \(id)"] + table.lines())
        return .success
    }
}
