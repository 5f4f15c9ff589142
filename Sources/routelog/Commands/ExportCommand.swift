import Foundation
import RouteLog

/// `routelog export STORE DIR [--format gpx|geojson|csv|json]`: every route, one file each.
enum ExportCommand: Command {
    static let spec = CommandSpec(
        name: "export",
        summary: "write every route into a directory, one file each (GPX by default)",
        positionals: [PositionalSpec(name: "STORE"), PositionalSpec(name: "DIR")],
        options: [.value("format", "gpx|geojson|csv|json", "gpx (the default), geojson, or dump's csv and json"),
                  .flag("json", "print what was written as JSON")],
        discussion: """
        Files are named route-ID.EXT from the route's id alone, so nothing read from a
        route can place a file outside DIR; DIR is created if missing, and existing files
        of the same name are replaced. Works while an app writes the store.
        """)

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let format = arguments.value("format") ?? "gpx"
        guard let exportFormat = RouteExportFormat(rawValue: format) else {
            throw CLIError.usage("bad format '\(format)' for --format", spec, todo: "use gpx, geojson, csv or json")
        }
        let directory = URL(fileURLWithPath: arguments.positionals[1], isDirectory: true)
        let store = try StoreAccess.openForReading(arguments)
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
        for summary in try store.summaries() {
            let text = DumpCommand.render(try store.route(summary.id), summary, format: format)
            let file = directory.appendingPathComponent(RouteExporter.fileName(for: summary.id, format: exportFormat))
            do {
                try Data(text.utf8).write(to: file, options: .atomic)
            } catch {
                throw CLIError.failure("cannot write \(file.lastPathComponent)", path: directory.path,
                                       todo: "check the free space and the permissions; files already written stay")
            }
            written.append(file.path)
        }
        if arguments.has("json") {
            console.print(JSON.object([("files", .array(written.map { .string($0) }))]).rendered())
        } else {
            console.print("wrote \(written.count) \(format) file\(written.count == 1 ? "" : "s") into \(TerminalText.quoted(directory.path))")
        }
        return .success
    }
}
