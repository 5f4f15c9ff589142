import Foundation
import RouteLog

/// `routelog delete STORE ID...`: deletes routes (compaction reclaims their space).
enum DeleteCommand: Command {
    static let spec = CommandSpec(
        name: "delete",
        summary: "delete routes; 'compact' reclaims their space",
        positionals: [PositionalSpec(name: "STORE"), PositionalSpec(name: "ID", repeats: true)],
        options: [.units, .json],
        discussion: """
        Every id is checked first: when one is unknown, nothing is deleted.
        Refused with exit code 3 while another process (an app) holds the store for writing.
        """)

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        var seen = Set<RouteID>()
        let ids = try arguments.routeIDs(from: 1).filter { seen.insert($0).inserted }
        let units = try arguments.units()
        let store = try StoreAccess.openForWriting(arguments)
        let summaries = try ids.map { try store.summary($0) }
        for id in ids { try store.delete(id) }
        try store.close()
        if arguments.has("json") {
            console.print(JSON.object([("deleted", .array(summaries.map(JSONFields.summary)))]).rendered())
            return .success
        }
        console.print(lines: ["deleted \(ids.count) route\(ids.count == 1 ? "" : "s"):"] + ListCommand.table(summaries, units).lines())
        return .success
    }
}
