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
/// store's size. Each file is written under a temporary name and renamed into place
/// once every table of the export is complete; beside each part's tables goes the list
/// of the routes they hold (`_routelog_export.json`).
///
/// The directory is locked for the whole export, and a month folder while the export
/// works in it (so an export into a month folder and one by month into the directory
/// above never write that folder at once), and every file of the export is made,
/// renamed, looked at and removed through the lock's descriptor (``ExportFolder``),
/// never through the directory's path again: a directory renamed away meanwhile, and a
/// symbolic link or another directory put at its path, lead nothing elsewhere, and the
/// export goes on in the directory it locked.
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
    ///   - waiting: Called before the export waits, when another export (from any
    ///     process) is writing into `directory`, or into a month folder this one is to
    ///     work in (an export into `directory/start_month=2024-05`): once for each wait.
    ///     This one goes on when that one ends, or throws `.locked` when it has not ended
    ///     within ``ParquetExportOptions/directoryWait``. An export started from another's
    ///     `progress` or `waiting`, on that export's thread, never waits (the other export
    ///     may be waiting for the folder that thread holds): it throws `.locked` at once.
    /// - Returns: What was written.
    /// - Throws: ``RouteLogError`` `.invalidArgument` when `directory` is a file; `.locked`
    ///   when another export into it, or into a month folder this one works in, did not
    ///   end within the options' wait (naming that directory or folder); `.io`
    ///   when a directory or file cannot be written, or a month folder was moved or
    ///   replaced while the export ran (nothing is changed in it then), or kept being
    ///   replaced each time the export waited for its lock (8 times), or the directory
    ///   removed each time (8 times). The directory
    ///   renamed away mid-export is no error: the export goes on in it. Every table is written whole under
    ///   a temporary name before any is put in place, so a failure while writing (a full
    ///   disk) leaves the earlier export as it was. A route that cannot be read (damaged,
    ///   or in a segment this process may not open) is no error: it is left out and
    ///   named in ``ParquetExportReport/unreadableRoutes``, and every other route is
    ///   exported; earlier tables that may hold it, in any part (by the list of routes
    ///   each export writes beside its tables, or all of them when there is none), are
    ///   kept beside the new ones (``ParquetExportReport/keptFiles``), since they may hold
    ///   its only readable copy.
    @discardableResult
    public static func export(_ store: RouteStore, to directory: URL, options: ParquetExportOptions = .init(),
                              progress: ((_ done: Int, _ total: Int) -> Void)? = nil,
                              waiting: (() -> Void)? = nil) throws -> ParquetExportReport {
        // The store's directory is refused by what the store holds (a writer's locked
        // directory, a reader's opened one), not only by its path: renamed while the store
        // is open, it is still the store's under its new name.
        let storeIdentity = store.lock?.lockedDirectory ?? store.directoryIdentity
        // Started from another export's progress, on the thread that holds that one's
        // locks: this one waits for no other export (which may be waiting for those).
        let nested = ExportDirectoryLock.heldByThisThread
        var lock: ExportDirectoryLock
        var openings = 0
        repeat {
            try makeDirectory(directory)
            lock = try ExportDirectoryLock(directory, store: store.url, storeIdentity: storeIdentity, waiting: waiting, wait: options.directoryWait,
                                           nested: nested)
            // A month folder of another export's directory, removed by it (a stale month)
            // while this waited for it, is made again; one removed each time is given up
            // on, as a month folder that keeps changing is.
            openings += 1
            if lock.isRemoved, openings >= ExportFolder.openingsOfAFolderThatKeepsChanging {
                throw RouteLogError(.io, "the export directory was removed each of the \(openings) times the export made it and waited for its lock (something keeps removing it); nothing was written: export again once it stays put",
                                    path: directory.path)
            }
        } while lock.isRemoved
        // From here on, the directory locked is reached through the lock's descriptor only;
        // each month folder is locked while the export works in it, as the directory is.
        let root = ExportFolder(locked: lock, url: directory,
                                locking: .init(storeIdentity: storeIdentity, waiting: waiting, wait: options.directoryWait, nested: nested))
        defer { withExtendedLifetime(root) {} }
        let summaries = try store.summaries().sorted { $0.id < $1.id }
        var report = ParquetExportReport()
        var part = PartWriter(store: store, options: options, total: summaries.count, progress: progress)
        // Every part is written whole under temporary names first: only then is it known
        // which routes could not be read, and so which earlier tables to keep.
        var written: [WrittenPart] = []
        do {
            switch options.partitioning {
            case .none:
                report.removedFiles += ParquetFileWriter.removeLeftovers(in: root)
                written.append(try part.write(summaries, into: root, report: &report))
            case .month:
                let months = Dictionary(grouping: summaries, by: { month(of: $0.startDate) })
                for key in months.keys.sorted() {
                    // Made and opened in the directory held, never through a link at its name.
                    let folder = try root.folder(making: "\(partitionColumn)=\(key)")
                    report.removedFiles += ParquetFileWriter.removeLeftovers(in: folder)
                    written.append(try part.write(months[key]!, into: folder, report: &report))
                    report.partitions.append(key)
                }
            }
            let unreadable = Set(report.unreadableRoutes.map(\.id))
            for (i, part) in written.enumerated() {
                do {
                    try part.publish(unreadable: unreadable, report: &report)
                } catch {
                    written.removeFirst(i)  // those before it are in place: nothing to abandon
                    throw error
                }
            }
            written.removeAll()
            if options.partitioning == .month {
                try clearStalePartitions(in: root, keeping: Set(report.partitions), unreadable: unreadable, report: &report)
            }
            // Kept pairs whose every route this export wrote again hold nothing more; they
            // go once the new tables' names are on permanent storage too (the folders are
            // synced only when there is such a pair).
            let folders = exportFolders(root)
            let releasable = EarlierTables.releasable(in: folders, exported: part.exported)
            if !releasable.isEmpty {
                for folder in folders {
                    defer { folder.release() }
                    do {
                        try folder.sync()
                    } catch let error as Errno {
                        throw RouteLogError.io("syncing the export directory", path: folder.url.path, errno: error.code)
                    }
                }
                report.removedFiles += EarlierTables.remove(releasable)
            }
        } catch {
            for part in written { part.abandon() }
            // The routes found unreadable before the failure are named, not lost with it.
            guard let failure = error as? RouteLogError, !report.unreadableRoutes.isEmpty else { throw error }
            let ids = report.unreadableRoutes.map(\.id.description).joined(separator: ", ")
            throw RouteLogError(failure.code, failure.message + "; before it, \(report.unreadableRoutes.count) route(s) could not be read (\(ids))",
                                path: failure.path, offset: failure.offset, errno: failure.errno, pid: failure.pid)
        }
        return report
    }

    /// The directory and its `start_month=` folders (real directories, not links), each
    /// let go until used.
    private static func exportFolders(_ root: ExportFolder) -> [ExportFolder] {
        // One that cannot be opened is left out: its kept pairs stay, for a later export.
        [root] + root.names().sorted().filter { $0.hasPrefix("\(partitionColumn)=") }.compactMap { try? root.existingFolder($0) }
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

    /// The tables of `start_month=` folders whose month this export did not write: kept
    /// (``EarlierTables/keep(in:)``) when they may hold a route this export could not
    /// read, since that route may have moved to another month since; otherwise removed,
    /// with the folder once it is empty. Nothing else is touched.
    private static func clearStalePartitions(in root: ExportFolder, keeping months: Set<String>, unreadable: Set<RouteID>,
                                             report: inout ParquetExportReport) throws {
        let prefix = "\(partitionColumn)="
        // Listed and opened strictly: a folder skipped for want of a descriptor would leave
        // its months in the dataset with no word of it.
        for name in try root.listing().sorted() where name.hasPrefix(prefix) && !months.contains(String(name.dropFirst(prefix.count))) {
            // A link or a file: not followed, left alone.
            guard let folder = try root.existingFolder(name) else { continue }
            defer { folder.release() }
            report.removedFiles += ParquetFileWriter.removeLeftovers(in: folder)
            if EarlierTables.mayHold(unreadable, in: folder) {
                report.keptFiles += try EarlierTables.keep(in: folder)
            } else {
                report.removedFiles += try EarlierTables.remove(in: folder)
            }
            // Removed while still locked: an export into it waiting meanwhile finds it
            // removed once it gets the lock, and makes it again.
            if folder.names().isEmpty { root.removeEmpty(name, folder) }
        }
    }
}

