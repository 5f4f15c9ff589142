import Foundation
import RouteLog

/// SQLite laid out as Core Data lays out a `Route` entity with a to-many, ordered
/// `locations` relationship: one ZROUTE row per route, one ZLOCATION row per point
/// (indexed on its route key), one ZSPLIT row per split, and Z_PRIMARYKEY bumped on
/// every save. WAL; synchronous=FULL when durable, OFF when buffered; one transaction
/// per save. Dates are seconds since 2001, as Core Data stores them.
final class CoreDataLayoutEngine: StorageEngine {
    private let path: String
    private var db: SQLiteConnection?
    private var statements: Statements?
    private var routeKeys: [Int64] = []
    private var nextRouteKey: Int64 = 1
    private var nextLocationKey: Int64 = 1
    private var nextSplitKey: Int64 = 1

    private struct Statements {
        let insertRoute, insertLocation, insertSplit, bumpKeys: SQLiteStatement
    }

    init(directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("Routes.sqlite").path
        try open()
        try db!.execute("""
            CREATE TABLE IF NOT EXISTS Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
            INSERT OR IGNORE INTO Z_PRIMARYKEY VALUES (1, 'Route', 0, 0), (2, 'Location', 0, 0), (3, 'Split', 0, 0);
            CREATE TABLE IF NOT EXISTS ZROUTE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER,
              ZPOINTCOUNT INTEGER, ZSTARTDATE TIMESTAMP, ZDURATION FLOAT, ZDISTANCE FLOAT, ZCALORIES FLOAT,
              ZMINLATITUDE FLOAT, ZMINLONGITUDE FLOAT, ZMAXLATITUDE FLOAT, ZMAXLONGITUDE FLOAT,
              ZSTARTLATITUDE FLOAT, ZSTARTLONGITUDE FLOAT, ZENDLATITUDE FLOAT, ZENDLONGITUDE FLOAT,
              ZNAME VARCHAR);
            CREATE INDEX IF NOT EXISTS ZROUTE_ZSTARTDATE_INDEX ON ZROUTE (ZSTARTDATE);
            CREATE TABLE IF NOT EXISTS ZLOCATION (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER,
              ZROUTE INTEGER, Z_FOK_ROUTE INTEGER, ZTIMESTAMP TIMESTAMP, ZLATITUDE FLOAT, ZLONGITUDE FLOAT,
              ZALTITUDE FLOAT, ZHORIZONTALACCURACY FLOAT, ZVERTICALACCURACY FLOAT, ZSPEED FLOAT, ZCOURSE FLOAT);
            CREATE INDEX IF NOT EXISTS ZLOCATION_ZROUTE_INDEX ON ZLOCATION (ZROUTE);
            CREATE TABLE IF NOT EXISTS ZSPLIT (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER,
              ZROUTE INTEGER, ZUNIT INTEGER, ZPOINTINDEX INTEGER, ZELAPSEDTIME FLOAT);
            CREATE INDEX IF NOT EXISTS ZSPLIT_ZROUTE_INDEX ON ZSPLIT (ZROUTE);
            """)
        try prepareStatements()
    }

    var isQueryable: Bool { true }
    var diskBytes: Int64 { ProcessStats.diskBytes(at: URL(fileURLWithPath: path).deletingLastPathComponent()) }

    func open() throws {
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
        db = connection
        if statements == nil, (try? connection.prepare("SELECT 1 FROM ZROUTE LIMIT 1")) != nil {
            try prepareStatements()
        }
    }

