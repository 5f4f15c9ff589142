import Foundation

/// The routes table's schema, and the encoding of a batch's geometries into one
/// fragment of pages (on an export worker thread).
enum RoutesTable {
    static let schema = ParquetSchema(fields: [
        .column(.required("route_id", .int64)),
        .column(.uuid("route_uuid")),
        .column(.timestamp("start_time")),
        .column(.timestamp("end_time")),
        .column(.required("duration", .double)),
        .column(.optional("moving_time", .double)),
        .column(.required("distance", .double)),
        .column(.optional("calories", .double)),
        .column(.string("activity")),
        .column(.string("name")),
        .column(.required("point_count", .int32)),
        .group(GeoParquetMetadata.bboxColumn, [.required("xmin", .double), .required("ymin", .double),
                                               .required("xmax", .double), .required("ymax", .double)]),
        .column(.required(GeoParquetMetadata.geometryColumn, .byteArray)),
    ])

    static let pageValues = 1 << 16

    /// The `geometry` column's fragment for a batch: the WKB of each route, PLAIN.
    static func encodeGeometries(_ geometries: [WKBGeometry], codec: ParquetFormat.Codec) -> EncodedColumnChunk {
        let writer = ByteArrayColumnWriter(schema.leaves[schema.leaves.count - 1], codec: codec, encoding: .plain,
                                           statisticsBounds: false, pageValues: pageValues)
        for shape in geometries { writer.append(length: shape.byteCount) { shape.write(to: &$0) } }
        return writer.finishChunk()
    }
}

/// Writes `routes.parquet`: one row per route, with a WKB `geometry` column described
/// by GeoParquet 1.1 `geo` metadata (format-spec.md, "Export: GeoParquet").
final class RoutesTableWriter {
    private let file: ParquetFileWriter
    private let rowsPerGroup: Int
    /// A row group also ends once its columns hold this many bytes (long routes'
    /// geometries are large).
    private static let groupBytes = 64 << 20
    private let routeID, startTime, endTime: NumericColumnWriter<Int64>
    private let duration, movingTime, distance, calories: NumericColumnWriter<Double>
    private let xmin, ymin, xmax, ymax: NumericColumnWriter<Double>
    private let pointCount: NumericColumnWriter<Int32>
    private let uuid, activity, name: ByteArrayColumnWriter
    private let geometry: ColumnFragmentAssembler
    private let writers: [any ColumnChunkWriter]
    private var geo = GeoParquetMetadata()

    /// Starts `routes.parquet` in `folder`, under its temporary name.
    /// - Throws: ``RouteLogError`` `.io` when the file cannot be created.
    init(in folder: ExportFolder, codec: ParquetFormat.Codec, rowsPerGroup: Int) throws {
        let leaves = RoutesTable.schema.leaves
        let pageValues = RoutesTable.pageValues
        func number<V: ParquetNumericValue>(_ i: Int) -> NumericColumnWriter<V> {
            NumericColumnWriter<V>(leaves[i], codec: codec, pageValues: pageValues)
        }
        func bytes(_ i: Int, _ encoding: ByteArrayColumnWriter.Encoding, bounds: Bool) -> ByteArrayColumnWriter {
            ByteArrayColumnWriter(leaves[i], codec: codec, encoding: encoding, statisticsBounds: bounds, pageValues: pageValues)
        }
        routeID = number(0); uuid = bytes(1, .plain, bounds: false)
        startTime = number(2); endTime = number(3)
        duration = number(4); movingTime = number(5); distance = number(6); calories = number(7)
        activity = bytes(8, .dictionaryWhenSmaller, bounds: true); name = bytes(9, .dictionaryWhenSmaller, bounds: true)
        pointCount = number(10)
        xmin = number(11); ymin = number(12); xmax = number(13); ymax = number(14)
        geometry = ColumnFragmentAssembler(leaves[15], codec: codec)
        writers = [routeID, uuid, startTime, endTime, duration, movingTime, distance, calories, activity, name,
                   pointCount, xmin, ymin, xmax, ymax, geometry]
        self.rowsPerGroup = rowsPerGroup
        file = try ParquetFileWriter(in: folder, name: ParquetExporter.routesFileName, schema: RoutesTable.schema, sortedBy: [0])
    }

    /// Appends a batch's rows: each route's summary figures and the kind of its
    /// geometry, then the batch's geometry fragment (the same routes, in order).
    /// - Throws: ``RouteLogError`` `.io` when a row group cannot be written.
    func append(_ rows: [ExportBatch.RouteRow], geometries: EncodedColumnChunk) throws {
        precondition(geometries.valueCount == Int64(rows.count))
        for row in rows { append(row) }
        geometry.append(geometries)
        if routeID.rowCount >= rowsPerGroup || writers.reduce(0, { $0 + $1.bufferedBytes }) >= Self.groupBytes {
            try file.writeRowGroup(writers)
        }
    }

    private func append(_ row: ExportBatch.RouteRow) {
        let summary = row.summary
        routeID.append(Int64(summary.id.rawValue))
        uuid.append(withUnsafeBytes(of: summary.uuid.uuid) { Array($0) })
        let start = Quantization.milliseconds(summary.startDate)
        startTime.append(start)
        endTime.append(start + Quantization.milliseconds(summary.duration))
        duration.append(summary.duration)
        movingTime.append(summary.stats?.movingTime)
        distance.append(summary.distance)
        calories.append(row.hasCalories ? summary.calories : nil)
        activity.append(summary.activity.map { Array($0.name.utf8) })
        name.append(summary.name.map { Array($0.utf8) })
        pointCount.append(Int32(summary.pointCount))
        let box = summary.boundingBox
        xmin.append(box.southWest.longitude)
        ymin.append(box.southWest.latitude)
        xmax.append(box.northEast.longitude)
        ymax.append(box.northEast.latitude)
        geo.add(row.geometryKind, box)
    }

    /// Writes the last row group and the footer, with the `geo` metadata, under the
    /// temporary name; ``publish()`` puts the file in place.
    /// - Returns: The file's size in bytes.
    /// - Throws: ``RouteLogError`` `.io` when the file cannot be written.
    func complete() throws -> Int64 {
        try file.writeRowGroup(writers)
        return try file.complete(keyValues: [("geo", geo.json())])
    }

    /// Renames the completed file over its final name.
    /// - Throws: ``RouteLogError`` `.io` when the rename fails.
    func publish() throws { try file.publish() }

    /// The completed file's temporary path (to check what will be published).
    var temporaryPath: String { file.temporaryPath }

    /// Removes the unfinished or unpublished file.
    func abandon() { file.abandon() }
}
