import Foundation

/// Reads GPX 1.0 and 1.1 files into routes.
///
/// Each `<trk>` becomes one route, its `<trkseg>`s joined in order with the joins kept
/// in ``Route/segmentStarts``. A file without track points gives one route per `<rte>`.
/// Waypoints are skipped and counted. Elevation, time (to the millisecond), GPX 1.0
/// `<speed>` and `<course>`, and heart rate and cadence from Garmin's
/// TrackPointExtension and the `gpxdata` namespace are kept; other extensions are
/// skipped and counted. How missing times and jumps are handled is described in
/// ``GPXImportOptions``.
///
/// The file is streamed: memory grows with the points kept, not with the file's text.
/// A malformed file (truncated, a tag left open, an undeclared prefix, a latitude that
/// is not a number) throws ``RouteLogError/Code/invalidArgument`` with the line and
/// column, and nothing from that file is returned or saved.
///
/// ```swift
/// let result = try GPXImporter.read(contentsOf: url)
/// for note in result.report.notes { print(note) }
/// ```
public enum GPXImporter {
    /// Reads a GPX file from disk.
    /// - Throws: ``RouteLogError`` `.notFound` when the file cannot be read,
    ///   `.invalidArgument` with line and column when it is not valid GPX.
    public static func read(contentsOf url: URL, options: GPXImportOptions = .init()) throws -> GPXImport {
        try build(GPXReader.read(contentsOf: url), source: url.path, options: options)
    }

    /// Reads GPX held in memory; `source` names it in the report and in errors.
    /// - Throws: ``RouteLogError`` `.invalidArgument` with line and column when it is not
    ///   valid GPX.
    public static func read(data: Data, source: String = "GPX data",
                            options: GPXImportOptions = .init()) throws -> GPXImport {
        try build(GPXReader.read(data: data, source: source), source: source, options: options)
    }

    static func build(_ contents: consuming GPXContents, source: String,
                      options: GPXImportOptions) throws -> GPXImport {
        var report = GPXImportReport(source: source, version: contents.version ?? "1.1")
        report.waypointsSkipped = contents.waypoints
        report.unknownExtensionsSkipped = contents.unknownExtensions
        let hasTrackPoints = contents.paths.contains { !$0.isPlannedRoute && !$0.points.isEmpty }
        var routes: [Route] = []
        // Paths are moved out one by one so their points are never copied.
        var paths = contents.paths
        contents.paths = []
        for index in paths.indices {
            var path = GPXPath(name: nil, isPlannedRoute: false)
            swap(&path, &paths[index])
            report.emptySegmentsSkipped += path.emptySegments
            if path.points.isEmpty {
                report.emptyPathsSkipped += 1
                continue
            }
            if path.isPlannedRoute, hasTrackPoints, !options.importsPlannedRoutesBesideTracks {
                report.plannedRoutesSkipped += 1
                continue
            }
            routes.append(makeRoute(&path, fileTime: contents.fileTime, options: options, report: &report))
        }
        report.routeCount = routes.count
        report.pointCount = routes.reduce(0) { $0 + $1.points.count }
        return GPXImport(routes: routes, report: report)
    }

    static func makeRoute(_ path: inout GPXPath, fileTime: Date?, options: GPXImportOptions,
                          report: inout GPXImportReport) -> Route {
        var points = path.points
        path.points = []
        let timed = path.hasTime.indices.filter { path.hasTime[$0] }
        if timed.isEmpty {
            report.untimedRoutes += 1
            let date = fileTime ?? options.untimedDate
            report.untimedRoutesDate = date
            for i in points.indices { points[i].timestamp = date }
        } else if timed.count < points.count {
            report.interpolatedTimes += points.count - timed.count
            fillMissingTimes(&points, timed: timed)
        }
        var starts = path.segmentStarts
        if options.breaksJumps, !timed.isEmpty {
            let jumps = jumpIndices(points, hasTime: path.hasTime, existing: Set(starts), options: options)
            report.jumpsBroken += jumps.count
            starts = (starts + jumps).sorted()
        }
        return Route(points: points, splits: RouteMetrics.splits(of: points, segmentStarts: starts),
                     metadata: RouteMetadata(name: path.name, calories: path.calories, distance: path.distance), segmentStarts: starts)
    }

    /// Interpolates by index between the nearest timed neighbours; holds the first and
    /// last known times at the ends.
    static func fillMissingTimes(_ points: inout [TrackPoint], timed: [Int]) {
        guard let first = timed.first, let last = timed.last else { return }
        for i in 0..<first { points[i].timestamp = points[first].timestamp }
        for i in (last + 1)..<points.count { points[i].timestamp = points[last].timestamp }
        for (a, b) in zip(timed, timed.dropFirst()) where b > a + 1 {
            let start = points[a].timestamp.timeIntervalSince1970
            let span = points[b].timestamp.timeIntervalSince1970 - start
            for i in (a + 1)..<b {
                let seconds = start + span * Double(i - a) / Double(b - a)
                points[i].timestamp = Date(timeIntervalSince1970: seconds)
            }
        }
    }

    /// Steps between two really timed points that are a gap or an impossible jump.
    static func jumpIndices(_ points: [TrackPoint], hasTime: [Bool], existing: Set<Int>,
                            options: GPXImportOptions) -> [Int] {
        var result: [Int] = []
        for i in points.indices.dropFirst() where !existing.contains(i) && hasTime[i] && hasTime[i - 1] {
            let seconds = points[i].timestamp.timeIntervalSince(points[i - 1].timestamp)
            if seconds > options.maximumGap {
                result.append(i)
                continue
            }
            let metres = Geodesic.distance(points[i - 1].coordinate, points[i].coordinate)
            guard metres > options.minimumJump else { continue }
            if seconds <= 0 || metres / seconds > options.maximumSpeed { result.append(i) }
        }
        return result
    }
}
