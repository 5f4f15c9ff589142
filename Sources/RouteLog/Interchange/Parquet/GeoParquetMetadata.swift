/// The `geo` key of a routes file's key-value metadata: GeoParquet 1.1.0's JSON
/// (format-specs/geoparquet.md of opengeospatial/geoparquet, tag v1.1.0), gathered
/// while the rows are written and rendered once, in the footer.
///
/// `crs` is left out, which GeoParquet defines as OGC:CRS84 (WGS 84 longitude and
/// latitude, the store's own coordinates); `edges` is left out too (planar).
/// `covering.bbox` points at the four fields of the `bbox` column, so readers can skip
/// row groups by their statistics without decoding a geometry.
struct GeoParquetMetadata {
    static let version = "1.1.0"
    static let geometryColumn = "geometry"
    static let bboxColumn = "bbox"

    private var kinds: Set<WKBGeometry.Kind> = []
    private var bounds: (west: Double, south: Double, east: Double, north: Double)?

    /// Counts in one row's geometry kind and bounding box.
    mutating func add(_ kind: WKBGeometry.Kind, _ box: BoundingBox) {
        kinds.insert(kind)
        if let b = bounds {
            bounds = (min(b.west, box.southWest.longitude), min(b.south, box.southWest.latitude),
                      max(b.east, box.northEast.longitude), max(b.north, box.northEast.latitude))
        } else {
            bounds = (box.southWest.longitude, box.southWest.latitude, box.northEast.longitude, box.northEast.latitude)
        }
    }

    func json() -> String {
        let types = WKBGeometry.Kind.allCases.filter(kinds.contains).map { "\"\($0.rawValue)\"" }
        var column = [
            "\"encoding\":\"WKB\"",
            "\"geometry_types\":[\(types.joined(separator: ","))]",
        ]
        if let b = bounds {
            // [xmin, ymin, xmax, ymax], as RFC 7946 orders a bbox.
            column.append("\"bbox\":[\(b.west),\(b.south),\(b.east),\(b.north)]")
        }
        let covering = ["xmin", "ymin", "xmax", "ymax"].map { "\"\($0)\":[\"\(Self.bboxColumn)\",\"\($0)\"]" }
        column.append("\"covering\":{\"bbox\":{\(covering.joined(separator: ","))}}")
        return "{\"version\":\"\(Self.version)\",\"primary_column\":\"\(Self.geometryColumn)\","
            + "\"columns\":{\"\(Self.geometryColumn)\":{\(column.joined(separator: ","))}}}"
    }
}