/// One part's two tables, complete under their temporary names, and the routes they hold.
private struct WrittenPart {
    let folder: ExportFolder
    let routes: RoutesTableWriter
    let points: PointsTableWriter
    let held: [RouteID: UUID]

    /// Puts the tables in place: the earlier ones are kept if they may hold a route of
    /// `unreadable` (and replaced otherwise), then the list of routes is written.
    /// - Throws: ``RouteLogError`` `.io` when a step fails, or the folder was moved or
    ///   replaced since its tables were written (then nothing is changed there).
    func publish(unreadable: Set<RouteID>, report: inout ParquetExportReport) throws {
        _ = try folder.directory()  // a month folder: opened again, and still the one written into
        defer { folder.release() }
        if EarlierTables.mayHold(unreadable, in: folder) {
            report.keptFiles += try EarlierTables.keep(in: folder)
        } else {
            try ExportPartContents.remove(in: folder)
        }
        try routes.publish()
        report.files.append(folder.url(ParquetExporter.routesFileName))
        try points.publish()
        report.files.append(folder.url(ParquetExporter.pointsFileName))
        try ExportPartContents(routes: held).write(into: folder)
    }

    func abandon() {
        routes.abandon()
        points.abandon()
        folder.release()
    }
}

/// Writes one pair of tables (the whole store, or one partition).
private struct PartWriter {
    let store: RouteStore
    let options: ParquetExportOptions
    let total: Int
    let progress: ((Int, Int) -> Void)?
    var done = 0
    /// Every route written, in every part, with its uuid.
    var exported: [RouteID: UUID] = [:]

