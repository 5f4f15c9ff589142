import Foundation
import RouteLog

/// `routelog export STORE DIR --format parquet [--partition month] [--uncompressed]
/// [--full-geometry]`:
/// the store as `routes.parquet` and `points.parquet` (GeoParquet 1.1), through
/// ``ParquetExporter``.
enum ParquetExportFlags {
    static let options: [OptionSpec] = [
        .value("partition", "month", "with parquet: one start_month=YYYY-MM folder per month (Hive style)"),
        .flag("uncompressed", "with parquet: write pages uncompressed instead of LZ4_RAW"),
        .flag("full-geometry", "with parquet: draw each route's geometry from every point, not its preview"),
    ]

    static let discussion = """
        With --format parquet, DIR receives routes.parquet (one row per route, with a WKB
        geometry and GeoParquet metadata) and points.parquet (one row per point, every
        point), or with --partition month one start_month=YYYY-MM folder of both per month
        (UTC); folders of months an earlier export wrote and this one does not are
        emptied. A route's geometry is its stored preview (at most 64 points) unless
        --full-geometry is given. Beside the tables, _routelog_export.json lists the
        routes they hold; when a route cannot be read, the earlier tables that may hold
        it are kept as _routes.parquet.previous and _points.parquet.previous (skipped by
        dataset readers) instead of being replaced or removed.
        """

    /// Usage error when a Parquet-only option comes with another format.
    static func refuseWithoutParquet(_ arguments: ParsedArguments, spec: CommandSpec) throws {
        for option in options where arguments.has(option.name) {
            throw CLIError.usage("--\(option.name) is for --format parquet", spec, todo: "add --format parquet or leave out --\(option.name)")
        }
    }

    static func run(_ arguments: ParsedArguments, spec: CommandSpec, console: Console) throws -> ExitCode {
        var exportOptions = ParquetExportOptions()
        if let partition = arguments.value("partition") {
            guard partition == "month" else {
                throw CLIError.usage("bad partition '\(partition)' for --partition", spec, todo: "use --partition month")
            }
            exportOptions.partitioning = .month
        }
        if arguments.has("uncompressed") { exportOptions.compression = .none }
        if arguments.has("full-geometry") { exportOptions.geometry = .full }
        let directory = URL(fileURLWithPath: arguments.positionals[1], isDirectory: true)
        let given = try arguments.privacyZones()
        let store = try StoreAccess.openForReading(arguments)
        exportOptions.privacyZones = try ExportPrivacy.zones(given: given, store: store, arguments)
        exportOptions.storedPrivacyZones = false
        let bar = ProgressBar.make("exporting", storeBytes: try store.statistics().totalBytes, console: console)
        let report = try ParquetExporter.export(store, to: directory, options: exportOptions, progress: { done, total in
            bar?.update(Double(done) / Double(max(1, total)))
        }, waiting: {
            // A month-partitioned export also waits at a month folder another export
            // (into that folder) is writing: it may have begun already.
            console.note(exportOptions.partitioning == .month
                ? "another export is writing into \(TerminalText.quoted(directory.path)) or one of its month folders; this one goes on when it ends"
                : "another export into \(TerminalText.quoted(directory.path)) is under way; this one starts when it ends")
        })
        bar?.finish()
        if arguments.has("json") {
            console.print(JSON.object([
                ("files", .array(report.files.map { .string($0.path) })),
                ("routes", .integer(Int64(report.routeCount))),
                ("points", .integer(Int64(report.pointCount))),
                ("bytes", .integer(Int64(report.bytes))),
                ("partitions", .array(report.partitions.map { .string($0) })),
                ("vanishedRoutes", .array(report.vanishedRoutes.map { .integer(Int64($0.rawValue)) })),
                ("skippedRoutes", .array(report.withheldRoutes.map { .integer(Int64($0.rawValue)) })),
                ("unreadableRoutes", ExportUnreadable.json(report.unreadableRoutes)),
                ("keptFiles", .array(report.keptFiles.map { .string($0.path) })),
                ("removedFiles", .array(report.removedFiles.map { .string($0.path) })),
            ]).rendered())
        } else {
            var lines = ["wrote \(report.routeCount) route\(report.routeCount == 1 ? "" : "s") and \(report.pointCount) "
                + "point\(report.pointCount == 1 ? "" : "s") as Parquet into \(TerminalText.quoted(directory.path)) "
                + "(\(report.files.count) files, \(report.bytes) bytes"
                + (report.partitions.isEmpty ? ")" : ", \(report.partitions.count) monthly partitions)")]
            if !report.vanishedRoutes.isEmpty {
                lines.append("left out \(report.vanishedRoutes.count) route(s) deleted while exporting: "
                    + report.vanishedRoutes.map(\.description).joined(separator: ", "))
            }
            if !report.withheldRoutes.isEmpty {
                lines.append("skipped \(report.withheldRoutes.count) route(s) lying wholly inside the privacy zones: "
                    + report.withheldRoutes.map(\.description).joined(separator: ", "))
            }
            if !report.keptFiles.isEmpty {
                lines.append("kept \(report.keptFiles.count) earlier table(s) beside the new ones, as they may hold the only "
                    + "readable copy of a route this export could not read: "
                    + report.keptFiles.map { TerminalText.quoted($0.path) }.joined(separator: ", "))
            }
            if !report.removedFiles.isEmpty {
                lines.append("removed \(report.removedFiles.count) file(s) of months no longer in the store")
            }
            console.print(lines: lines)
        }
        return ExportUnreadable.finish(report.unreadableRoutes, console: console)
    }
}
