import Foundation

/// What one imported file (GPX, FIT or TCX) gave and what was left out, for a person
/// to read.
public struct RouteImportReport: Sendable, Equatable {
    /// The file (or the name given for in-memory data).
    public var source: String
    /// The file's format, as its content showed.
    public var format: RouteFileKind
    /// The version the file declares: GPX "1.0" or "1.1", the FIT protocol ("2.0"),
    /// TCX "2".
    public var version: String
    /// Ids of the saved routes, in file order (empty when only read, not saved).
    public var routeIDs: [RouteID] = []
    /// Routes made from the file, saved or not (see ``routeIDs`` and ``duplicates``).
    public var routeCount = 0
    /// Points in those routes.
    public var pointCount = 0
    /// Points in the routes saved (``routeIDs``): ``pointCount`` less those of the
    /// routes left out as ``duplicates``; 0 when only read, not saved.
    public var savedPointCount = 0
    /// For each route, the sport as the file names it (FIT: "running", "cycling+running"
    /// for a multisport file; TCX: "Biking"), nil when the file names none.
    public var sports: [String?] = []
    /// For each route, the kind of activity that sport is in RouteLog's words: "walk",
    /// "run", "hike", "ride", "swim", "other", or the sport's own name.
    public var activities: [String?] = []
    /// GPX `<wpt>` elements and TCX `<CoursePoint>`s: single places, not paths, so not imported.
    public var waypointsSkipped = 0
    /// `<trk>`/`<rte>` elements (GPX), Activities or Courses (TCX) without a single point.
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
    /// ``RouteImportOptions/untimedDate``); nil when every route had times.
    public var untimedRoutesDate: Date?
    /// Points without a time in routes where other points had one (interpolated).
    public var interpolatedTimes = 0
    /// Steps turned into segment breaks (gaps in time, impossible jumps).
    public var jumpsBroken = 0
    /// FIT records and TCX Trackpoints without a latitude and longitude, skipped.
    public var pointsWithoutPositionSkipped = 0
    /// Power readings (FIT `power`, TCX `Watts`) of imported points: RouteLog has no
    /// power column, so they are dropped.
    public var powerReadingsDropped = 0
    /// FIT lap messages and TCX `<Lap>`s read. Laps are not stored: RouteLog's splits
    /// are one per kilometre and mile, computed from the points.
    public var lapsRead = 0
    /// Segment breaks the file itself marks: FIT timer stops, a TCX `<Track>` after the
    /// first in a lap or course.
    public var pausesKept = 0
    /// FIT developer field values skipped (their meaning is per app).
    public var developerFieldsSkipped = 0
    /// FIT files in the file (more than 1 when several are chained back to back).
    public var chainedFiles = 0
    /// FIT files of a chain without a positioned record (settings, an indoor session).
    public var filesWithoutPoints = 0
    /// CRC mismatches imported anyway (``RouteImportOptions/importsDespiteBadCRC``).
    public var ignoredCRCMismatches: [String] = []
    /// Routes of the file left out because the store already held them, or because an
    /// earlier route of the same file was the same (``RouteImportOptions/allowsDuplicates``).
    public var duplicates: [DuplicateRoute] = []

    /// Creates an empty report for a GPX file.
    public init(source: String, version: String) {
        self.init(source: source, format: .gpx, version: version)
    }

    /// Creates an empty report.
    public init(source: String, format: RouteFileKind, version: String) {
        self.source = source
        self.format = format
        self.version = version
    }

    /// One line per thing worth saying, such as "18 waypoints skipped (RouteLog stores
    /// paths, not places)". Empty when everything in the file was imported as is.
    ///
    /// Bounded whatever the file holds: the sports are listed once each with how many
    /// routes had them, and past ``notesListedInFull`` lines of one kind (sports,
    /// duplicates, CRC mismatches) the rest are counted on one line; ``sports``,
    /// ``activities``, ``duplicates`` and ``ignoredCRCMismatches`` keep them all.
    public var notes: [String] {
        var lines: [String] = []
        func add(_ count: Int, _ text: String) { if count > 0 { lines.append("\(count) \(text)") } }
        let named = zip(sports, activities).compactMap { sport, activity in
            sport.map { "\($0)" + (activity.map { " (\($0))" } ?? "") }
        }
        if !named.isEmpty { lines.append("sport: " + Self.tally(named)) }
        if chainedFiles > 1 { lines.append("\(chainedFiles) FIT files chained in this file") }
        add(filesWithoutPoints, "FIT file(s) of the chain without a positioned record (settings, indoor)")
        add(waypointsSkipped, "waypoint(s) skipped (RouteLog stores paths, not places)")
        add(emptyPathsSkipped, format == .tcx ? "activity(ies)/course(s) without points skipped"
            : "track(s)/route(s) without points skipped")
        add(plannedRoutesSkipped, "planned route(s) <rte> skipped because the file has tracks")
        add(emptySegmentsSkipped, "empty segment(s) skipped")
        add(unknownExtensionsSkipped, "unknown extension element(s) skipped")
        add(pointsWithoutPositionSkipped, "point(s) without a position skipped")
        add(powerReadingsDropped, "power reading(s) dropped (RouteLog has no power column)")
        add(lapsRead, "lap(s) read, not stored (splits are per kilometre and mile, from the points)")
        add(pausesKept, "pause(s) in the recording kept as segment breaks")
        add(developerFieldsSkipped, "developer field value(s) skipped")
        if let date = untimedRoutesDate {
            add(untimedRoutes, "route(s) without any time: every point dated \(ISO8601Time.format(date))")
        }
        add(interpolatedTimes, "point(s) without a time given one interpolated from their neighbours")
        add(jumpsBroken, "time gap(s) or jump(s) turned into segment breaks")
        lines += Self.firstFew(ignoredCRCMismatches, more: "more file(s) imported despite a bad CRC") {
            "imported despite a bad CRC: " + $0
        }
        lines += Self.firstFew(duplicates, more: "more route(s) left out as duplicates") { $0.note }
        if routeCount == 0 {
            switch format {
            case .gpx: lines.append("no track or route with points: nothing imported")
            case .fit: lines.append("no record with a position: nothing imported")
            case .tcx: lines.append("no Trackpoint with a position: nothing imported")
            }
        }
        return lines
    }