    private func prepareStatements() throws {
        guard let db else { return }
        statements = Statements(
            insertRoute: try db.prepare("""
                INSERT INTO ZROUTE VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """),
            insertLocation: try db.prepare("INSERT INTO ZLOCATION VALUES (?, 2, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
            insertSplit: try db.prepare("INSERT INTO ZSPLIT VALUES (?, 3, 1, ?, ?, ?, ?)"),
            bumpKeys: try db.prepare("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?"))
    }

    func close() throws {
        statements = nil
        try db?.close()
        db = nil
    }

    func prepare(durable: Bool) throws {
        try db!.execute(durable ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=OFF")
    }

    func save(_ route: Route) throws {
        try db!.execute("BEGIN IMMEDIATE")
        try insert(route)
        try bumpPrimaryKeys()
        try db!.execute("COMMIT")
    }

    func fill(_ routes: [FillRoute]) throws {
        try db!.execute("PRAGMA synchronous=OFF; BEGIN IMMEDIATE")
        for fill in routes { try insert(fill.route) }
        try bumpPrimaryKeys()
        try db!.execute("COMMIT")
    }

    private func insert(_ route: Route) throws {
        let s = statements!
        let fields = SummaryFields(route)
        let key = nextRouteKey
        nextRouteKey += 1
        s.insertRoute.bind(1, key)
        s.insertRoute.bind(2, Int64(fields.pointCount))
        s.insertRoute.bind(3, fields.startDate.timeIntervalSinceReferenceDate)
        s.insertRoute.bind(4, fields.duration)
        s.insertRoute.bind(5, fields.distance)
        s.insertRoute.bind(6, fields.calories)
        s.insertRoute.bind(7, fields.south)
        s.insertRoute.bind(8, fields.west)
        s.insertRoute.bind(9, fields.north)
        s.insertRoute.bind(10, fields.east)
        s.insertRoute.bind(11, fields.start.latitude)
        s.insertRoute.bind(12, fields.start.longitude)
        s.insertRoute.bind(13, fields.end.latitude)
        s.insertRoute.bind(14, fields.end.longitude)
        s.insertRoute.bind(15, fields.name)
        try s.insertRoute.step()
        s.insertRoute.reset()

        let insert = s.insertLocation
        for (order, point) in route.points.enumerated() {
            insert.bind(1, nextLocationKey)
            nextLocationKey += 1
            insert.bind(2, key)
            insert.bind(3, Int64(order))
            insert.bind(4, point.timestamp.timeIntervalSinceReferenceDate)
            insert.bind(5, point.latitude)
            insert.bind(6, point.longitude)
            insert.bind(7, point.altitude)
            insert.bind(8, point.horizontalAccuracy)
            insert.bind(9, point.verticalAccuracy)
            insert.bind(10, point.speed)
            insert.bind(11, point.course)
            try insert.step()
            insert.reset()
        }
        for split in route.splits {
            s.insertSplit.bind(1, nextSplitKey)
            nextSplitKey += 1
            s.insertSplit.bind(2, key)
            s.insertSplit.bind(3, Int64(split.unit.rawValue))
            s.insertSplit.bind(4, Int64(split.pointIndex))
            s.insertSplit.bind(5, split.elapsedTime)
            try s.insertSplit.step()
            s.insertSplit.reset()
        }
        routeKeys.append(key)
    }

    private func bumpPrimaryKeys() throws {
        let bump = statements!.bumpKeys
        for (entity, next) in [(1, nextRouteKey), (2, nextLocationKey), (3, nextSplitKey)] {
            bump.bind(1, next - 1)
            bump.bind(2, Int64(entity))
            try bump.step()
            bump.reset()
        }
    }

    private func summaries() throws -> [RouteSummary] {
        let query = try db!.prepare("""
            SELECT Z_PK, ZSTARTDATE, ZDURATION, ZDISTANCE, ZCALORIES, ZPOINTCOUNT, ZMINLATITUDE, ZMINLONGITUDE,
              ZMAXLATITUDE, ZMAXLONGITUDE, ZSTARTLATITUDE, ZSTARTLONGITUDE, ZENDLATITUDE, ZENDLONGITUDE, ZNAME
            FROM ZROUTE ORDER BY ZSTARTDATE, Z_PK
            """)
        var result: [RouteSummary] = []
        while try query.step() {
            result.append(query.summaryRow(startDate: Date(timeIntervalSinceReferenceDate: query.double(1))))
        }
        return result
    }

    func listSummaries() throws -> Int { try summaries().count }

    func weeklyTotals() throws -> Int { WeeklyTotals.group(try summaries(), calendar: benchmarkCalendar).count }

    func loadRoute(ordinal: Int) throws -> Int {
        let key = routeKeys[ordinal]
        let query = try db!.prepare("""
            SELECT ZTIMESTAMP, ZLATITUDE, ZLONGITUDE, ZALTITUDE, ZHORIZONTALACCURACY, ZVERTICALACCURACY,
              ZSPEED, ZCOURSE FROM ZLOCATION WHERE ZROUTE = ? ORDER BY Z_FOK_ROUTE
            """)
        query.bind(1, key)
        var points: [TrackPoint] = []
        while try query.step() {
            points.append(TrackPoint(
                latitude: query.double(1), longitude: query.double(2),
                timestamp: Date(timeIntervalSinceReferenceDate: query.double(0)),
                altitude: query.optionalDouble(3), horizontalAccuracy: query.optionalDouble(4),
                verticalAccuracy: query.optionalDouble(5), speed: query.optionalDouble(6),
                course: query.optionalDouble(7)))
        }
        let splitQuery = try db!.prepare("SELECT ZUNIT, ZPOINTINDEX, ZELAPSEDTIME FROM ZSPLIT WHERE ZROUTE = ?")
        splitQuery.bind(1, key)
        var splits: [Split] = []
        while try splitQuery.step() {
            splits.append(Split(unit: Split.Unit(rawValue: UInt8(splitQuery.int64(0))) ?? .kilometre,
                                pointIndex: Int(splitQuery.int64(1)), elapsedTime: splitQuery.double(2)))
        }
        let route = Route(points: points, splits: splits)
        return route.points.count
    }
}
