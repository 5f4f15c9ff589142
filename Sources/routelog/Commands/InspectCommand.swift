import Foundation
import RouteLog

/// `routelog inspect STORE [--json]`: the store's layout, like a database shell's
/// `.tables` and `.schema`: files, segments, live and dead bytes, the writer's pid.
enum InspectCommand: Command {
    static let spec = CommandSpec(
        name: "inspect",
        summary: "the store's layout: files and sizes, segments with live and dead bytes, routes, recordings in progress, points, compression, the writer's pid",
        positionals: [PositionalSpec(name: "STORE")],
        options: [.json],
        discussion: """
        Shows the format version, every file and its size, each segment's live and dead
        bytes, routes live and deleted, recordings in progress (routes an app is
        recording, or was when it was killed: their points flushed so far, not listed as
        routes until finished), points, bytes per point, the compression ratio, and the
        pid of the process holding the store for writing, if one does.
        Opens the store read-only: safe while an app writes it.
        """)

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let store = try StoreAccess.openForReading(arguments)
        let stats = try store.statistics()
        let files = directoryFiles(store.url)
        if arguments.has("json") {
            console.print(json(stats, files: files).rendered())
            return .success
        }
        let writer = stats.writerPID.map {
            $0 < 0 ? "a process holds the store for writing; its pid cannot be read from LOCK (deleted, replaced, or given another name)"
                : "process \($0) holds the store for writing"
        } ?? "none (no process holds the store for writing)"
        let rows: [(String, String)] = [
            ("store", TerminalText.quoted(store.url.path)),
            ("format version", "\(stats.formatVersion)"),
            ("generation", "\(stats.generation)"),
            ("writer", writer),
            ("routes", "\(stats.liveRoutes) live, \(stats.deletedRoutes) deleted (not yet compacted)"),
            ("recordings", recordingsSummary(stats)),
            ("points", "\(stats.points)"),
            ("bytes", "\(Formatting.bytes(stats.totalBytes)) in segments and index: \(Formatting.bytes(stats.liveBytes)) live, \(Formatting.bytes(stats.deadBytes)) dead"),
            ("bytes per point", String(format: "%.2f", stats.bytesPerPoint)),
            ("compression", String(format: "%.2fx smaller than 24 bytes a point", stats.compressionRatio)),
            ("lost", TerminalText.quoted(JSONFields.lostSummary(stats.lostFiles, notListed: stats.lostFilesNotListed) ?? "nothing kept aside")),
        ]
        var lines = rows.map { $0.0.padding(toLength: 17, withPad: " ", startingAt: 0) + $0.1 }
        lines.append("")
        if !stats.recordingsInProgress.isEmpty {
            var recordings = Table([("RECORDING", .right), ("STARTED", .left), ("POINTS", .right), ("CHUNKS", .right),
                                    ("BYTES", .right), ("NAME", .left)])
            for r in stats.recordingsInProgress {
                recordings.add(["\(r.id)", Formatting.timestamp(r.startedAt), "\(r.points)", "\(r.chunks)", "\(r.bytes)", r.name ?? ""])
            }
            lines += recordings.lines()
            lines.append("")
        }
        var table = Table([("FILE", .left), ("KIND", .left), ("BYTES", .right), ("LIVE", .right), ("DEAD", .right)])
        let segments = Dictionary(uniqueKeysWithValues: stats.segments.map { ($0.name, $0) })
        for file in files {
            if let segment = segments[file.name] {
                table.add([file.name, "segment", "\(file.bytes)", "\(segment.liveBytes)", "\(segment.deadBytes)"])
            } else {
                table.add([file.name, file.name == stats.indexFile ? "index" : "other", "\(file.bytes)", "", ""])
            }
        }
        lines += table.lines()
        console.print(lines: lines)
        return .success
    }

    /// "none in progress", or how many, and any finished ones still stored as chunks.
    static func recordingsSummary(_ stats: StoreStatistics) -> String {
        let count = stats.recordingsInProgress.count
        var text = count == 0 ? "none in progress" : "\(count) in progress (not routes until finished)"
        if stats.chunkedRoutes > 0 {
            text += "; \(stats.chunkedRoutes) finished, still in chunks (compaction merges them)"
        }
        return text
    }

    static func json(_ stats: StoreStatistics, files: [(name: String, bytes: Int64)]) -> JSON {
        .object([
            ("formatVersion", .integer(stats.formatVersion)),
            ("generation", .integer(stats.generation)),
            ("writerPID", .integer(stats.writerPID)),
            ("liveRoutes", .integer(stats.liveRoutes)),
            ("deletedRoutes", .integer(stats.deletedRoutes)),
            ("recordingsInProgress", .array(stats.recordingsInProgress.map { r in
                .object([("id", .integer(r.id.rawValue)), ("startedAt", JSONFields.date(r.startedAt)), ("name", .string(r.name)),
                         ("points", .integer(r.points)), ("chunks", .integer(r.chunks)), ("bytes", .integer(r.bytes))])
            })),
            ("chunkedRoutes", .integer(stats.chunkedRoutes)),
            ("points", .integer(stats.points)),
            ("totalBytes", .integer(stats.totalBytes)),
            ("liveBytes", .integer(stats.liveBytes)),
            ("deadBytes", .integer(stats.deadBytes)),
            ("bytesPerPoint", .rounded(stats.bytesPerPoint, 3)),
            ("compressionRatio", .rounded(stats.compressionRatio, 3)),
            ("indexFile", .string(stats.indexFile)),
            ("indexBytes", .integer(stats.indexBytes)),
            ("segments", .array(stats.segments.map { segment in
                .object([("number", .integer(segment.number)), ("name", .string(segment.name)), ("bytes", .integer(segment.bytes)),
                         ("liveBytes", .integer(segment.liveBytes)), ("deadBytes", .integer(segment.deadBytes))])
            })),
            ("files", .array(files.map { .object([("name", .string($0.name)), ("bytes", .integer($0.bytes))]) })),
            ("lostFiles", .array(stats.lostFiles.map(JSONFields.lostFile))),
            ("lostFilesNotListed", .string(stats.lostFilesNotListed)),
        ])
    }

    /// Every file in the store's directory with its size, by name.
    static func directoryFiles(_ url: URL) -> [(name: String, bytes: Int64)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.sorted().map { name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.appendingPathComponent(name).path)
            return (name, (attributes?[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }
}
