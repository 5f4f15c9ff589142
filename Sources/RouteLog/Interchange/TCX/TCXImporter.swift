import Foundation

/// Reads TCX files (Garmin's Training Center Database, version 2) into routes.
///
/// Each `Activity` (also inside a `MultiSportSession`) and each `Course` with
/// positioned Trackpoints becomes one route: its Laps and Tracks joined in order, a
/// `Track` after the first of a Lap (or of a Course) starting a new segment (the
/// recording was paused). A Trackpoint without `Position` (a pause marker, an indoor
/// sample) is skipped and counted; its other values are not carried to a neighbour.
/// `CoursePoint`s are places, not paths: skipped and counted like GPX waypoints.
/// The Activity's `Sport` becomes the report's sport; the Laps' `Calories` are summed
/// into the route's calories; a Course's `Name` becomes the route's name. Times, gaps
/// and jumps follow ``RouteImportOptions`` exactly as for GPX.
///
/// The file is streamed: memory grows with the points kept, not with the text. A
/// malformed file throws ``RouteLogError/Code/invalidArgument`` with the line and
/// column, and nothing from it is returned or saved.
///
/// ```swift
/// let result = try TCXImporter.read(contentsOf: url)
/// print(result.report.summaryLine, result.report.sports)
/// ```
public enum TCXImporter {
    /// Reads a TCX file from disk.
    /// - Throws: ``RouteLogError`` `.notFound` when the file cannot be read,
    ///   `.invalidArgument` for a directory or a FIFO, socket or device (never waited
    ///   on), or with line and column when it is not valid TCX.
    public static func read(contentsOf url: URL, options: RouteImportOptions = .init()) throws -> RouteImport {
        build(try TCXReader.read(contentsOf: url, options: options), source: url.path, options: options)
    }

    /// Reads TCX held in memory; `source` names it in the report and in errors.
    /// - Throws: ``RouteLogError`` `.invalidArgument` with line and column when it is
    ///   not valid TCX.
    public static func read(data: Data, source: String = "TCX data",
                            options: RouteImportOptions = .init()) throws -> RouteImport {
        build(try TCXReader.read(data: data, source: source, options: options), source: source, options: options)
    }

    /// Reads a TCX file and saves its routes in one all-or-nothing batch.
    /// - Returns: The report, with ``RouteImportReport/routeIDs`` filled in.
    /// - Throws: ``RouteLogError`` as ``read(contentsOf:options:)``, `.invalidArgument`
    ///   naming the route and point the store refuses, or the store's own errors. In
    ///   every case nothing from the file was saved.
    public static func importFile(_ url: URL, into store: RouteStore,
                                  options: RouteImportOptions = .init()) throws -> RouteImportReport {
        try RouteImporter.save(read(contentsOf: url, options: options), from: url, into: store, options: options)
    }

    static func build(_ contents: consuming TCXContents, source: String, options: RouteImportOptions) -> RouteImport {
        var report = RouteImportReport(source: source, format: .tcx, version: "2")
        report.waypointsSkipped = contents.coursePoints
        report.unknownExtensionsSkipped = contents.unknownExtensions
        report.lapsRead = contents.laps
        report.pointsWithoutPositionSkipped = contents.pointsWithoutPosition
        report.powerReadingsDropped = contents.powerReadings
        report.pausesKept = contents.pauses
        report.emptyPathsSkipped = contents.pathsWithoutPoints
        var paths = contents.paths
        contents.paths = []
        var routes: [Route] = []
        for index in paths.indices {
            var path = GPXPath(name: nil, isPlannedRoute: false)
            swap(&path, &paths[index].path)
            let kind = paths[index].sport.flatMap(ActivityKind.init(importedName:))
            path.activity = kind
            routes.append(GPXImporter.makeRoute(&path, fileTime: paths[index].idTime, options: options,
                                                report: &report))
            report.sports.append(paths[index].sport)
            report.activities.append(kind?.name)
        }
        report.routeCount = routes.count
        report.pointCount = routes.reduce(0) { $0 + $1.points.count }
        return RouteImport(routes: routes, report: report)
    }
}
