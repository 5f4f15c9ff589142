import Foundation
import RouteLog

/// `routelog migrate STORE ARCHIVE [--create] [--json]`: the old app's keyed archive into a store.
enum MigrateCommand: Command {
    static let spec = CommandSpec(
        name: "migrate",
        summary: "move the routes of the old app's NSKeyedArchiver archive into a store",
        positionals: [PositionalSpec(name: "STORE"), PositionalSpec(name: "ARCHIVE")],
        options: [.flag("create", "create the store if it does not exist yet"), .json],
        discussion: """
        All or nothing: either every route that can be migrated is saved, or none is.
        Running it again adds nothing: a route with the start time and point count of a
        stored route is recognised as already migrated. Invalid locations (negative
        horizontal accuracy) and routes without locations are skipped and reported.
        Refused with exit code 3 while another process (an app) holds the store for writing.
        """)

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        try ImportInput.check(arguments.positionals[1], otherwise: "copy the archive into a regular file and migrate that")
        let archive = URL(fileURLWithPath: arguments.positionals[1])
        let store = try InterchangeStoreAccess.openForImport(arguments)
        let report = try LegacyArchiveMigrator.migrate(archive, into: store)
        try store.close()
        if arguments.has("json") {
            console.print(JSON.object([
                ("routesFound", .integer(report.routesFound)), ("routesMigrated", .integer(report.routesMigrated)),
                ("pointsMigrated", .integer(report.pointsMigrated)),
                ("routes", .array(report.routeIDs.map { .integer($0.rawValue) })),
                ("routesAlreadyPresent", .integer(report.routesAlreadyPresent)),
                ("pointsSkipped", .integer(report.pointsSkipped)),
                ("skippedRoutes", .array(report.skippedRoutes.map { .string($0) })),
            ]).rendered())
        } else {
            console.print(lines: report.notes)
        }
        return .success
    }
}
