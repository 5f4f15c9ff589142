import Foundation
import RouteLog

/// `routelog import STORE FILE... [--create] [--keep-jumps] [--ignore-crc] [--allow-duplicates] [--json]`:
/// GPX, TCX and FIT files into a store, each read by what it holds.
enum ImportCommand: Command {
    static let spec = CommandSpec(
        name: "import",
        summary: "import GPX, TCX and FIT files (told apart by content): each file all or nothing",
        positionals: [PositionalSpec(name: "STORE"), PositionalSpec(name: "FILE", repeats: true)],
        options: [.flag("create", "create the store if it does not exist yet"),
                  .flag("keep-jumps", "count every step of the file, even time gaps and impossible jumps"),
                  .flag("ignore-crc", "FIT: import a file whose CRC does not match when every record still decodes"),
                  .flag("allow-duplicates", "import routes the store already holds again"),
                  .json],
        discussion: """
        The format is read from each file's first bytes, whatever its name: a FIT header,
        or XML whose root is <gpx> or <TrainingCenterDatabase>.
        GPX: each <trk> becomes one route (its segments joined, the joins kept); a file
        without tracks gives one route per <rte>; waypoints and unknown extensions are
        skipped and counted. A track without times is dated to the file's own time, else
        1970-01-01.
        FIT: one route per FIT file (a chain of them gives one each) from its positioned
        records: position, time, altitude, speed, heart rate, cadence, GPS accuracy; timer
        stops become segment breaks; power is dropped (no column), laps are counted, not
        stored; the session's sport is reported. A bad CRC refuses the file unless
        --ignore-crc; a truncated or corrupt file is refused with its byte offset.
        TCX: one route per Activity or Course: Time, Position, AltitudeMeters, HeartRateBpm,
        Cadence, and the TPX Speed (Watts dropped); Trackpoints without a Position are
        skipped and counted; the Activity's Sport is reported.
        A malformed file is reported with its line and column (XML) or byte offset (FIT)
        and nothing from it is saved; the other files are still imported (exit code 1
        when any file failed).
        A route the store already holds (the same positions and times at stored
        precision, whatever the file's format) is not imported again, and the report says
        which stored route it is; --allow-duplicates imports it all the same. Each file's
        line counts the routes and points imported, then those skipped apart ('1 route,
        413 points (ids 2); skipped 1 route already stored'); with --json, "routes" and
        "points" are what was imported and "skipped" the number of routes left out.
        A FILE that does not exist stops the command before anything is imported. FILE '-'
        reads standard input (once).
        Refused with exit code 3 while another process (an app) holds the store for writing.
        """)

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let input = try ImportInput(Array(arguments.positionals.dropFirst()), command: spec)
        defer { input.removeScratch() }
        var options = RouteImportOptions()
        options.breaksJumps = !arguments.has("keep-jumps")
        options.importsDespiteBadCRC = arguments.has("ignore-crc")
        options.allowsDuplicates = arguments.has("allow-duplicates")
        let store = try InterchangeStoreAccess.openForImport(arguments)
        let outcomes = RouteImporter.importFiles(input.files, into: store, options: options)
        try store.close()
        var failed = false
        var json: [JSON] = []
        var lines: [String] = []
        for outcome in outcomes {
            let name = input.name(of: outcome.file)
            let shown = TerminalText.quoted(name)
            switch outcome.result {
            case .success(let report):
                json.append(.object([
                    ("file", .string(name)), ("format", .string(report.format.rawValue)),
                    ("routes", .array(report.routeIDs.map { .integer($0.rawValue) })),
                    ("points", .integer(report.savedPointCount)),
                    ("skipped", .integer(report.duplicates.count)),
                    ("sports", .array(report.sports.map { $0.map(JSON.string) ?? .null })),
                    ("duplicates", .array(report.duplicates.map { duplicate in
                        .object([("route", .integer(duplicate.routeNumber)), ("existing", .integer(duplicate.existingID?.rawValue)),
                                 ("repeats", .integer(duplicate.earlierRouteNumber))])
                    })),
                    ("notes", .array(report.notes.map { .string($0) })),
                ]))
                lines.append("\(shown): " + summary(report))
                lines += report.notes.map { "  " + $0 }
            case .failure(let error):
                failed = true
                json.append(.object([("file", .string(name)), ("error", .string(error.message))]))
                var line = CLIError(error)
                if line.path == outcome.file.path { line.path = name }
                console.report(line)
            }
        }
        if arguments.has("json") {
            console.print(JSON.object([("files", .array(json))]).rendered())
        } else {
            console.print(lines: lines)
        }
        return failed ? .failure : .success
    }

    /// What a file gave: the routes and points saved (with their ids), then the routes
    /// left out as duplicates, counted apart: "1 route, 413 points (ids 2); skipped 2
    /// routes already stored".
    static func summary(_ report: RouteImportReport) -> String {
        let ids = shownIDs(report.routeIDs)
        var text = Formatting.count(report.routeIDs.count, "route") + ", " + Formatting.count(report.savedPointCount, "point")
            + (ids.isEmpty ? "" : " (ids \(ids))")
        let stored = report.duplicates.filter { $0.existingID != nil }.count
        let repeated = report.duplicates.count - stored
        let skipped = [stored > 0 ? Formatting.count(stored, "route") + " already stored" : nil,
                       repeated > 0 ? Formatting.count(repeated, "route") + " repeated in the file" : nil].compactMap { $0 }
        if !skipped.isEmpty { text += "; skipped " + skipped.joined(separator: " and ") }
        return text
    }

    /// Ids listed in full in a file's line; past them only the first and last few are
    /// (a file of a million routes would print megabytes of ids). `--json` lists all.
    static let idsListedInFull = 10

    /// "2, 3, 4", or for many ids "2, 3, 4 ... 999, 1000".
    static func shownIDs(_ ids: [RouteID]) -> String {
        let text = { (some: ArraySlice<RouteID>) in some.map(String.init).joined(separator: ", ") }
        guard ids.count > idsListedInFull else { return text(ids[...]) }
        return text(ids.prefix(3)) + " ... " + text(ids.suffix(2))
    }
}

/// How the interchange commands open a store for writing: like every writer
/// (``StoreAccess/openForWriting(_:)``), and with `--create` also a new one.
enum InterchangeStoreAccess {
    static func openForImport(_ arguments: ParsedArguments) throws -> RouteStore {
        let mode: RouteStore.OpenMode = arguments.has("create") ? .createIfMissing : .mustExist
        do {
            return try RouteStore(at: arguments.storeURL, options: .init(mode: mode, durability: .full, compaction: .manual))
        } catch let error as RouteLogError where error.code == .notFound && mode == .mustExist {
            throw CLIError.failure("there is no RouteLog store here", path: arguments.storeURL.path,
                                   todo: "check the path, or add --create to make a new store there")
        }
    }
}
