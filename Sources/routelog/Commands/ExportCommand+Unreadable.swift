import Foundation
import RouteLog

/// Routes `export` could not read: every other route is exported, and these are named
/// on stderr, one line each with the file and offset of the damage, then the command
/// exits 1 so that a script does not take the export for the whole store.
enum ExportUnreadable {
    /// Reads route `id`, or notes why it cannot be read (damage, a segment this
    /// process may not open) and returns nil.
    static func route(_ id: RouteID, of store: RouteStore, noting unreadable: inout [UnreadableRoute]) throws -> Route? {
        do {
            return try store.route(id)
        } catch let error as RouteLogError where UnreadableRoute.isAboutTheRoute(error) {
            unreadable.append(UnreadableRoute(id: id, error: error))
            return nil
        }
    }

    /// The `unreadableRoutes` field of the JSON report.
    static func json(_ unreadable: [UnreadableRoute]) -> JSON {
        .array(unreadable.map { route in
            .object([("id", .integer(route.id.rawValue)), ("message", .string(route.error.message)),
                     ("file", route.error.path.map { .string($0) } ?? .null), ("offset", .integer(route.error.offset))])
        })
    }

    /// Reports each route on stderr and gives the exit code: 1 when any was left out.
    static func finish(_ unreadable: [UnreadableRoute], console: Console) -> ExitCode {
        guard !unreadable.isEmpty else { return .success }
        for route in unreadable {
            var line = CLIError(route.error)
            line.what = "route \(route.id) was left out of the export: it could not be read (\(line.what))"
            console.report(line)
        }
        return .failure
    }
}
