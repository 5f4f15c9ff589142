import Foundation
import Testing
@testable import RouteLog

/// The `geo` key-value metadata of every routes file validates against the GeoParquet
/// 1.1 JSON schema (../shared/data/schema/geoparquet-1.1-schema.json, with Python's
/// jsonschema), and says what the file holds.
@Suite(.tags(.externalReader), .enabled(if: GeoParquetSchemaFile.readersAvailable,
                                        "needs pyarrow and jsonschema in .build/pyenv (make pyenv) and the GeoParquet schema in ../shared/data/schema"))
struct GeoParquetMetadataTests {
    /// Validates the `geo` metadata of each file in argv[2:] against the schema in
    /// argv[1]; prints, per file, the metadata and the validator's verdict, and the
    /// verdict on a copy with a wrong version (the validator must refuse that one).
    static let validate = #"""
    import sys, json, copy, jsonschema, pyarrow.parquet as pq
    schema = json.load(open(sys.argv[1]))
    out = []
    for path in sys.argv[2:]:
        geo = json.loads(pq.ParquetFile(path).metadata.metadata[b"geo"])
        def verdict(value):
            try:
                jsonschema.validate(value, schema)
                return "valid"
            except jsonschema.ValidationError as error:
                return error.message
        wrong = copy.deepcopy(geo)
        wrong["version"] = "1.0.0"
        out.append({"geo": geo, "verdict": verdict(geo), "wrong": verdict(wrong)})
    print(json.dumps(out))
    """#

    @Test(arguments: ParquetFixtures.StoreKind.allCases, [ParquetFixtures.Variant.compressed, .partitioned])
    func theGeoMetadataIsValidAndTrue(_ kind: ParquetFixtures.StoreKind, _ variant: ParquetFixtures.Variant) throws {
        let directory = TemporaryDirectory()
        let store = try ParquetFixtures.store(kind, in: directory)
        let out = directory.url.appendingPathComponent("export")
        let report = try ParquetExporter.export(store, to: out, options: variant.options)
        let files = report.files.filter { $0.lastPathComponent == ParquetExporter.routesFileName }
        #expect(files.count == max(1, report.partitions.count))
        let results = try #require(try ParquetFixtures.json(Self.validate, [GeoParquetSchemaFile.url.path] + files.map(\.path)) as? [[String: Any]])
        #expect(results.count == files.count)
        for (file, result) in zip(files, results) {
            #expect(result["verdict"] as? String == "valid", "\(file.path)")
            #expect(result["wrong"] as? String != "valid", "the validator refuses a wrong version")
            let geo = try #require(result["geo"] as? [String: Any])
            #expect(geo["version"] as? String == "1.1.0" && geo["primary_column"] as? String == "geometry")
            let column = try #require((geo["columns"] as? [String: Any])?["geometry"] as? [String: Any])
            #expect(column["encoding"] as? String == "WKB")
            #expect(column["crs"] == nil, "no crs: GeoParquet's default, OGC:CRS84")
            let covering = try #require((column["covering"] as? [String: Any])?["bbox"] as? [String: [String]])
            #expect(covering == ["xmin": ["bbox", "xmin"], "ymin": ["bbox", "ymin"], "xmax": ["bbox", "xmax"], "ymax": ["bbox", "ymax"]])

            // bbox and geometry_types describe exactly the routes of this file.
            let folder = file.deletingLastPathComponent().lastPathComponent
            let summaries = try store.summaries().filter {
                variant != .partitioned || folder == "start_month=" + ParquetExporter.month(of: $0.startDate)
            }
            let boxes = summaries.map(\.boundingBox)
            let bbox = [boxes.map(\.southWest.longitude).min()!, boxes.map(\.southWest.latitude).min()!,
                        boxes.map(\.northEast.longitude).max()!, boxes.map(\.northEast.latitude).max()!]
            #expect(column["bbox"] as? [Double] == bbox)
            var kinds = Set<String>()
            for summary in summaries {
                if let preview = summary.preview {  // the default geometry: the preview
                    kinds.insert(preview.count == 1 ? "Point" : "LineString")
                    continue
                }
                let route = try store.route(summary.id)
                let segments = RouteSegments.ranges(of: route).count
                kinds.insert(route.points.count == 1 ? "Point" : segments > 1 ? "MultiLineString" : "LineString")
            }
            #expect(Set(column["geometry_types"] as? [String] ?? []) == kinds)
        }
    }
}

/// The GeoParquet 1.1 JSON schema shared beside the project.
enum GeoParquetSchemaFile {
    static let url = Fixtures.packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/data/schema/geoparquet-1.1-schema.json")

    static var readersAvailable: Bool {
        guard FileManager.default.fileExists(atPath: url.path) else {
            print("note: \(url.path) is absent: the GeoParquet metadata validation tests are skipped")
            return false
        }
        return PythonReaders.available("pyarrow") && PythonReaders.available("jsonschema")
    }
}
