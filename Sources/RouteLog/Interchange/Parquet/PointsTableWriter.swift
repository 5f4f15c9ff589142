/// Writes `points.parquet` from fragments the export's workers encoded (format-spec.md,
/// "Export: GeoParquet"): one row per point, sorted by route and time, every value an
/// integer at the store's own precision.
final class PointsTableWriter {
    private let file: ParquetFileWriter
    private let rowsPerGroup: Int
    private let columns: [ColumnFragmentAssembler]

    /// Starts `points.parquet` in `folder`, under its temporary name.
    /// - Throws: ``RouteLogError`` `.io` when the file cannot be created.
    init(in folder: ExportFolder, codec: ParquetFormat.Codec, rowsPerGroup: Int) throws {
        columns = PointsTable.schema.leaves.map { ColumnFragmentAssembler($0, codec: codec) }
        self.rowsPerGroup = rowsPerGroup
        file = try ParquetFileWriter(in: folder, name: ParquetExporter.pointsFileName, schema: PointsTable.schema, sortedBy: PointsTable.sortedBy)
    }

    /// Appends one batch's fragments (one per column, in schema order). A row group
    /// ends between batches, so one route's points are in one group.
    /// - Throws: ``RouteLogError`` `.io` when a row group cannot be written.
    func append(_ fragments: [EncodedColumnChunk]) throws {
        precondition(fragments.count == columns.count)
        for (column, fragment) in zip(columns, fragments) { column.append(fragment) }
        if columns[0].rowCount >= rowsPerGroup { try file.writeRowGroup(columns) }
    }

    /// Writes the last row group and the footer, under the
    /// temporary name; ``publish()`` puts the file in place.
    /// - Returns: The file's size in bytes.
    /// - Throws: ``RouteLogError`` `.io` when the file cannot be written.
    func complete() throws -> Int64 {
        try file.writeRowGroup(columns)
        return try file.complete(keyValues: [])
    }

    /// Renames the completed file over its final name.
    /// - Throws: ``RouteLogError`` `.io` when the rename fails.
    func publish() throws { try file.publish() }

    /// The completed file's temporary path (to check what will be published).
    var temporaryPath: String { file.temporaryPath }

    /// Removes the unfinished or unpublished file.
    func abandon() { file.abandon() }
}
