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
    ///
    /// The file is mapped, not read into memory, and read within `limits`: an archive
    /// with more locations in one route or in all than the limits allow, or more
    /// splits in a route, is refused before those are built.
    /// - Throws: ``RouteLogError`` `.notFound` for a missing file, `.invalidArgument` for
    ///   a directory or a FIFO, socket or device (never waited on), a file that is not
    ///   a keyed archive, a limit passed, or a route the store refuses (naming it); the
    ///   store's errors. Nothing is saved when it throws.
    public static func migrate(_ url: URL, into store: RouteStore,
                               limits: ImportLimits = .init()) throws -> LegacyMigrationReport {
        let bytes: MappedBytes
        do {
            bytes = try MappedBytes(contentsOf: url)
        } catch let error as RouteLogError where error.code == .notFound {
            throw RouteLogError(.notFound, "cannot read the archive; check the path", path: url.path)
        }
        return try migrate(bytes, source: url.path, into: store, limits: limits)
    }

    /// Migrates an archive held in memory; `source` names it in the report and errors.
    /// - Throws: as ``migrate(_:into:limits:)``.
    public static func migrate(data: Data, source: String, into store: RouteStore,
                               limits: ImportLimits = .init()) throws -> LegacyMigrationReport {
        try migrate(MappedBytes(copying: data), source: source, into: store, limits: limits)
    }

    static func migrate(_ bytes: MappedBytes, source: String, into store: RouteStore,
                        limits: ImportLimits) throws -> LegacyMigrationReport {
        var (routes, report) = try read(bytes, source: source, limits: limits)
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
    /// - Throws: as ``migrate(_:into:limits:)``, except for the store's errors.
    public static func read(data: Data, source: String,
                            limits: ImportLimits = .init()) throws -> (routes: [Route], report: LegacyMigrationReport) {
        try read(MappedBytes(copying: data), source: source, limits: limits)
    }

    static func read(_ bytes: MappedBytes, source: String,
                     limits: ImportLimits) throws -> (routes: [Route], report: LegacyMigrationReport) {
        let archive = try KeyedArchive(bytes, source: source)
        var report = LegacyMigrationReport(source: source)
        let root = try archive.root()
        let elements: BinaryPropertyList.References?
        var single: KeyedArchive.ArchivedObject?
        if let array = try archive.array(root) {
            elements = array
        } else if let object = try archive.object(root), object["routeCoordinates"] != nil {
            elements = nil
            single = object
        } else {
            throw RouteLogError(.invalidArgument, "the archive's root is neither an array of routes nor a route", path: source)
        }
        let count = elements?.count ?? 1
        report.routesFound = count
        func routeObject(_ index: Int) throws -> KeyedArchive.ArchivedObject? {
            try elements.map { try archive.object(archive.element($0, index)) } ?? single
        }
        let reader = LegacyRouteReader(archive: archive, limits: limits)
        // First the counts, from the arrays' headers alone: an archive past a limit is
        // refused before a single point is built (or a line of the report written).
        guard count <= limits.routesPerFile else {
            throw reader.refusal("the archive holds \(ImportLimits.grouped(count)) route objects, more than "
                                     + "\(ImportLimits.grouped(limits.routesPerFile)) (ImportLimits.routesPerFile)")
        }
        var locations = 0
        for index in 0..<count {
            guard let object = try routeObject(index), let array = try archive.array(object["routeCoordinates"]) else { continue }
            guard array.count <= limits.pointsPerRoute else {
                throw reader.refusal("archived route \(index + 1) has \(ImportLimits.grouped(array.count)) locations, more "
                                         + "than the \(ImportLimits.grouped(limits.pointsPerRoute)) one route may hold "
                                         + "(ImportLimits.pointsPerRoute)")
            }
            locations += array.count
            guard locations <= limits.pointsPerFile else {
                throw reader.refusal("the archive holds more than \(ImportLimits.grouped(limits.pointsPerFile)) locations, "
                                         + "the most RouteLog migrates in one batch (ImportLimits.pointsPerFile)")
            }
        }
        var routes: [Route] = []
        var splitsInFile = 0
        for index in 0..<count {
            guard let object = try routeObject(index) else {
                report.skippedRoutes.append("route \(index + 1): not an archived object")
                continue
            }
            switch try reader.route(object, number: index + 1, report: &report, splitsInFile: &splitsInFile) {
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
