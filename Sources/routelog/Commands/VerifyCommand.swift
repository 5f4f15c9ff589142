import Foundation
import RouteLog

/// `routelog verify STORE [--json]`: checks every byte; exit 1 when damage is found.
enum VerifyCommand: Command {
    static let spec = CommandSpec(
        name: "verify",
        summary: "check every checksum, the index and every route; exit 1 when damage is found",
        positionals: [PositionalSpec(name: "STORE")],
        options: [.json],
        discussion: """
        Opens the store read-only: safe while an app writes it (a record the app is
        appending right now shows as an unfinished append, which is not damage).
        A damaged route can be removed with 'routelog delete STORE ID'; the others stay readable.
        """)

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let store = try StoreAccess.openForReading(arguments)
        let progress = ProgressBar.make("verifying", storeBytes: try store.statistics().totalBytes, console: console)
        var callback: (@Sendable (Double) -> Void)?
        if let progress { callback = { fraction in progress.update(fraction) } }
        let report = try store.verify(progress: callback)
        progress?.finish()
        let damaged: [RouteID] = Array(Set(report.problems.compactMap { $0.routeID })).sorted()
        if arguments.has("json") {
            console.print(JSON.object([
                ("clean", .bool(report.isClean)),
                ("routesChecked", .integer(report.routesChecked)),
                ("recordsChecked", .integer(report.recordsChecked)),
                ("bytesChecked", .integer(report.bytesChecked)),
                ("damagedRoutes", .array(damaged.map { JSON.integer($0.rawValue) })),
                ("problems", .array(report.problems.map(JSONFields.problem))),
                ("tornTails", .array(report.tornTails.map(JSONFields.problem))),
                ("lostFiles", .array(report.lostFiles.map(JSONFields.lostFile))),
                ("lostFilesNotListed", .string(report.lostFilesNotListed)),
            ]).rendered())
        } else {
            var lines = ["checked \(report.routesChecked) routes, \(report.recordsChecked) records, \(Formatting.bytes(report.bytesChecked))"]
            for tail in report.tornTails {
                lines.append("note: \(tail.message) of \(TerminalText.quoted((tail.path as NSString).lastPathComponent)) (not damage: an append was cut short or is under way)")
            }
            if let lost = JSONFields.lostSummary(report.lostFiles, notListed: report.lostFilesNotListed) {
                lines.append("note: \(TerminalText.quoted(lost))")
            }
            if report.isClean {
                lines.append("no damage found")
            } else {
                lines.append("")
                var table = Table([("ROUTE", .right), ("KIND", .left), ("FILE", .left), ("OFFSET", .right), ("BYTES", .right), ("PROBLEM", .left)])
                for p in report.problems {
                    let route = p.routeID.map { "\($0)" } ?? "-"
                    let length = p.length.map { "\($0)" } ?? "?"
                    let file = (p.path as NSString).lastPathComponent
                    table.add([route, p.kind.rawValue, file, "\(p.offset)", length, p.message])
                }
                lines += table.lines()
            }
            console.print(lines: lines)
        }
        guard report.isClean else {
            let count = report.problems.count
            let plural = damaged.count == 1 ? "" : "s"
            let routes = damaged.isEmpty ? "" : ", damaged route\(plural) " + damaged.map { "\($0)" }.joined(separator: ", ")
            // Segments that could not be opened were not checked at all: the first thing
            // to do is to let this user read them, whatever else was found.
            let unopened = report.problems.contains(where: \.isUnopenedSegment)
            let permission = "give this user read permission on the segments that could not be opened, then verify again: "
                + "they were not checked, nor the index against the segments"
            let damage = damaged.isEmpty ? "a writable open rebuilds a damaged index; restore damaged segments from a backup"
                : "every other route is readable; remove a damaged one with 'routelog delete STORE ID' or restore it from a backup"
            let todo = !report.problems.contains(where: { !$0.isUnopenedSegment }) ? permission
                : unopened ? "\(permission); \(damage)" : damage
            console.report(.failure("found \(count) problem\(count == 1 ? "" : "s")\(routes)", path: store.url.path, todo: todo))
            return .failure
        }
        return .success
    }
}
