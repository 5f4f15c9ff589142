import Foundation
import RouteLog

/// `routelog export STORE DIR [--format gpx|geojson|csv|json|parquet]`: every route, one
/// file each, or the whole store as two Parquet tables (ExportCommand+Parquet.swift).
enum ExportCommand: Command {
    static let spec = CommandSpec(
        name: "export",
        summary: "write every route into a directory, one file each (GPX by default)",
        positionals: [PositionalSpec(name: "STORE"), PositionalSpec(name: "DIR")],
        options: [.value("format", "gpx|geojson|csv|json|parquet",
                         "gpx (the default), geojson, dump's csv and json, or parquet (two GeoParquet tables)"),
                  .flag("json", "print what was written as JSON")] + ExportPrivacy.options + ParquetExportFlags.options,
        discussion: """
        Files are named route-ID.EXT from the route's id alone, so nothing read from a
        route can place a file outside DIR; DIR is created if missing, and existing files
        of the same name are replaced. Works while an app writes the store.
        With --privacy-zone, each route's points inside a zone at its start and at its end
        are left out (as in dump); a route wholly inside the zones is skipped and named.
        A route that cannot be read (damaged, or in a segment this user may not open) is
        left out and named on stderr with the file and offset of the damage; every other
        route is exported, and the command exits 1.
        \(ParquetExportFlags.discussion)
        """)

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let format = arguments.value("format") ?? "gpx"
        if format == "parquet" { return try ParquetExportFlags.run(arguments, spec: spec, console: console) }
        try ParquetExportFlags.refuseWithoutParquet(arguments, spec: spec)
        guard let exportFormat = RouteExportFormat(rawValue: format) else {
            throw CLIError.usage("bad format '\(format)' for --format", spec, todo: "use gpx, geojson, csv, json or parquet")
        }
        let directory = URL(fileURLWithPath: arguments.positionals[1], isDirectory: true)
        let given = try arguments.privacyZones()
        let store = try StoreAccess.openForReading(arguments)
        let zones = try ExportPrivacy.zones(given: given, store: store, arguments)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw CLIError.failure("DIR is a file, not a directory", path: directory.path, todo: "give a directory to write into")
            }
        } else {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw CLIError.failure("cannot create the directory", path: directory.path, todo: "check the path and the permissions")
            }
        }
        var written: [String] = []
        var skipped: [RouteID] = []
        var unreadable: [UnreadableRoute] = []
        var vanished: [RouteID] = []
        for summary in try store.summaries() {
            let read: Route?
            do {
                read = try ExportUnreadable.route(summary.id, of: store, noting: &unreadable)
            } catch let error as RouteLogError where error.code == .notFound {
                vanished.append(summary.id)  // deleted since the listing: an app writes the store
                continue
            }
            guard let route = read else { continue }
            guard let exported = ExportedRoute(route, summary: summary, zones: zones) else {
                skipped.append(summary.id)
                continue
            }
            let text = try DumpCommand.render(exported, format: format)
            let file = directory.appendingPathComponent(RouteExporter.fileName(for: summary.id, format: exportFormat))
            // A link, FIFO or device of that name is refused, never followed or replaced.
            do {
                try OutputFile.write(Data(text.utf8), to: file.path, what: "the file")
            } catch var error as CLIError {
                // Stopped here: name the routes already found unreadable, and what was written.
                _ = ExportUnreadable.finish(unreadable, console: console)
                error.what += "; \(written.count) file(s) were written into the directory before it"
                throw error
            }
            written.append(file.path)
        }
        if arguments.has("json") {
            console.print(JSON.object([("files", .array(written.map { .string($0) })),
                                       ("skippedRoutes", .array(skipped.map { .integer($0.rawValue) })),
                                       ("unreadableRoutes", ExportUnreadable.json(unreadable)),
                                       ("vanishedRoutes", .array(vanished.map { .integer($0.rawValue) }))]).rendered())
        } else {
            var lines = ["wrote \(written.count) \(format) file\(written.count == 1 ? "" : "s") into \(TerminalText.quoted(directory.path))"]
            if !vanished.isEmpty {
                lines.append("left out \(vanished.count) route(s) deleted while exporting: "
                             + vanished.map(\.description).joined(separator: ", "))
            }
            if !skipped.isEmpty {
                lines.append("skipped \(skipped.count) route\(skipped.count == 1 ? "" : "s") lying wholly inside the privacy zones: "
                             + skipped.map(\.description).joined(separator: ", "))
            }
            console.print(lines: lines)
        }
        return ExportUnreadable.finish(unreadable, console: console)
    }
}