    /// Writes the tables of `summaries` into `folder`, complete but not yet in place; a
    /// month folder is let go once they are.
    mutating func write(_ summaries: [RouteSummary], into folder: ExportFolder, report: inout ParquetExportReport) throws -> WrittenPart {
        defer { folder.release() }
        let routes = try RoutesTableWriter(in: folder, codec: options.codec, rowsPerGroup: options.routesPerRowGroup)
        let points: PointsTableWriter
        do {
            points = try PointsTableWriter(in: folder, codec: options.codec, rowsPerGroup: options.pointsPerRowGroup)
        } catch {
            routes.abandon()
            throw error
        }
        var written: [RouteID: UUID] = [:]
        do {
            try ExportPipeline.run(summaries, store: store, options: options) { batch in
                try routes.append(batch.rows, geometries: batch.geometries)
                try points.append(batch.points)
                for row in batch.rows { written[row.summary.id] = row.summary.uuid }
                report.routeCount += batch.rows.count
                report.pointCount += batch.pointCount
                report.vanishedRoutes += batch.vanished
                report.withheldRoutes += batch.withheld
                report.unreadableRoutes += batch.unreadable
                done += batch.rows.count + batch.vanished.count + batch.withheld.count + batch.unreadable.count
                progress?(done, total)
            }
            report.bytes += try routes.complete()
            report.bytes += try points.complete()
        } catch {
            routes.abandon()
            points.abandon()
            throw error
        }
        exported.merge(written) { _, new in new }
        return WrittenPart(folder: folder, routes: routes, points: points, held: written)
    }
}
