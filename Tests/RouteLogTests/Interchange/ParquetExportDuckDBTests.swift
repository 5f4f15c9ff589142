import Foundation
import Testing
@testable import RouteLog

/// DuckDB (PyPI `duckdb`) queries the GeoParquet export: totals, weekly totals, a
/// bounding-box search through the covering columns, and a month-partitioned export
/// read as one Hive-partitioned dataset.
@Suite(.tags(.externalReader), .enabled(if: PythonReaders.available("duckdb"), "needs duckdb in .build/pyenv (make pyenv)"))
struct ParquetExportDuckDBTests {
    /// Runs the query in argv[1] with the parameters in argv[2:] (a JSON list) and prints
    /// the rows as JSON, every value as text (doubles in repr, which round-trips).
    static let query = #"""
    import sys, json, duckdb
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    rows = con.execute(sys.argv[1], json.loads(sys.argv[2])).fetchall()
    print(json.dumps([[None if v is None else repr(v) if isinstance(v, float) else str(v) for v in row] for row in rows]))
    """#

    func rows(_ sql: String, _ parameters: [String] = []) throws -> [[String?]] {
        let text = String(decoding: try JSONSerialization.data(withJSONObject: parameters), as: UTF8.self)
        let json = try #require(try ParquetFixtures.json(Self.query, [sql, text]) as? [[Any]])
        return json.map { $0.map { $0 as? String } }
    }

    func close(_ a: String?, _ b: Double, _ what: String) {
        guard let a, let value = Double(a) else {
            Issue.record("\(what): DuckDB gave \(a ?? "null")")
            return
        }
        // DuckDB adds in its own order; the store adds in start order.
        #expect(abs(value - b) <= 1e-9 * max(1, abs(b)), "\(what): \(value) vs \(b)")
    }

    func exported(_ kind: ParquetFixtures.StoreKind, _ variant: ParquetFixtures.Variant,
                  geometry: ParquetExportOptions.Geometry = .preview,
                  in directory: TemporaryDirectory) throws -> (RouteStore, URL) {
        let store = try ParquetFixtures.store(kind, in: directory)
        let out = directory.url.appendingPathComponent("export")
        var options = variant.options
        options.geometry = geometry
        try ParquetExporter.export(store, to: out, options: options)
        return (store, out)
    }

    @Test(arguments: ParquetFixtures.StoreKind.allCases)
    func countAndTotalDistanceEqualTheStore(_ kind: ParquetFixtures.StoreKind) throws {
        let directory = TemporaryDirectory()
        let (store, out) = try exported(kind, .compressed, in: directory)
        let routes = out.appendingPathComponent("routes.parquet").path
        let answer = try rows("SELECT count(*), sum(distance) FROM read_parquet(?)", [routes])
        #expect(try answer.first?.first == String(store.count))
        close(answer.first?[1], try store.totals().distance, "sum(distance)")
        let points = out.appendingPathComponent("points.parquet").path
        let perRoute = try rows("SELECT route_id, count(*) FROM read_parquet(?) GROUP BY route_id ORDER BY route_id", [points])
        let expected = try store.summaries().sorted { $0.id < $1.id }.map { [String($0.id.rawValue), String($0.pointCount)] }
        #expect(perRoute.map { $0.compactMap { $0 } } == expected)
        // DuckDB names the codec as Parquet does: LZ4_RAW.
        let codecs = try rows("SELECT DISTINCT compression FROM parquet_metadata(?)", [points])
        #expect(codecs == [["LZ4_RAW"]])
    }

    @Test(arguments: [ParquetFixtures.StoreKind.demoWalks, .fixtureTracks])
    func weeklyTotalsEqualTheStoresWeeks(_ kind: ParquetFixtures.StoreKind) throws {
        let directory = TemporaryDirectory()
        let (store, out) = try exported(kind, .compressed, in: directory)
        var utc = Calendar(identifier: .gregorian)
        utc.firstWeekday = 2  // DuckDB's weeks start on Monday
        utc.timeZone = TimeZone(identifier: "UTC")!
        let weeks = try store.weeklyTotals(calendar: utc)
        let answer = try rows("""
            SELECT epoch_ms(date_trunc('week', start_time)), count(*), sum(distance), sum(duration), coalesce(sum(calories), 0)
            FROM read_parquet(?) GROUP BY 1 ORDER BY 1 DESC
            """, [out.appendingPathComponent("routes.parquet").path])
        #expect(answer.count == weeks.count)
        for (row, week) in zip(answer, weeks) {
            let start = Int64(week.weekStart.timeIntervalSince1970 * 1000)
            #expect(row[0] == String(start), "week start")
            #expect(row[1] == String(week.totals.routeCount), "routes in the week of \(week.weekStart)")
            close(row[2], week.totals.distance, "distance in the week of \(week.weekStart)")
            close(row[3], week.totals.duration, "duration in the week of \(week.weekStart)")
            close(row[4], week.totals.calories, "calories in the week of \(week.weekStart)")
        }
    }

    @Test func theBoundingBoxColumnsFindTheRoutesThroughAnArea() throws {
        let directory = TemporaryDirectory()
        let (store, out) = try exported(.demoWalks, .compressed, in: directory)
        let (west, south, east, north) = (9.17, 45.45, 9.20, 45.48)
        let answer = try rows("""
            SELECT route_id FROM read_parquet(?)
            WHERE bbox.xmin <= ? AND bbox.xmax >= ? AND bbox.ymin <= ? AND bbox.ymax >= ? ORDER BY route_id
            """, [out.appendingPathComponent("routes.parquet").path, "\(east)", "\(west)", "\(north)", "\(south)"])
        let expected = try store.summaries().filter {
            $0.boundingBox.southWest.longitude <= east && $0.boundingBox.northEast.longitude >= west
                && $0.boundingBox.southWest.latitude <= north && $0.boundingBox.northEast.latitude >= south
        }.map { String($0.id.rawValue) }.sorted { Int($0)! < Int($1)! }
        #expect(try !expected.isEmpty && expected.count < store.count, "the area holds some routes, not all")
        #expect(answer.map { $0[0] ?? "" } == expected)
    }

    @Test(.enabled(if: ParquetFixtures.duckDBHasGeometry, "needs DuckDB 2.0 or later"),
          arguments: [ParquetExportOptions.Geometry.preview, .full])
    func duckDBReadsTheGeometryAsCRS84GeometryWithTheStoredCoordinates(_ geometry: ParquetExportOptions.Geometry) throws {
        let directory = TemporaryDirectory()
        let (store, out) = try exported(.everyChannel, .compressed, geometry: geometry, in: directory)
        let answer = try rows("SELECT route_id, typeof(geometry), ST_AsText(geometry) FROM read_parquet(?) ORDER BY route_id",
                              [out.appendingPathComponent("routes.parquet").path])
        #expect(try answer.count == store.count)
        for row in answer {
            let id = try #require(row[0].flatMap { UInt64($0) }.map(RouteID.init))
            #expect(row[1] == "GEOMETRY('OGC:CRS84')", "DuckDB takes the CRS from the geo metadata")
            // The WKT's numbers are the stored coordinates, x = longitude first.
            let wkt = row[2] ?? ""
            let numbers = wkt.split(whereSeparator: { " ,()".contains($0) }).compactMap { Double($0) }
            let route = try store.route(id)
            if geometry == .preview, let preview = try store.summary(id).preview {
                // The stored preview, 1e-5 degree, as one line (a point for one point).
                let expected = preview.coordinates.flatMap { [$0.longitude, $0.latitude] }
                #expect(zip(numbers, expected).allSatisfy { abs($0 - $1) < 1e-9 } && numbers.count == expected.count,
                        "route \(id): \(wkt.prefix(60))")
                #expect(wkt.hasPrefix(preview.count == 1 ? "POINT" : "LINESTRING"))
                continue
            }
            var expected: [Double] = []
            for range in RouteSegments.ranges(of: route) {
                let line = route.points[range].flatMap { [$0.longitude, $0.latitude] }
                expected += range.count == 1 && route.points.count > 1 ? line + line : line
            }
            #expect(numbers == expected, "route \(id): \(wkt.prefix(60))")
            #expect(wkt.hasPrefix(route.points.count == 1 ? "POINT" : route.segmentStarts.isEmpty ? "LINESTRING" : "MULTILINESTRING"))
        }
    }

    @Test(arguments: ParquetFixtures.StoreKind.allCases)
    func aMonthPartitionedExportReadsAsOneDataset(_ kind: ParquetFixtures.StoreKind) throws {
        let directory = TemporaryDirectory()
        let (store, out) = try exported(kind, .partitioned, in: directory)
        let routes = ParquetFixtures.glob(out, "routes.parquet", partitioned: true)
        let points = ParquetFixtures.glob(out, "points.parquet", partitioned: true)
        let total = try rows("SELECT count(*), sum(distance) FROM read_parquet(?, hive_partitioning = true)", [routes])
        #expect(try total.first?.first == String(store.count))
        close(total.first?[1], try store.totals().distance, "sum(distance)")

        let months = DateFormatter()
        months.dateFormat = "yyyy-MM"
        months.locale = Locale(identifier: "en_US_POSIX")
        months.timeZone = TimeZone(identifier: "UTC")
        let expected = try Dictionary(grouping: store.summaries(), by: { months.string(from: $0.startDate) })
            .map { [$0.key, String($0.value.count)] }.sorted { $0[0] < $1[0] }
        let perMonth = try rows("""
            SELECT start_month, count(*) FROM read_parquet(?, hive_partitioning = true) GROUP BY 1 ORDER BY 1
            """, [routes])
        #expect(perMonth.map { $0.compactMap { $0 } } == expected)
        // Every point is in the partition of its route.
        let joined = try rows("""
            SELECT count(*) FROM read_parquet(?, hive_partitioning = true) p
            JOIN read_parquet(?, hive_partitioning = true) r ON p.route_id = r.route_id AND p.start_month = r.start_month
            """, [points, routes])
        #expect(try joined.first?.first == String(store.summaries().reduce(0) { $0 + $1.pointCount }))
    }
}
