import Foundation

/// What one GPX file gave and what was left out, for a person to read.
public struct GPXImportReport: Sendable, Equatable {
    /// The file (or the name given for in-memory data).
    public var source: String
    /// The GPX version the file declares ("1.0" or "1.1").
    public var version: String
    /// Ids of the saved routes, in file order (empty when only read, not saved).
    public var routeIDs: [RouteID] = []
    /// Routes made from the file.
    public var routeCount = 0
    /// Points in those routes.
    public var pointCount = 0
    /// `<wpt>` elements: single places, not paths, so not imported.
    public var waypointsSkipped = 0
    /// `<trk>`/`<rte>` elements without a single point.
    public var emptyPathsSkipped = 0
    /// `<rte>` paths left out because the file also has tracks.
    public var plannedRoutesSkipped = 0
    /// `<trkseg>` elements without a point.
    public var emptySegmentsSkipped = 0
    /// Extension elements RouteLog does not read (temperature, pressure, display colour...).
    public var unknownExtensionsSkipped = 0
    /// Routes with no time at all, given the file's or the default date.
    public var untimedRoutes = 0
    /// The date every point of those routes was given (the file's own time, else
    /// ``GPXImportOptions/untimedDate``); nil when every route had times.
    public var untimedRoutesDate: Date?
    /// Points without a time in routes where other points had one (interpolated).
    public var interpolatedTimes = 0
    /// Steps turned into segment breaks (gaps in time, impossible jumps).
    public var jumpsBroken = 0

    /// Creates an empty report.
    public init(source: String, version: String) {
        self.source = source
        self.version = version
    }

    /// One line per thing worth saying, such as "18 waypoints skipped (RouteLog stores
    /// paths, not places)". Empty when everything in the file was imported as is.
    public var notes: [String] {
        var lines: [String] = []
        func add(_ count: Int, _ text: String) { if count > 0 { lines.append("\(count) \(text)") } }
        add(waypointsSkipped, "waypoint(s) skipped (RouteLog stores paths, not places)")
        add(emptyPathsSkipped, "track(s)/route(s) without points skipped")
        add(plannedRoutesSkipped, "planned route(s) <rte> skipped because the file has tracks")
        add(emptySegmentsSkipped, "empty segment(s) skipped")
        add(unknownExtensionsSkipped, "unknown extension element(s) skipped")
        if let date = untimedRoutesDate {
            add(untimedRoutes, "route(s) without any time: every point dated \(ISO8601Time.format(date))")
        }
        add(interpolatedTimes, "point(s) without a time given one interpolated from their neighbours")
        add(jumpsBroken, "time gap(s) or jump(s) turned into segment breaks")
        if routeCount == 0 { lines.append("no track or route with points: nothing imported") }
        return lines
    }

    /// "file.gpx: 2 routes, 1,234 points" and the notes, on one line each.
    public var summaryLine: String {
        "\(source): \(routeCount) route(s), \(pointCount) point(s)"
    }
}

/// The routes read from one GPX file and the report of what was skipped.
public struct GPXImport: Sendable, Equatable {
    /// One route per `<trk>` with points (segments joined, joins kept in
    /// ``Route/segmentStarts``), or per `<rte>` in a file without tracks. Splits are
    /// filled in; points are as read (the store quantizes them when saving).
    public var routes: [Route]
    /// What was read and what was skipped.
    public var report: GPXImportReport
}

/// The result of importing one file of a batch: its report, or why nothing from it was
/// saved.
public struct GPXFileOutcome: Sendable {
    /// The file.
    public var file: URL
    /// The report, or the error that left the store unchanged for this file.
    public var result: Result<GPXImportReport, RouteLogError>
}
