import Foundation
import RouteLog

/// `routelog dump STORE ID [--format csv|json|gpx|geojson]`: every point of a route.
enum DumpCommand: Command {
    static let formats = ["csv", "json", "gpx", "geojson"]

    static let spec = CommandSpec(
        name: "dump",
        summary: "every point of a route, as CSV, JSON, GPX or GeoJSON",
        positionals: [PositionalSpec(name: "STORE"), PositionalSpec(name: "ID")],
        options: [.value("format", "csv|json|gpx|geojson",
                         "csv (the default): a header and one line a point; json: the summary and the points; "
                             + "gpx: GPX 1.1; geojson: an RFC 7946 Feature"),
                  .flag("json", "the same as --format json")] + ExportPrivacy.options,
        discussion: """
        Values are exactly as stored: 1e-7 degree, 1 ms, 1 cm. A missing value is an empty CSV field or null.
        GPX validates against the GPX 1.1 schema and imports back to the same points.
        With --privacy-zone, the points inside a zone at the start and at the end are left
        out, and the figures are computed from the points left (calories withheld); a
        route wholly inside the zones is refused. The store is not changed.
        """)

    /// The `--format` (or `--json`) value, checked.
    static func format(_ arguments: ParsedArguments, _ spec: CommandSpec, default fallback: String) throws -> String {
        let format = arguments.has("json") ? "json" : arguments.value("format") ?? fallback
        guard formats.contains(format) else {
            throw CLIError.usage("bad format '\(format)' for --format", spec, todo: "use csv, json, gpx or geojson")
        }
        return format
    }

    /// A route in one of ``formats``, as `dump` prints it and `export` writes it.
    /// - Throws: ``RouteLogError`` from the library's exporter.
    static func render(_ exported: ExportedRoute, format: String) throws -> String {
        switch format {
        case "gpx": return String(decoding: try exported.data(.gpx), as: UTF8.self)
        case "geojson": return String(decoding: try exported.data(.geojson), as: UTF8.self)
        case "json":
            let route = exported.route
            let segments = segmentNumbers(route)
            return JSON.object([
                ("route", JSONFields.summary(exported.summary, calories: exported.removedPoints > 0 ? nil : exported.summary.calories)),
                ("points", .array(route.points.indices.map { JSONFields.point(route.points[$0], segment: segments[$0]) })),
            ]).rendered() + "\n"
        default:
            return csvLines(exported.route).joined(separator: "\n") + "\n"
        }
    }

    static let columns = ["timestamp", "latitude", "longitude", "altitude", "horizontalAccuracy", "verticalAccuracy",
                          "speed", "course", "heartRate", "cadence", "segment"]

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let id = try arguments.routeIDs(from: 1)[0]
        let format = try Self.format(arguments, spec, default: "csv")
        let given = try arguments.privacyZones()
        let store = try StoreAccess.openForReading(arguments)
        let exported = try ExportedRoute.load(id, in: store, zones: ExportPrivacy.zones(given: given, store: store, arguments))
        console.writeOut(try render(exported, format: format))
        return .success
    }

    /// The CSV: a header, then one line a point.
    static func csvLines(_ route: Route) -> [String] {
        let segments = segmentNumbers(route)
        var lines = [columns.joined(separator: ",")]
        lines.reserveCapacity(route.points.count + 1)
        for (i, p) in route.points.enumerated() {
            let values: [Double?] = [p.latitude, p.longitude, p.altitude, p.horizontalAccuracy, p.verticalAccuracy,
                                     p.speed, p.course, p.heartRate, p.cadence]
            lines.append(([Formatting.timestamp(p.timestamp)] + values.map { $0.map { JSON.number($0).rendered() } ?? "" }
                          + ["\(segments[i])"]).joined(separator: ","))
        }
        return lines
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
