import Foundation
import RouteLog

/// One way of storing routes, driven the same way as every other by ``EngineSession``.
///
/// Every engine grows the same routes, with the same durability, in the same run.
protocol StorageEngine: AnyObject {
    /// Puts the engine in durable or buffered mode before a window of saves, so that
    /// switching (RouteLog reopens its store) is not counted in a save.
    func prepare(durable: Bool) throws
    /// Saves one route. In durable mode it returns only once the route would survive a
    /// power loss (fdatasync or the engine's equivalent).
    func save(_ route: Route) throws
    /// Adds routes as fast as the engine allows, without syncing: how a store is grown
    /// between checkpoints. The state it leaves equals what one save per route leaves.
    func fill(_ routes: [FillRoute]) throws
    /// Closes the store (SQLite checkpoints its WAL here).
    func close() throws
    /// Opens the store again, ready to list and load.
    func open() throws
    /// Reads every route's summary; returns how many.
    func listSummaries() throws -> Int
    /// Computes totals per week (weeks start on Monday); returns how many weeks.
    func weeklyTotals() throws -> Int
    /// Loads the `ordinal`th route saved (0-based), every point; returns its point count.
    func loadRoute(ordinal: Int) throws -> Int
    /// Bytes of every file the store is made of.
    var diskBytes: Int64 { get }
    /// False for the bare append baseline, which has no index to list or load from.
    var isQueryable: Bool { get }
}

/// An engine that stores RouteLog's bytes: the runner encodes each route before the
/// clock starts and hands the bytes over here.
protocol PreEncodedSaves: AnyObject {
    var pending: EncodedRoute? { get set }
}

/// The engines this benchmark knows, in the order they run and are printed.
enum EngineKind: String, CaseIterable, Codable, Sendable {
    case routeLog = "routelog"
    case sqliteBlob = "sqlite-blob"
    case coreDataLayout = "sqlite-coredata"
    case keyedArchive = "keyed-archive"
    case appendFile = "append-fdatasync"

    var title: String {
        switch self {
        case .routeLog: "RouteLog"
        case .sqliteBlob: "SQLite + RouteLog blob"
        case .coreDataLayout: "SQLite, Core Data layout"
        case .keyedArchive: "Keyed archive"
        case .appendFile: "write+fdatasync (limit)"
        }
    }

    var shortTitle: String {
        switch self {
        case .routeLog: "RouteLog"
        case .sqliteBlob: "SQLite blob"
        case .coreDataLayout: "Core Data layout"
        case .keyedArchive: "Keyed archive"
        case .appendFile: "append+fdatasync"
        }
    }

    func make(directory: URL) throws -> any StorageEngine {
        switch self {
        case .routeLog: try RouteLogEngine(directory: directory)
        case .sqliteBlob: try SQLiteBlobEngine(directory: directory)
        case .coreDataLayout: try CoreDataLayoutEngine(directory: directory)
        case .keyedArchive: try KeyedArchiveEngine(directory: directory)
        case .appendFile: try AppendFileEngine(directory: directory)
        }
    }
}

/// A route that grows a store, with RouteLog's encoding of its points already made
/// (fill routes repeat a small pool, so each is encoded once).
struct FillRoute {
    /// The pool walk, at its own dates.
    var base: Route
    /// RouteLog's encoding of the pool walk.
    var encoded: EncodedRoute
    /// The pool walk's summary fields, at its own dates.
    var baseSummary: SummaryFields
    /// Seconds added to every timestamp of the pool walk.
    var shift: TimeInterval = 0

    init(_ route: Route) throws {
        base = route
        encoded = try EncodedRoute(route)
        baseSummary = SummaryFields(route)
    }

    /// The route this fill stands for: the pool walk moved by `shift`. Made on demand,
    /// since the baselines that store encoded bytes need only its summary.
    var route: Route {
        var route = base
        route.points = base.points.map {
            var p = $0
            p.timestamp = p.timestamp.addingTimeInterval(shift)
            return p
        }
        return route
    }

    var summary: SummaryFields {
        var fields = baseSummary
        fields.startDate = fields.startDate.addingTimeInterval(shift)
        return fields
    }
}

/// What the baselines keep per route for the list screen, computed at save time as
/// RouteLog computes its own.
struct SummaryFields {
    var startDate: Date
    var duration: Double
    var distance: Double
    var calories: Double
    var pointCount: Int
    var south: Double, west: Double, north: Double, east: Double
    var start: Coordinate, end: Coordinate
    var name: String?

    init(_ route: Route) {
        let points = route.points
        let first = points[0], last = points[points.count - 1]
        startDate = first.timestamp
        duration = max(0, last.timestamp.timeIntervalSince(first.timestamp))
        distance = route.metadata.distance
            ?? RouteMetrics.distance(of: points, segmentStarts: route.segmentStarts)
        calories = route.metadata.calories ?? 0
        pointCount = points.count
        south = first.latitude; north = first.latitude; west = first.longitude; east = first.longitude
        for p in points {
            south = min(south, p.latitude); north = max(north, p.latitude)
            west = min(west, p.longitude); east = max(east, p.longitude)
        }
        start = first.coordinate
        end = last.coordinate
        name = route.metadata.name
    }

    func summary(id: UInt64) -> RouteSummary {
        RouteSummary(id: RouteID(id), startDate: startDate, duration: duration, distance: distance,
                     calories: calories, pointCount: pointCount,
                     boundingBox: BoundingBox(southWest: Coordinate(latitude: south, longitude: west),
                                              northEast: Coordinate(latitude: north, longitude: east)),
                     startCoordinate: start, endCoordinate: end, name: name)
    }
}

/// The calendar every engine groups weeks in, so that they all do the same work.
let benchmarkCalendar: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
}()