    /// "file.gpx: 2 route(s), 1234 point(s)"; when routes were left out as duplicates,
    /// what was saved and what was skipped, apart: "file.gpx: 1 route(s), 413 point(s)
    /// imported; 1 duplicate(s) skipped".
    public var summaryLine: String {
        guard !duplicates.isEmpty else { return "\(source): \(routeCount) route(s), \(pointCount) point(s)" }
        return "\(source): \(routeIDs.count) route(s), \(savedPointCount) point(s) imported; \(duplicates.count) duplicate(s) skipped"
    }
}

/// A route of an imported file that was not saved because it was already there.
public struct DuplicateRoute: Sendable, Equatable {
    /// Its number among the file's routes, from 1: the routes with points, in file order,
    /// as ``RouteImport/routes`` holds them (every message of an import numbers routes
    /// this way; a GPX refusal adds the path's place counting those without points).
    public var routeNumber: Int
    /// The stored route it equals; nil when it repeats an earlier route of the same file.
    public var existingID: RouteID?
    /// The earlier route of the same file it repeats (numbered as ``routeNumber``), when
    /// ``existingID`` is nil.
    public var earlierRouteNumber: Int?

    /// "route 2 is already in the store as route 14: not imported again".
    public var note: String {
        if let existingID { return "route \(routeNumber) is already in the store as route \(existingID): not imported again" }
        return "route \(routeNumber) repeats route \(earlierRouteNumber ?? 0) of the file: not imported twice"
    }
}

/// The former name of ``RouteImportReport``, from when RouteLog imported only GPX.
public typealias GPXImportReport = RouteImportReport

/// The routes read from one file and the report of what was skipped.
public struct RouteImport: Sendable, Equatable {
    /// One route per GPX `<trk>` with points (segments joined, joins kept in
    /// ``Route/segmentStarts``) or per `<rte>` in a file without tracks; per FIT file
    /// (of a chain) with positioned records; per TCX Activity or Course with positioned
    /// Trackpoints. Splits are filled in; points are as read (the store quantizes them
    /// when saving).
    public var routes: [Route]
    /// What was read and what was skipped.
    public var report: RouteImportReport
}

/// The former name of ``RouteImport``.
public typealias GPXImport = RouteImport

/// The result of importing one file of a batch: its report, or why nothing from it was
/// saved.
public struct RouteFileOutcome: Sendable {
    /// The file.
    public var file: URL
    /// The report, or the error that left the store unchanged for this file.
    public var result: Result<RouteImportReport, RouteLogError>
}

/// The former name of ``RouteFileOutcome``.
public typealias GPXFileOutcome = RouteFileOutcome

extension RouteImportReport {
    /// Lines of one kind the notes list before counting the rest.
    public static let notesListedInFull = 5

    /// A line for each of the first ``notesListedInFull`` of `items`, then one line
    /// counting the others (whose lines are never made).
    static func firstFew<T>(_ items: [T], more: String, _ line: (T) -> String) -> [String] {
        guard items.count > notesListedInFull else { return items.map(line) }
        return items.prefix(notesListedInFull).map(line) + ["\(items.count - notesListedInFull) \(more)"]
    }

    /// Characters of a sport or activity name a note shows (a file may name one with
    /// tens of kilobytes); ``sports`` and ``activities`` keep them whole.
    static let nameShownInFull = 64

    /// Each name once, in the order first met, with its count when more than one route
    /// had it; past ``notesListedInFull`` names, the others counted: "running (3 routes),
    /// cycling".
    static func tally(_ names: [String]) -> String {
        var counts: [String: Int] = [:], order: [String] = []
        for name in names {
            if counts[name] == nil { order.append(name) }
            counts[name, default: 0] += 1
        }
        let shown = order.prefix(notesListedInFull).map { name in
            let text = name.count > nameShownInFull ? name.prefix(nameShownInFull) + "…" : name
            return counts[name]! > 1 ? "\(text) (\(counts[name]!) routes)" : text
        }
        let others = order.dropFirst(notesListedInFull).reduce(0) { $0 + counts[$1]! }
        return shown.joined(separator: ", ")
            + (others > 0 ? " and \(order.count - notesListedInFull) more (\(others) route(s))" : "")
    }
}
