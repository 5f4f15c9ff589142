import Foundation

/// Exports a whole store as two Parquet tables, `routes.parquet` (one row per route,
/// with a GeoParquet 1.1 WKB geometry) and `points.parquet` (one row per point), for
/// DuckDB, Spark with Sedona, pyarrow and the like (format-spec.md, "Export: GeoParquet").
///
/// ```swift
/// let report = try ParquetExporter.export(store, to: folder, options: .init(partitioning: .month))
/// print(report.routeCount, report.pointCount, report.bytes)
/// ```
///
/// The export streams: routes are read one at a time and written a row group at a
/// time, so memory stays bounded by a row group (and the longest route), whatever the
/// store's size. Each file is written under a temporary name and renamed into place.
public enum ParquetExporter {
    /// The routes table's file name.
    public static let routesFileName = "routes.parquet"
    /// The points table's file name.
    public static let pointsFileName = "points.parquet"
    /// The Hive partition column of a month-partitioned export.
    public static let partitionColumn = "start_month"

    /// Writes every route of `store` into `directory` (created if missing), replacing
    /// files of the same names.
    /// - Parameters:
    ///   - progress: Called after each route with the routes done and the total.
    /// - Returns: What was written.
    /// - Throws: ``RouteLogError`` `.invalidArgument` when `directory` is a file; `.io`
    ///   when a directory or file cannot be written (the file being written is removed,
    ///   files already finished stay). A route that cannot be read (damaged, or in a
    ///   segment this process may not open) is no error: it is left out and named in
    ///   ``ParquetExportReport/unreadableRoutes``, and every other route is exported; the
    ///   earlier tables of its part, if any, are kept beside the new ones
    ///   (``ParquetExportReport/keptFiles``), since they may hold its only readable copy.
    @discardableResult
    public static func export(_ store: RouteStore, to directory: URL, options: ParquetExportOptions = .init(),
                              progress: ((_ done: Int, _ total: Int) -> Void)? = nil) throws -> ParquetExportReport {
        try makeDirectory(directory)
        let summaries = try store.summaries().sorted { $0.id < $1.id }
        var report = ParquetExportReport()
        var part = PartWriter(store: store, options: options, total: summaries.count, progress: progress)
        switch options.partitioning {
        case .none:
            try part.write(summaries, into: directory, report: &report)
        case .month:
            let months = Dictionary(grouping: summaries, by: { month(of: $0.startDate) })
            for key in months.keys.sorted() {
                let folder = directory.appendingPathComponent("\(partitionColumn)=\(key)", isDirectory: true)
                try makeDirectory(folder)
                try part.write(months[key]!, into: folder, report: &report)
                report.partitions.append(key)
            }
            report.removedFiles = removeStalePartitions(in: directory, keeping: Set(months.keys))
        }
        return report
    }

    /// "YYYY-MM" of `date` in UTC.
    static func month(of date: Date) -> String {
        let parts = utcCalendar.dateComponents([.year, .month], from: date)
        let year = parts.year ?? 1970, month = parts.month ?? 1
        return (year < 1000 ? String(repeating: "0", count: 4 - String(year).count) : "") + "\(year)-"
            + (month < 10 ? "0" : "") + "\(month)"
    }

    private static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    private static func makeDirectory(_ directory: URL) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw RouteLogError(.invalidArgument, "the export target is a file, not a directory", path: directory.path)
            }
            return
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw RouteLogError(.io, "cannot create the export directory: \(error.localizedDescription)", path: directory.path)
        }
    }

    /// Removes the two tables of `start_month=` folders whose month this export did not
    /// write (and the folder, once empty). Nothing else is touched.
    private static func removeStalePartitions(in directory: URL, keeping months: Set<String>) -> [URL] {
        let prefix = "\(partitionColumn)="
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var removed: [URL] = []
        for name in names.sorted() where name.hasPrefix(prefix) && !months.contains(String(name.dropFirst(prefix.count))) {
            let folder = directory.appendingPathComponent(name, isDirectory: true)
            for file in [routesFileName, pointsFileName] {
                let url = folder.appendingPathComponent(file)
                if (try? FileManager.default.removeItem(at: url)) != nil { removed.append(url) }
            }
            if (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.isEmpty == true {
                try? FileManager.default.removeItem(at: folder)
            }
        }
        return removed
    }
}

/// Writes one pair of tables (the whole store, or one partition).
private struct PartWriter {
    /// Moves the files at `urls` that exist to `NAME.previous` (or `.previous.2`, ...: an
    /// older kept file is never replaced) and returns where they went.
    static func keepEarlier(_ urls: [URL]) throws -> [URL] {
        var kept: [URL] = []
        for url in urls where FileManager.default.fileExists(atPath: url.path) {
            var target = URL(fileURLWithPath: url.path + ".previous")
            var n = 2
            while FileManager.default.fileExists(atPath: target.path) || (try? FileManager.default.destinationOfSymbolicLink(atPath: target.path)) != nil {
                target = URL(fileURLWithPath: url.path + ".previous.\(n)")
                n += 1
            }
            guard rename(url.path, target.path) == 0 else {
                throw RouteLogError.io("rename", path: url.path, errno: errno)
            }
            kept.append(target)
        }
        return kept
    }

    let store: RouteStore
    let options: ParquetExportOptions
    let total: Int
    let progress: ((Int, Int) -> Void)?
    var done = 0

    mutating func write(_ summaries: [RouteSummary], into folder: URL, report: inout ParquetExportReport) throws {
        let unreadableBefore = report.unreadableRoutes.count
        let routesURL = folder.appendingPathComponent(ParquetExporter.routesFileName)
        let pointsURL = folder.appendingPathComponent(ParquetExporter.pointsFileName)
        let routes = try RoutesTableWriter(path: routesURL.path, codec: options.codec, rowsPerGroup: options.routesPerRowGroup)
        let points: PointsTableWriter
        do {
            points = try PointsTableWriter(path: pointsURL.path, codec: options.codec, rowsPerGroup: options.pointsPerRowGroup)
        } catch {
            routes.abandon()
            throw error
        }
        do {
            try ExportPipeline.run(summaries, store: store, options: options) { batch in
                try routes.append(batch.rows, geometries: batch.geometries)
                try points.append(batch.points)
                report.routeCount += batch.rows.count
                report.pointCount += batch.pointCount
                report.vanishedRoutes += batch.vanished
                report.withheldRoutes += batch.withheld
                report.unreadableRoutes += batch.unreadable
                done += batch.rows.count + batch.vanished.count + batch.withheld.count + batch.unreadable.count
                progress?(done, total)
            }
            if report.unreadableRoutes.count > unreadableBefore {
                report.keptFiles += try Self.keepEarlier([routesURL, pointsURL])
            }
            report.bytes += try routes.finish()
            report.files.append(routesURL)
            report.bytes += try points.finish()
            report.files.append(pointsURL)
        } catch {
            routes.abandon()
            points.abandon()
            throw error
        }
    }
}
