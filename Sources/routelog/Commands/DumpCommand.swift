import Foundation
import RouteLog

/// `routelog dump STORE ID [--format json|csv]`: every point of a route.
enum DumpCommand: Command {
    static let spec = CommandSpec(
        name: "dump",
        summary: "every point of a route, as CSV or JSON",
        positionals: [PositionalSpec(name: "STORE"), PositionalSpec(name: "ID")],
        options: [.value("format", "json|csv", "csv (the default): a header and one line a point; json: the summary and the points"),
                  .flag("json", "the same as --format json")],
        discussion: "Values are exactly as stored: 1e-7 degree, 1 ms, 1 cm. A missing value is an empty CSV field or null.")

    static let columns = ["timestamp", "latitude", "longitude", "altitude", "horizontalAccuracy", "verticalAccuracy",
                          "speed", "course", "heartRate", "cadence", "segment"]

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let id = try arguments.routeIDs(from: 1)[0]
        let format = arguments.has("json") ? "json" : arguments.value("format") ?? "csv"
        guard format == "csv" || format == "json" else {
            throw CLIError.usage("bad format '\(format)' for --format", spec, todo: "use csv or json (GPX and GeoJSON come later)")
        }
        let store = try StoreAccess.openForReading(arguments)
        let summary = try store.summary(id)
        let route = try store.route(id)
        let segments = segmentNumbers(route)
        if format == "json" {
            console.print(JSON.object([
                ("route", JSONFields.summary(summary)),
                ("points", .array(route.points.indices.map { JSONFields.point(route.points[$0], segment: segments[$0]) })),
            ]).rendered())
            return .success
        }
        var lines = [columns.joined(separator: ",")]
        lines.reserveCapacity(route.points.count + 1)
        for (i, p) in route.points.enumerated() {
            let values: [Double?] = [p.latitude, p.longitude, p.altitude, p.horizontalAccuracy, p.verticalAccuracy,
                                     p.speed, p.course, p.heartRate, p.cadence]
            lines.append(([Formatting.timestamp(p.timestamp)] + values.map { $0.map { JSON.number($0).rendered() } ?? "" }
                          + ["\(segments[i])"]).joined(separator: ","))
        }
        console.print(lines: lines)
        return .success
    }

    /// For each point, the number of the recording segment it belongs to (0 first).
    static func segmentNumbers(_ route: Route) -> [Int] {
        let starts = Set(route.segmentStarts)
        var segment = 0
        return route.points.indices.map { i in
            if i > 0 && starts.contains(i) { segment += 1 }
            return segment
        }
    }
}
