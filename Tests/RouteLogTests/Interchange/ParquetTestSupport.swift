import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// The stores the GeoParquet export is checked on, and what Python readers say about
/// the files it writes.
enum ParquetFixtures {
    /// The kinds of store the export is proven on.
    enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// Every real GPX fixture committed with the project, imported.
        case fixtureTracks
        /// Walks as the demo makes them (WalkGenerator), over several months.
        case demoWalks
        /// Routes with every optional channel, nulls, time going backwards, segment
        /// breaks, one-point routes and one-point segments, names and no names.
        case everyChannel

        var testDescription: String { rawValue }
    }

    /// A new store of `kind` in `directory`, closed and reopened read-only.
    static func store(_ kind: StoreKind, in directory: TemporaryDirectory) throws -> RouteStore {
        let url = directory.store("\(kind.rawValue).routelog")
        let store = try RouteStore(at: url, options: .init(durability: .buffered))
        switch kind {
        case .fixtureTracks:
            let outcomes = GPXImporter.importDirectory(InterchangeFixtures.gpxDirectory, into: store)
            #expect(outcomes.contains { (try? $0.result.get())?.routeCount ?? 0 > 0 })
        case .demoWalks:
            var walks = WalkGenerator(seed: 17)
            // Three walks a week from December into February: weeks and months both change.
            for i in 0..<24 {
                let start = Date(timeIntervalSince1970: 1_764_547_200 + Double(i) * 2.4 * 86_400)
                var route = walks.walk(points: 200 + (i * 37) % 400, start: start)
                if i % 3 == 0 { route.metadata.name = "Walk \(i)" }
                _ = try store.save(route)
            }
        case .everyChannel:
            var random = RandomRoutes(seed: 99)
            for _ in 0..<12 { _ = try store.save(random.next()) }
            _ = try store.save(Route(points: [TrackPoint.sample(0)], metadata: RouteMetadata(name: "one point")))
            let points = (0..<9).map { TrackPoint.sample($0) }
            var metadata = RouteMetadata(name: "Ünïcødé ✓", calories: 12)
            metadata.activity = .custom("nordic walking")
            _ = try store.save(Route(points: points, metadata: metadata, segmentStarts: [4, 5]))
            var ride = random.next()
            ride.metadata.activity = .ride
            _ = try store.save(ride)
        }
        try store.close()
        return try RouteStore(at: url, options: .init(mode: .readOnly))
    }

    /// The export options the tests run with.
    enum Variant: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case compressed, uncompressed, partitioned

        var options: ParquetExportOptions {
            switch self {
            case .compressed: return ParquetExportOptions()
            case .uncompressed: return ParquetExportOptions(compression: .none)
            case .partitioned: return ParquetExportOptions(partitioning: .month)
            }
        }

        var testDescription: String { rawValue }
    }

    /// Whether DuckDB reads a GeoParquet geometry column as its GEOMETRY type (DuckDB 2.0
    /// and later do, without the spatial extension); prints why not otherwise.
    static let duckDBHasGeometry: Bool = {
        guard PythonReaders.available("duckdb"),
              let answer = try? PythonReaders.script("import duckdb; print(tuple(int(p) for p in duckdb.__version__.split('.')[:2]) >= (2, 0))")
        else { return false }
        if answer.hasPrefix("True") { return true }
        print("note: this DuckDB is older than 2.0 and reads GeoParquet geometries as BLOB; the GEOMETRY test is skipped")
        return false
    }()

    /// The glob that reads table `name` of an export in `directory`, partitioned or not.
    static func glob(_ directory: URL, _ name: String, partitioned: Bool) -> String {
        partitioned ? directory.appendingPathComponent("*/\(name)").path : directory.appendingPathComponent(name).path
    }

    /// Runs `script` with `arguments` and parses what it prints as one JSON value.
    static func json(_ script: String, _ arguments: [String]) throws -> Any {
        let output = try PythonReaders.script(script, arguments)
        return try JSONSerialization.jsonObject(with: Data(output.utf8))
    }

    /// A value Python printed as a decimal string (integers travel as strings, so that
    /// 64-bit values keep every digit).
    static func int(_ value: Any?) -> Int64? {
        guard let text = value as? String else { return nil }
        return Int64(text)
    }

    /// The store's points of route `id` in the stored integers, as points.parquet holds
    /// them: [point_index, time, lat, lon, then the seven optional channels or nil].
    static func storedRows(_ route: Route) -> [[Int64?]] {
        let scales: [(KeyPath<TrackPoint, Double?>, Double)] = [
            (\.altitude, 100), (\.horizontalAccuracy, 100), (\.verticalAccuracy, 100), (\.speed, 100),
            (\.course, 100), (\.heartRate, 1), (\.cadence, 1),
        ]
        return route.points.enumerated().map { index, point in
            [Int64(index), Quantization.milliseconds(point.timestamp), Quantization.degrees(point.latitude),
             Quantization.degrees(point.longitude)] + scales.map { path, scale in point[keyPath: path].map { Quantization.scaled($0, scale) } }
        }
    }
}
