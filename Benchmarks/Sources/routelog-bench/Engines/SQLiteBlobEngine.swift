import Foundation
import RouteLog

/// SQLite with one row per route: the summary columns in `route` (indexed on start
/// date) and RouteLog's own encoded point block in `route_points`, kept in a separate
/// table so that listing never walks blob pages. The strongest honest alternative to
/// RouteLog: the same compact bytes, SQLite's B-tree and WAL around them. WAL;
/// synchronous=FULL when durable, OFF when buffered; one transaction per save.
///
/// A timed save encodes the points with RouteLog's public codec
/// (`RouteCodec.encodedPoints(of:)`, which validates them as a RouteLog save does)
/// inside the clock, and loading one route decodes them: the same work RouteLog does.
final class SQLiteBlobEngine: StorageEngine {
    private let path: String
    private var db: SQLiteConnection?
    private var insertRoute: SQLiteStatement?
    private var insertPoints: SQLiteStatement?
    private var ids: [Int64] = []

    init(directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("routes.sqlite").path
        let connection = try SQLiteConnection(path: path)
        try connection.execute("""
            PRAGMA journal_mode=WAL;
            CREATE TABLE IF NOT EXISTS route (id INTEGER PRIMARY KEY, start_date REAL NOT NULL,
              duration REAL, distance REAL, calories REAL, point_count INTEGER,
              south REAL, west REAL, north REAL, east REAL,
              start_latitude REAL, start_longitude REAL, end_latitude REAL, end_longitude REAL,
              name TEXT);
            CREATE INDEX IF NOT EXISTS route_start_date ON route (start_date);
            CREATE TABLE IF NOT EXISTS route_points (id INTEGER PRIMARY KEY, layout BLOB, points BLOB NOT NULL);
            """)
        try connection.close()
        try open()
    }

    var isQueryable: Bool { true }
    var diskBytes: Int64 { ProcessStats.diskBytes(at: URL(fileURLWithPath: path).deletingLastPathComponent()) }

    func open() throws {
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
        insertRoute = try connection.prepare(
            "INSERT INTO route VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        insertPoints = try connection.prepare("INSERT INTO route_points VALUES (?, ?, ?)")
        db = connection
    }

    func close() throws {
        insertRoute = nil
        insertPoints = nil
        try db?.close()
        db = nil
    }

    func prepare(durable: Bool) throws {
        try db!.execute(durable ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=OFF")
    }

    func save(_ route: Route) throws {
        let points = try RouteCodec.encodedPoints(of: route.points)
        try db!.execute("BEGIN IMMEDIATE")
        try insert(SummaryFields(route), points: points, layout: Self.layout(route))
        try db!.execute("COMMIT")
    }

    /// Splits and segment starts as little-endian integers: count, then unit, point
    /// index and elapsed milliseconds for each split; count, then each start.
    static func layout(_ route: Route) -> [UInt8] {
        var bytes: [UInt8] = []
        func put(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        put(UInt32(route.splits.count))
        for split in route.splits {
            put(UInt32(split.unit.rawValue))
            put(UInt32(split.pointIndex))
            put(UInt32(clamping: Int((split.elapsedTime * 1000).rounded())))
        }
        put(UInt32(route.segmentStarts.count))
        for start in route.segmentStarts { put(UInt32(start)) }
        return bytes
    }

    /// Growth uses the pool's blobs, encoded once: the same bytes a save would write.
    func fill(_ routes: [FillRoute]) throws {
        try db!.execute("PRAGMA synchronous=OFF; BEGIN IMMEDIATE")
        for fill in routes { try insert(fill.summary, points: fill.encoded.points, layout: fill.encoded.layout) }
        try db!.execute("COMMIT")
    }

    private func insert(_ fields: SummaryFields, points: [UInt8], layout: [UInt8]) throws {
        let s = insertRoute!
        s.bind(1, fields.startDate.timeIntervalSince1970)
        s.bind(2, fields.duration)
        s.bind(3, fields.distance)
        s.bind(4, fields.calories)
        s.bind(5, Int64(fields.pointCount))
        s.bind(6, fields.south)
        s.bind(7, fields.west)
        s.bind(8, fields.north)
        s.bind(9, fields.east)
        s.bind(10, fields.start.latitude)
        s.bind(11, fields.start.longitude)
        s.bind(12, fields.end.latitude)
        s.bind(13, fields.end.longitude)
        s.bind(14, fields.name)
        try s.step()
        s.reset()
        let id = db!.lastInsertRowID
        let p = insertPoints!
        p.bind(1, id)
        p.bind(2, layout)
        p.bind(3, points)
        try p.step()
        p.reset()
        ids.append(id)
    }

    private func summaries() throws -> [RouteSummary] {
        let query = try db!.prepare("""
            SELECT id, start_date, duration, distance, calories, point_count, south, west, north, east,
              start_latitude, start_longitude, end_latitude, end_longitude, name
            FROM route ORDER BY start_date, id
            """)
        var result: [RouteSummary] = []
        while try query.step() {
            result.append(query.summaryRow(startDate: Date(timeIntervalSince1970: query.double(1))))
        }
        return result
    }

    func listSummaries() throws -> Int { try summaries().count }

    func weeklyTotals() throws -> Int { WeeklyTotals.group(try summaries(), calendar: benchmarkCalendar).count }

    func loadRoute(ordinal: Int) throws -> Int {
        let query = try db!.prepare("SELECT layout, points FROM route_points WHERE id = ?")
        query.bind(1, ids[ordinal])
        guard try query.step() else { throw BenchError("sqlite-blob: route \(ids[ordinal]) missing") }
        let layout = query.blob(0), points = try RouteCodec.points(decoding: query.blob(1))
        return layout.count + points.count
    }
}
