import Foundation

/// Moves routes out of the old app's archive into a ``RouteStore``.
///
/// The old app archived an `NSMutableArray` of its route objects with `NSKeyedArchiver`.
/// Each route held `routeCoordinates` (CLLocations), `kmCoordinates`/`kmTimes` and
/// `mileCoordinates`/`mileTimes` (the splits), `totalDistance` (metres), its calories,
/// the time taken as text, and a date. The archive is read generically
/// (`KeyedArchive`): neither the app's classes nor CoreLocation are needed.
///
/// Mapping: each valid CLLocation becomes a ``TrackPoint`` (latitude, longitude,
/// altitude, accuracies, speed, course, timestamp); `totalDistance` becomes
/// ``RouteMetadata/distance`` (the app's figure wins, as it did in the app); calories
/// become ``RouteMetadata/calories``; each archived split is matched to the point whose
/// timestamp is nearest to the split's time. The time-taken text and the date are not
/// kept: both follow from the points.
///
/// A migration is all or nothing (one batch save), and running it twice adds nothing:
/// a route whose start time (to the millisecond) and point count equal those of a
/// route already in the store is recognised as migrated. (A migrated route whose start
/// date was later edited is therefore migrated again.)
///
/// ```swift
/// let report = try LegacyArchiveMigrator.migrate(archiveURL, into: store)
/// report.notes.forEach { print($0) }
/// ```
public enum LegacyArchiveMigrator {
    /// Reads the archive at `url` and saves its routes into `store`.
    /// - Throws: ``RouteLogError`` `.notFound` for a missing file, `.invalidArgument` for
    ///   a file that is not a keyed archive or a route the store refuses (naming it);
    ///   the store's errors. Nothing is saved when it throws.
    public static func migrate(_ url: URL, into store: RouteStore) throws -> LegacyMigrationReport {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw RouteLogError(.notFound, "cannot read the archive; check the path", path: url.path)
        }
        return try migrate(data: data, source: url.path, into: store)
    }

    /// Migrates an archive held in memory; `source` names it in the report and errors.
    /// - Throws: ``RouteLogError`` `.invalidArgument` when the data is not such an
    ///   archive or a route in it cannot be stored (nothing is migrated then), or what
    ///   the store's save throws.
    public static func migrate(data: Data, source: String, into store: RouteStore) throws -> LegacyMigrationReport {
        var (routes, report) = try read(data: data, source: source)
        var seen = Set(try store.summaries().map { Fingerprint(start: $0.startDate, count: $0.pointCount) })
        var fresh: [Route] = []
        for (index, route) in routes.enumerated() {
            let print = Fingerprint(start: route.points[0].timestamp, count: route.points.count)
            if !seen.insert(print).inserted {
                report.routesAlreadyPresent += 1
                continue
            }
            do {
                try RouteValidation.validate(route)
            } catch let error as RouteLogError {
                throw RouteLogError(.invalidArgument, "archived route \(index + 1) cannot be stored: \(error.message); "
                                        + "nothing was migrated", path: source)
            }
            fresh.append(route)
        }
        routes = fresh
        if !routes.isEmpty { report.routeIDs = try store.save(routes) }
        report.routesMigrated = routes.count
        report.pointsMigrated = routes.reduce(0) { $0 + $1.points.count }
        return report
    }

    /// The routes an archive holds, without saving them (splits filled, points as archived).
    /// - Throws: ``RouteLogError`` `.invalidArgument` when the data is not such an archive,
    ///   naming what is missing or malformed.
    public static func read(data: Data, source: String) throws -> (routes: [Route], report: LegacyMigrationReport) {
        let archive = try KeyedArchive(data: data, source: source)
        var report = LegacyMigrationReport(source: source)
        let root = archive.root
        let objects: [Any]
        if let elements = archive.array(root) {
            objects = elements
        } else if let single = root as? [String: Any], single["routeCoordinates"] != nil {
            objects = [single]
        } else {
            throw RouteLogError(.invalidArgument, "the archive's root is neither an array of routes nor a route", path: source)
        }
        report.routesFound = objects.count
        var routes: [Route] = []
        for (index, element) in objects.enumerated() {
            guard let object = element as? [String: Any] else {
                report.skippedRoutes.append("route \(index + 1): not an archived object")
                continue
            }
            switch LegacyRouteReader(archive: archive).route(object, report: &report) {
            case .success(let route): routes.append(route)
            case .failure(let reason): report.skippedRoutes.append("route \(index + 1): \(reason.text)")
            }
        }
        return (routes, report)
    }

    /// Identifies a route across runs: start to the millisecond and point count.
    struct Fingerprint: Hashable {
        var startMilliseconds: Int64
        var count: Int
        init(start: Date, count: Int) {
            startMilliseconds = Int64((start.timeIntervalSince1970 * 1000).rounded())
            self.count = count
        }
    }
}
