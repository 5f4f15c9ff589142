import Foundation
import RouteLog

/// `routelog backup STORE DEST [--json]`: a consistent copy of the store, made while
/// an app may be writing it (RouteStore.backup(to:)).
enum BackupCommand: Command {
    static let spec = CommandSpec(
        name: "backup",
        summary: "copy the store into DEST, consistently, while it is in use",
        positionals: [PositionalSpec(name: "STORE"), PositionalSpec(name: "DEST")],
        options: [.json],
        discussion: """
        DEST becomes a store of its own holding every route saved before the backup
        began; open it like any store. Opens STORE read-only, so it works while an app
        writes it. DEST may be missing (it is made), an empty directory, or an earlier
        backup: segments it already holds byte for byte are kept, the others written,
        and files it no longer needs removed; the new state is switched in last, so an
        interrupted backup leaves the earlier one. The backup is verified before the
        command reports success. Refused (nothing written) for a DEST that is a file, a
        symbolic link, STORE itself, inside STORE (by real path, so also through a
        symbolic link or '..') or a directory holding other files; exit code 3 while
        another process holds DEST for writing.
        """)

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        // Made absolute by hand: URL would take "link/.." away by name before the
        // kernel could follow the link.
        let given = arguments.positionals[1]
        let destination = URL(fileURLWithPath: given.hasPrefix("/") ? given : FileManager.default.currentDirectoryPath + "/" + given)
        let store = try StoreAccess.openForReading(arguments)
        let report = try store.backup(to: destination)
        try store.close()
        if arguments.has("json") {
            console.print(JSON.object([
                ("destination", .string(destination.standardizedFileURL.path)), ("routes", .integer(report.routeCount)),
                ("segmentsCopied", .integer(report.segmentsCopied)), ("segmentsKept", .integer(report.segmentsReused)),
                ("bytesCopied", .integer(report.bytesCopied)), ("verified", .bool(report.verification.isClean)),
            ]).rendered())
            return .success
        }
        let plural = { (count: Int, word: String) in "\(count) \(word)\(count == 1 ? "" : "s")" }
        console.print(lines: [
            "backed up \(plural(report.routeCount, "route")) into \(TerminalText.quoted(destination.standardizedFileURL.path))",
            "\(plural(report.segmentsCopied, "segment")) copied (\(Formatting.bytes(report.bytesCopied)) written), "
                + "\(plural(report.segmentsReused, "segment")) kept from the earlier backup; verified clean",
        ])
        return .success
    }
}
