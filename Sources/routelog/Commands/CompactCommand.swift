import Foundation
import RouteLog

/// `routelog compact STORE`: reclaims the space of deleted routes and replaced metadata.
enum CompactCommand: Command {
    static let spec = CommandSpec(
        name: "compact",
        summary: "reclaim the space of deleted routes and old edits",
        positionals: [PositionalSpec(name: "STORE")],
        options: [.json],
        discussion: """
        Copies the live routes into new segments and switches to them atomically: an
        interruption leaves the old files or the new ones, never a mix.
        Refused with exit code 3 while another process (an app) holds the store for writing.
        """)

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let store = try StoreAccess.openForWriting(arguments)
        let progress = ProgressBar.make("compacting", storeBytes: try store.statistics().totalBytes, console: console)
        let report = try progress.map { try $0.whileRunning { try store.compact() } } ?? store.compact()
        try store.close()
        if arguments.has("json") {
            console.print(JSON.object([
                ("bytesBefore", .integer(report.bytesBefore)), ("bytesAfter", .integer(report.bytesAfter)),
                ("bytesReclaimed", .integer(report.bytesReclaimed)), ("recordsMoved", .integer(report.recordsMoved)),
                ("segmentsCompacted", .integer(report.segmentsCompacted)), ("durationSeconds", .rounded(report.duration, 3)),
            ]).rendered())
            return .success
        }
        console.print(lines: [
            "compacted \(report.segmentsCompacted) segment\(report.segmentsCompacted == 1 ? "" : "s"), moved \(report.recordsMoved) records in "
                + String(format: "%.2f s", report.duration),
            "\(Formatting.bytes(report.bytesBefore)) before, \(Formatting.bytes(report.bytesAfter)) after: \(Formatting.bytes(max(0, report.bytesReclaimed))) reclaimed",
        ])
        return .success
    }
}
