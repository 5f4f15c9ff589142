import Foundation
import Testing
@testable import RouteLog

/// Privacy zones on the GeoParquet export: the tables hold each route as the other
/// exporters would write it, trimmed at start and end, and nothing of a route wholly
/// inside a zone.
@Suite(.tags(.externalReader), .enabled(if: PythonReaders.available("pyarrow"), "needs pyarrow in .build/pyenv (make pyenv)"))
struct ParquetExportPrivacyTests {
    static let read = #"""
    import sys, json
    import pyarrow.parquet as pq
    routes = pq.read_table(sys.argv[1] + "/routes.parquet").to_pylist()
    points = pq.read_table(sys.argv[1] + "/points.parquet").to_pylist()
    print(json.dumps({
        "routes": [[str(r["route_id"]), r["point_count"], r["calories"]] for r in routes],
        "points": [[str(p["route_id"]), p["point_index"], p["latitude_e7"]] for p in points],
    }))
    """#

    @Test func aRouteStartingAtHomeLosesItsFirstPointsAndOneAtHomeIsLeftOut() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store("s.routelog"), options: .init(durability: .buffered))
        defer { try? store.close() }
        // 20 points 10 m apart going north from the zone's centre, and a route that never leaves it.
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let walk = (0..<20).map { TrackPoint(latitude: 47 + Double($0) * 0.00009, longitude: 8, timestamp: start + Double($0)) }
        let walkID = try store.save(Route(points: walk, metadata: RouteMetadata(calories: 50)))
        let home = (0..<5).map { TrackPoint(latitude: 47, longitude: 8 + Double($0) * 1e-6, timestamp: start + Double($0)) }
        let homeID = try store.save(Route(points: home))
        let zone = try PrivacyZone(center: Coordinate(latitude: 47, longitude: 8), radius: 55)
        var options = ParquetExportOptions()
        options.privacyZones = [zone]
        let out = dir.url.appendingPathComponent("export")
        let report = try ParquetExporter.export(store, to: out, options: options)
        #expect(report.withheldRoutes == [homeID] && report.routeCount == 1)
        let tables = try #require(ParquetFixtures.json(Self.read, [out.path]) as? [String: [[Any]]])
        let kept = walk.filter { !zone.contains($0.coordinate) }
        #expect(kept.count < walk.count && kept.count >= 10)
        let row = try #require(tables["routes"]?.first)
        #expect(ParquetFixtures.int(row[0]) == Int64(walkID.rawValue))
        #expect(row[1] as? Int == kept.count && row[2] is NSNull, "\(row)")
        let points = try #require(tables["points"])
        #expect(points.count == kept.count)
        #expect(points.map { $0[1] as? Int } == Array(0..<kept.count).map { Optional($0) })
        let firstLatitude = try #require(points.first?[2] as? Int)
        #expect(!zone.contains(Coordinate(latitude: Double(firstLatitude) / 1e7, longitude: 8)))
        // Without zones, the same store exports both routes whole.
        let whole = try ParquetExporter.export(store, to: dir.url.appendingPathComponent("whole"))
        #expect(whole.routeCount == 2 && whole.pointCount == 25 && whole.withheldRoutes.isEmpty)
    }
}
