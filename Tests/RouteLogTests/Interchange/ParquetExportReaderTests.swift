import Foundation
import Testing
@testable import RouteLog

/// The GeoParquet export read back by pyarrow and shapely: schema, types, every row of
/// both tables against the store, and the geometries' coordinates.
@Suite(.tags(.externalReader), .enabled(if: PythonReaders.available("pyarrow") && PythonReaders.available("shapely"),
                                        "needs pyarrow and shapely in .build/pyenv (make pyenv)"))
struct ParquetExportReaderTests {
    /// Prints both tables of an export as JSON: the Arrow and Parquet schema of each
    /// file, every route row (doubles as their bit patterns, integers as strings), each
    /// route's geometry as shapely loads it, and every point row, with the partition
    /// folder each row came from.
    static let dump = #"""
    import sys, json, struct, glob, os
    import pyarrow as pa, pyarrow.parquet as pq, shapely
    root, partitioned = sys.argv[1], sys.argv[2] == "1"
    def files(name):
        return sorted(glob.glob(os.path.join(root, "*", name))) if partitioned else [os.path.join(root, name)]
    def bits(x):
        return None if x is None else str(struct.unpack("<q", struct.pack("<d", x))[0])
    def uuid_text(u):
        import uuid
        return None if u is None else str(uuid.UUID(bytes=u)) if isinstance(u, bytes) else str(u)
    def ints(column):
        return [None if v is None else str(v) for v in column.to_pylist()]
    def schema(path):
        f = pq.ParquetFile(path)
        arrow = [[field.name, str(field.type), field.nullable] for field in f.schema_arrow]
        parquet = [[c.path, c.physical_type, str(c.logical_type), c.converted_type, c.max_definition_level]
                   for c in f.schema]
        meta = f.metadata
        chunks = [[meta.row_group(g).column(c).path_in_schema, meta.row_group(g).column(c).compression,
                   list(meta.row_group(g).column(c).encodings)]
                  for g in range(meta.num_row_groups) for c in range(meta.num_columns)]
        return {"arrow": arrow, "parquet": parquet, "chunks": chunks}
    out = {"routes": [], "points": {}, "schemas": {}}
    for path in files("routes.parquet"):
        folder = os.path.basename(os.path.dirname(path)) if partitioned else ""
        out["schemas"].setdefault("routes", schema(path))
        t = pq.read_table(path)
        n = t.num_rows
        col = lambda name: t.column(name).to_pylist()
        bbox = t.column("bbox").to_pylist()
        shapes = shapely.from_wkb(col("geometry"))
        for i in range(n):
            shape = shapes[i]
            if shape.geom_type == "MultiLineString":
                lines = [list(line.coords) for line in shape.geoms]
            else:
                lines = [list(shape.coords)]
            out["routes"].append({
                "folder": folder,
                "id": str(col("route_id")[i]), "uuid": uuid_text(col("route_uuid")[i]),
                "start": ints(t.column("start_time").cast(pa.int64()))[i],
                "end": ints(t.column("end_time").cast(pa.int64()))[i],
                "duration": bits(col("duration")[i]), "moving_time": bits(col("moving_time")[i]),
                "distance": bits(col("distance")[i]), "calories": bits(col("calories")[i]),
                "activity": col("activity")[i], "name": col("name")[i], "point_count": col("point_count")[i],
                "bbox": [bits(bbox[i][k]) for k in ("xmin", "ymin", "xmax", "ymax")],
                "geometry_type": shape.geom_type,
                "lines": [[[bits(x), bits(y)] for x, y in line] for line in lines],
            })
    for path in files("points.parquet"):
        out["schemas"].setdefault("points", schema(path))
        t = pq.read_table(path)
        names = ["point_index", "time", "latitude_e7", "longitude_e7", "elevation_cm", "horizontal_accuracy_cm",
                 "vertical_accuracy_cm", "speed_cm_s", "course_cdeg", "heart_rate_bpm", "cadence_rpm"]
        columns = [ints(t.column(name).cast(pa.int64())) for name in names]
        for i, rid in enumerate(ints(t.column("route_id"))):
            out["points"].setdefault(rid, []).append([c[i] for c in columns])
    print(json.dumps(out))
    """#

    struct Export {
        var store: RouteStore
        var routes: [[String: Any]]
        var points: [String: [[Any]]]
        var schemas: [String: [String: Any]]
    }

    func export(_ kind: ParquetFixtures.StoreKind, _ variant: ParquetFixtures.Variant,
                options: ParquetExportOptions? = nil, in directory: TemporaryDirectory) throws -> Export {
        let store = try ParquetFixtures.store(kind, in: directory)
        let out = directory.url.appendingPathComponent("export-\(variant.rawValue)")
        let report = try ParquetExporter.export(store, to: out, options: options ?? variant.options)
        #expect(try report.routeCount == store.count)
        #expect(try report.pointCount == store.summaries().reduce(0) { $0 + $1.pointCount })
        let json = try #require(try ParquetFixtures.json(Self.dump, [out.path, variant == .partitioned ? "1" : "0"]) as? [String: Any])
        return Export(store: store, routes: try #require(json["routes"] as? [[String: Any]]),
                      points: try #require(json["points"] as? [String: [[Any]]]),
                      schemas: try #require(json["schemas"] as? [String: [String: Any]]))
    }

    static func double(_ value: Any?) -> Double? { ParquetFixtures.int(value).map { Double(bitPattern: UInt64(bitPattern: $0)) } }

    @Test(arguments: ParquetFixtures.Variant.allCases)
    func bothTablesHaveTheDocumentedSchema(_ variant: ParquetFixtures.Variant) throws {
        let directory = TemporaryDirectory()
        let made = try export(.everyChannel, variant, in: directory)
        let routes = try #require(made.schemas["routes"]?["arrow"] as? [[Any]])
        let expectedRoutes: [(String, String?, Bool)] = [
            ("route_id", "int64", false), ("route_uuid", nil, true), ("start_time", "timestamp[ms, tz=UTC]", false),
            ("end_time", "timestamp[ms, tz=UTC]", false), ("duration", "double", false), ("moving_time", "double", true),
            ("distance", "double", false), ("calories", "double", true), ("activity", "string", true),
            ("name", "string", true), ("point_count", "int32", false),
            ("bbox", "struct<xmin: double not null, ymin: double not null, xmax: double not null, ymax: double not null>", false),
            ("geometry", "binary", false),
        ]
        #expect(routes.map { $0[0] as? String } == expectedRoutes.map(\.0))
        for (field, expected) in zip(routes, expectedRoutes) {
            if let type = expected.1 { #expect(field[1] as? String == type, "routes.\(expected.0)") }
            #expect(field[2] as? Bool == expected.2, "routes.\(expected.0) nullable")
        }
        let points = try #require(made.schemas["points"]?["arrow"] as? [[Any]])
        let optional = ["elevation_cm", "horizontal_accuracy_cm", "vertical_accuracy_cm", "speed_cm_s", "course_cdeg",
                        "heart_rate_bpm", "cadence_rpm"]
        let expectedPoints: [(String, String, Bool)] = [
            ("route_id", "int64", false), ("point_index", "int32", false), ("time", "timestamp[ms, tz=UTC]", false),
            ("latitude_e7", "int32", false), ("longitude_e7", "int32", false),
        ] + optional.map { ($0, "int32", true) }
        #expect(points.map { "\($0[0]) \($0[1]) \(($0[2] as? Bool) == true)" } == expectedPoints.map { "\($0.0) \($0.1) \($0.2 ? "true" : "false")" })

        // Parquet's own annotations: logical and converted types for older readers.
        let leaves = try #require(made.schemas["routes"]?["parquet"] as? [[Any]])
        func leaf(_ path: String) -> [Any]? { leaves.first { $0[0] as? String == path } }
        #expect((leaf("start_time")?[2] as? String)?.contains("Timestamp(isAdjustedToUTC=true, timeUnit=milliseconds") == true)
        #expect(leaf("start_time")?[3] as? String == "TIMESTAMP_MILLIS")
        #expect(leaf("route_uuid")?[1] as? String == "FIXED_LEN_BYTE_ARRAY" && leaf("route_uuid")?[2] as? String == "UUID")
        #expect(leaf("name")?[2] as? String == "String" && leaf("name")?[3] as? String == "UTF8")
        #expect(leaf("bbox.xmin")?[1] as? String == "DOUBLE" && leaf("geometry")?[1] as? String == "BYTE_ARRAY")

        // Codec and encodings of every column chunk.
        // pyarrow names Parquet's LZ4_RAW (codec 7) "LZ4"; the DuckDB suite checks the codec by its Parquet name.
        let codec = variant == .uncompressed ? "UNCOMPRESSED" : "LZ4"
        for table in ["routes", "points"] {
            let chunks = try #require(made.schemas[table]?["chunks"] as? [[Any]])
            #expect(!chunks.isEmpty)
            for chunk in chunks {
                let path = chunk[0] as? String ?? "", encodings = chunk[2] as? [String] ?? []
                #expect(chunk[1] as? String == codec, "\(table).\(path)")
                if ["route_id", "point_index", "time", "latitude_e7", "start_time", "point_count", "elevation_cm"].contains(path) {
                    #expect(encodings.contains("DELTA_BINARY_PACKED"), "\(table).\(path): \(encodings)")
                }
                if path == "geometry" || path.hasPrefix("bbox.") { #expect(encodings == ["PLAIN"], "\(table).\(path)") }
            }
        }
    }

    @Test(arguments: ParquetFixtures.StoreKind.allCases, ParquetFixtures.Variant.allCases)
    func everyPointEqualsTheStoredRouteInTimeOrder(_ kind: ParquetFixtures.StoreKind, _ variant: ParquetFixtures.Variant) throws {
        let directory = TemporaryDirectory()
        let made = try export(kind, variant, in: directory)
        let summaries = try made.store.summaries()
        #expect(Set(made.points.keys) == Set(summaries.map { String($0.id.rawValue) }))
        for summary in summaries {
            let rows = try #require(made.points[String(summary.id.rawValue)]).map { $0.map(ParquetFixtures.int) }
            let stored = ParquetFixtures.storedRows(try made.store.route(summary.id))
            #expect(rows.count == summary.pointCount && rows.count == stored.count, "route \(summary.id)")
            // Each row is the stored point its point_index names, and the rows run in time
            // order (recording order among equal times).
            for (k, row) in rows.enumerated() {
                let index = try #require(row[0].map(Int.init))
                #expect(row == stored[index], "route \(summary.id) point \(index)")
                if k > 0, let before = rows[k - 1][1], let time = row[1] {
                    #expect(before < time || (before == time && rows[k - 1][0]! < row[0]!), "route \(summary.id) row \(k)")
                }
            }
            #expect(Set(rows.map { $0[0] }).count == rows.count)
        }
        if variant == .partitioned {
            // Each route sits in the folder of its start month (UTC).
            for row in made.routes {
                let start = Date(timeIntervalSince1970: Double(try #require(ParquetFixtures.int(row["start"]))) / 1000)
                #expect(row["folder"] as? String == "start_month=" + ParquetExporter.month(of: start))
            }
        }
    }

    @Test(arguments: ParquetFixtures.StoreKind.allCases, [ParquetExportOptions.Geometry.preview, .full])
    func routeRowsEqualTheSummariesAndGeometriesTheStoredCoordinates(_ kind: ParquetFixtures.StoreKind,
                                                                       _ geometry: ParquetExportOptions.Geometry) throws {
        let directory = TemporaryDirectory()
        var variant = ParquetFixtures.Variant.compressed.options
        variant.geometry = geometry
        let made = try export(kind, .compressed, options: variant, in: directory)
        let summaries = try made.store.summaries().sorted { $0.id < $1.id }
        #expect(made.routes.map { $0["id"] as? String } == summaries.map { String($0.id.rawValue) }, "sorted by route_id")
        var previews = 0
        for (row, summary) in zip(made.routes, summaries) {
            let route = try made.store.route(summary.id)
            let what = "route \(summary.id)"
            let start = Quantization.milliseconds(summary.startDate)
            #expect(ParquetFixtures.int(row["start"]) == start, "\(what) start")
            #expect(ParquetFixtures.int(row["end"]) == start + Quantization.milliseconds(summary.duration), "\(what) end")
            #expect(Self.double(row["duration"]) == summary.duration, "\(what) duration")
            #expect(Self.double(row["distance"]) == summary.distance, "\(what) distance")
            #expect(Self.double(row["calories"]) == (route.metadata.calories == nil ? nil : summary.calories), "\(what) calories")
            // What the index keeps: the uuid, the moving time of the stats, the activity.
            #expect(row["uuid"] as? String == summary.uuid.uuidString.lowercased(), "\(what) uuid")
            #expect(Self.double(row["moving_time"]) == summary.stats?.movingTime, "\(what) moving time")
            #expect(row["activity"] as? String == summary.activity?.name, "\(what) activity")
            #expect(row["name"] as? String == summary.name, "\(what) name")
            #expect(row["point_count"] as? Int == summary.pointCount, "\(what) point count")
            let box = summary.boundingBox
            #expect((row["bbox"] as? [Any])?.map(Self.double) == [box.southWest.longitude, box.southWest.latitude,
                                                                   box.northEast.longitude, box.northEast.latitude], "\(what)")
            let lines = try #require(row["lines"] as? [[[Any]]]).map { $0.map { $0.map(Self.double) } }
            let type = row["geometry_type"] as? String
            if geometry == .preview, let preview = summary.preview {
                // The stored preview as one line (1e-5 degree), a point for one point.
                previews += 1
                let drawn = preview.coordinates.map {
                    [Double(Quantization.degrees($0.longitude)) / 1e7, Double(Quantization.degrees($0.latitude)) / 1e7] as [Double?]
                }
                #expect(type == (drawn.count == 1 ? "Point" : "LineString") && lines == [drawn], "\(what) preview")
                #expect(drawn.count <= RoutePreview.maxPoints && drawn.first == lines.first?.first)
                continue
            }
            // The geometry: one line per recording segment (a point for a one-point
            // route), x = longitude, y = latitude, exactly the stored doubles.
            let segments = RouteSegments.ranges(of: route).map { range in
                route.points[range].map { [$0.longitude, $0.latitude] as [Double?] }
            }
            if route.points.count == 1 {
                #expect(type == "Point" && lines == segments, "\(what)")
            } else {
                #expect(type == (segments.count > 1 ? "MultiLineString" : "LineString"), "\(what)")
                // A one-point segment is drawn as a line of that point twice.
                #expect(lines == segments.map { $0.count == 1 ? $0 + $0 : $0 }, "\(what)")
            }
        }
        if geometry == .preview { #expect(previews == summaries.count, "every saved route has a preview") }
        #expect(summaries.allSatisfy { $0.stats != nil }, "saved routes have stats")
        if kind == .everyChannel { #expect(Set(summaries.compactMap(\.activity?.name)) == ["nordic walking", "ride"]) }
    }

    @Test func rowGroupsEndBetweenRoutesAndDeclareTheirSortOrder() throws {
        let directory = TemporaryDirectory()
        let store = try ParquetFixtures.store(.demoWalks, in: directory)
        let out = directory.url.appendingPathComponent("out")
        var options = ParquetExportOptions()
        options.pointsPerRowGroup = 1_000
        options.routesPerRowGroup = 5
        try ParquetExporter.export(store, to: out, options: options)
        let script = #"""
        import sys, json, pyarrow.parquet as pq
        out = {}
        for name in ("routes", "points"):
            meta = pq.ParquetFile(sys.argv[1] + "/" + name + ".parquet").metadata
            groups = []
            for g in range(meta.num_row_groups):
                group = meta.row_group(g)
                ids = group.column(0).statistics
                groups.append({"rows": group.num_rows, "first": ids.min, "last": ids.max,
                               "sorted": [[c.column_index, c.descending] for c in group.sorting_columns]})
            out[name] = groups
        print(json.dumps(out))
        """#
        let json = try #require(try ParquetFixtures.json(script, [out.path]) as? [String: [[String: Any]]])
        let points = try #require(json["points"]), routes = try #require(json["routes"])
        #expect(points.count > 1 && routes.count > 1)
        // Batches are never cut, so a group ends at the first batch boundary past the
        // count, and consecutive groups never share a route.
        for (a, b) in zip(points, points.dropFirst()) {
            #expect((a["last"] as? Int ?? .max) < (b["first"] as? Int ?? .min))
        }
        #expect(try points.reduce(0) { $0 + ($1["rows"] as? Int ?? 0) } == store.summaries().reduce(0) { $0 + $1.pointCount })
        #expect(points.allSatisfy { ($0["sorted"] as? [[Any]])?.map { "\($0[0])" } == ["0", "2"] }, "route_id, then time")
        #expect(routes.allSatisfy { ($0["sorted"] as? [[Any]])?.map { "\($0[0])" } == ["0"] }, "route_id")
    }

    @Test func anEmptyStoreExportsTwoValidEmptyTables() throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        try RouteStore(at: url).close()
        let out = directory.url.appendingPathComponent("out")
        let report = try ParquetExporter.export(try RouteStore(at: url, options: .init(mode: .readOnly)), to: out)
        #expect(report.routeCount == 0 && report.files.count == 2)
        let json = try #require(try ParquetFixtures.json(Self.dump, [out.path, "0"]) as? [String: Any])
        #expect((json["routes"] as? [Any])?.isEmpty == true)
        #expect((json["points"] as? [String: Any])?.isEmpty == true)
        #expect(((json["schemas"] as? [String: Any])?["points"] as? [String: Any])?["arrow"] != nil)
    }
}
