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
/// The file is streamed: memory grows with the points kept, not with the file's text,
/// and ``GPXImportOptions/limits`` bounds the points, names and values kept. A
/// malformed file (truncated, a tag left open, an undeclared prefix, a number that is
/// not an XML Schema decimal, a date the calendar does not have, a DOCTYPE declaring
/// entities) or one past a limit throws ``RouteLogError/Code/invalidArgument`` with the
/// line and column, and nothing from that file is returned or saved.
///
/// ```swift
/// let result = try GPXImporter.read(contentsOf: url)
/// for note in result.report.notes { print(note) }
/// ```
public enum GPXImporter {
    /// Reads a GPX file from disk.
    /// - Throws: ``RouteLogError`` `.notFound` when the file cannot be read,
    ///   `.invalidArgument` with line and column when it is not valid GPX or passes a
    ///   limit of ``GPXImportOptions/limits``.
    public static func read(contentsOf url: URL, options: GPXImportOptions = .init()) throws -> GPXImport {
        try build(GPXReader.read(contentsOf: url, limits: options.limits), source: url.path, options: options)
    }

    /// Reads GPX held in memory; `source` names it in the report and in errors.
    /// - Throws: ``RouteLogError`` `.invalidArgument` with line and column when it is not
    ///   valid GPX.
    public static func read(data: Data, source: String = "GPX data",
                            options: GPXImportOptions = .init()) throws -> GPXImport {
        try build(GPXReader.read(data: data, source: source, limits: options.limits), source: source, options: options)
    }

    static func build(_ contents: consuming GPXContents, source: String,
                      options: GPXImportOptions) throws -> GPXImport {
        var report = GPXImportReport(source: source, version: contents.version ?? "1.1")
        report.waypointsSkipped = contents.waypoints
        report.unknownExtensionsSkipped = contents.unknownExtensions
        report.emptyPathsSkipped = contents.pathsWithoutPoints
        report.emptySegmentsSkipped = contents.segmentsOfPathsWithoutPoints
        let hasTrackPoints = contents.paths.contains { !$0.isPlannedRoute && !$0.isEmpty }
        var routes: [Route] = []
        // Paths are moved out one by one, and each path's columns are freed as its
        // points are made, so the file's points are never held twice over.
        var paths = contents.paths
        contents.paths = []
        var splitsInFile = 0
        for index in paths.indices {
            var path = GPXPath(isPlannedRoute: false)
            swap(&path, &paths[index])
            report.emptySegmentsSkipped += path.emptySegments
            if path.isPlannedRoute, hasTrackPoints, !options.importsPlannedRoutesBesideTracks {
                report.plannedRoutesSkipped += 1
                continue
            }
            let route = makeRoute(&path, fileTime: contents.fileTime, options: options, report: &report)
            let metres = RouteMetrics.distance(of: route.points, segmentStarts: route.segmentStarts)
            let splitCount = ImportLimits.splitCount(metres: metres)
            guard splitCount <= Double(options.limits.splitsPerRoute) else {
                throw RouteLogError(.invalidArgument,
                                    "GPX refused: route \(routes.count + 1) of the file (path \(path.placeInFile), counting "
                                        + "tracks and routes without points) is \(Int(metres / 1000)) km long, "
                                        + "which makes more than \(ImportLimits.grouped(options.limits.splitsPerRoute)) "
                                        + "kilometre and mile splits (ImportLimits.splitsPerRoute); nothing from this "
                                        + "file was imported", path: source)
            }
            guard options.limits.admitSplits(Int(splitCount), into: &splitsInFile) else {
                throw RouteLogError(.invalidArgument,
                                    "GPX refused: with route \(routes.count + 1) of the file (path \(path.placeInFile)), "
                                        + "its routes make more than \(ImportLimits.grouped(options.limits.splitsPerFile)) "
                                        + "kilometre and mile splits together (ImportLimits.splitsPerFile); nothing from "
                                        + "this file was imported", path: source)
            }
            var withSplits = route
            withSplits.splits = RouteMetrics.splits(of: route.points, segmentStarts: route.segmentStarts)
            routes.append(withSplits)
        }
        report.routeCount = routes.count
        report.pointCount = routes.reduce(0) { $0 + $1.points.count }
        return GPXImport(routes: routes, report: report)
    }

    /// The route of one path, without splits: times filled in as ``GPXImportOptions``
    /// says, segment starts and jumps broken.
    static func makeRoute(_ path: inout GPXPath, fileTime: Date?, options: GPXImportOptions,
                          report: inout GPXImportReport) -> Route {
        let hasTime = path.times.map { !$0.isNaN }
        var times = path.times
        let timedCount = hasTime.reduce(0) { $0 + ($1 ? 1 : 0) }
        if timedCount == 0 {
            report.untimedRoutes += 1
            let date = fileTime ?? options.untimedDate
            report.untimedRoutesDate = date
            times = Array(repeating: date.timeIntervalSince1970, count: times.count)
        } else if timedCount < times.count {
            report.interpolatedTimes += times.count - timedCount
            fillMissingTimes(&times, hasTime: hasTime)
        }
        let points = path.takePoints(times: times)
        var starts = path.segmentStarts
        if options.breaksJumps, timesAdvance(times, hasTime: hasTime) {
            let jumps = jumpIndices(points, hasTime: hasTime, existing: Set(starts), options: options)
            report.jumpsBroken += jumps.count
            starts = (starts + jumps).sorted()
        }
        var metadata = RouteMetadata(name: path.name, calories: path.calories, distance: path.distance)
        metadata.activity = path.activity
        return Route(points: points, metadata: metadata, segmentStarts: starts)
    }

    /// Whether two of the file's own times differ. A path whose times never change (no
    /// time at all, or one time on every point, as an exported planned route has) says
    /// nothing about speed, so the jump rule has nothing to judge.
    static func timesAdvance(_ times: [Double], hasTime: [Bool]) -> Bool {
        var first: Double?
        for i in times.indices where hasTime[i] {
            guard let known = first else {
                first = times[i]
                continue
            }
            if times[i] != known { return true }
        }
        return false
    }

    /// Interpolates by index between the nearest timed neighbours; holds the first and
    /// last known times at the ends.
    static func fillMissingTimes(_ times: inout [Double], hasTime: [Bool]) {
        guard let first = hasTime.firstIndex(of: true), let last = hasTime.lastIndex(of: true) else { return }
        for i in 0..<first { times[i] = times[first] }
        for i in (last + 1)..<times.count { times[i] = times[last] }
        var previous = first
        // One timed point: first == last, and there is nothing between to interpolate.
        for b in stride(from: first + 1, through: last, by: 1) where hasTime[b] {
            if b > previous + 1 {
                let start = times[previous], span = times[b] - start
                for i in (previous + 1)..<b { times[i] = start + span * Double(i - previous) / Double(b - previous) }
            }
            previous = b
        }
    }

    /// Steps between two points with the file's own times that are a gap or an
    /// impossible jump.
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
