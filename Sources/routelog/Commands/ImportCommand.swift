import Foundation
import RouteLog

/// `routelog import STORE FILE... [--create] [--keep-jumps] [--json]`: GPX files into a store.
enum ImportCommand: Command {
    static let spec = CommandSpec(
        name: "import",
        summary: "import GPX 1.0/1.1 files: one route per track, each file all or nothing",
        positionals: [PositionalSpec(name: "STORE"), PositionalSpec(name: "FILE", repeats: true)],
        options: [.flag("create", "create the store if it does not exist yet"),
                  .flag("keep-jumps", "count every step of the file, even time gaps and impossible jumps"),
                  .json],
        discussion: """
        Each <trk> becomes one route (its segments joined, the joins kept); a file without
        tracks gives one route per <rte>; waypoints and unknown extensions are skipped and
        counted. A track without times is dated to the file's own time, else 1970-01-01.
        A malformed file is reported with its line and column and nothing from it is saved;
        the other files are still imported (exit code 1 when any file failed).
        Refused with exit code 3 while another process (an app) holds the store for writing.
        """)

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let files = arguments.positionals.dropFirst().map { URL(fileURLWithPath: $0) }
        var options = GPXImportOptions()
        options.breaksJumps = !arguments.has("keep-jumps")
        let store = try InterchangeStoreAccess.openForImport(arguments)
        let outcomes = GPXImporter.importFiles(files, into: store, options: options)
        try store.close()
        var failed = false
        var json: [JSON] = []
        var lines: [String] = []
        for outcome in outcomes {
            let name = outcome.file.path
            switch outcome.result {
            case .success(let report):
                json.append(.object([
                    ("file", .string(name)), ("routes", .array(report.routeIDs.map { .integer($0.rawValue) })),
                    ("points", .integer(report.pointCount)), ("notes", .array(report.notes.map { .string($0) })),
                ]))
                let ids = report.routeIDs.map(String.init).joined(separator: ", ")
                lines.append("\(name): \(report.routeCount) route\(report.routeCount == 1 ? "" : "s"), "
                    + "\(report.pointCount) point\(report.pointCount == 1 ? "" : "s")" + (ids.isEmpty ? "" : " (ids \(ids))"))
                lines += report.notes.map { "  " + $0 }
            case .failure(let error):
                failed = true
                json.append(.object([("file", .string(name)), ("error", .string(error.message))]))
                console.report(CLIError(error))
            }
        }
        if arguments.has("json") {
            console.print(JSON.object([("files", .array(json))]).rendered())
        } else {
            console.print(lines: lines)
        }
        return failed ? .failure : .success
    }
}

/// How the interchange commands open a store for writing: like every writer
/// (``StoreAccess/openForWriting(_:)``), and with `--create` also a new one.
enum InterchangeStoreAccess {
    static func openForImport(_ arguments: ParsedArguments) throws -> RouteStore {
        let exists = FileManager.default.fileExists(atPath: arguments.storeURL.path)
        if arguments.has("create") && !exists {
            return try RouteStore(at: arguments.storeURL, options: .init(durability: .full, compaction: .manual))
        }
        return try StoreAccess.openForWriting(arguments)
    }
}
