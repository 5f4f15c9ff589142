import Foundation

/// Writes `points.parquet`: one row per point, sorted by route and time, every value
/// an integer at the store's own precision (format-spec.md, "Export: GeoParquet").
final class PointsTableWriter {
    static let schema = ParquetSchema(fields: [
        .column(.required("route_id", .int64)),
        .column(.required("point_index", .int32)),
        .column(.timestamp("time")),
        .column(.required("latitude_e7", .int32)),
        .column(.required("longitude_e7", .int32)),
        .column(.optional("elevation_cm", .int32)),
        .column(.optional("horizontal_accuracy_cm", .int32)),
        .column(.optional("vertical_accuracy_cm", .int32)),
        .column(.optional("speed_cm_s", .int32)),
        .column(.optional("course_cdeg", .int32)),
        .column(.optional("heart_rate_bpm", .int32)),
        .column(.optional("cadence_rpm", .int32)),
    ])

    /// The store's scale of each optional column, in schema order.
    private static let optionalScales = [
        FormatConstants.centimetreScale, FormatConstants.centimetreScale, FormatConstants.centimetreScale,
        FormatConstants.centimetreScale, FormatConstants.courseScale, FormatConstants.perMinuteScale,
        FormatConstants.perMinuteScale,
    ]

    private let file: ParquetFileWriter
    private let rowsPerGroup: Int
    private let routeID, time: NumericColumnWriter<Int64>
    private let pointIndex, latitude, longitude: NumericColumnWriter<Int32>
    private let optional: [NumericColumnWriter<Int32>]
    private let writers: [any ColumnChunkWriter]

    /// - Throws: ``RouteLogError`` `.io` when the file cannot be created.
    init(path: String, codec: ParquetFormat.Codec, rowsPerGroup: Int) throws {
        let leaves = Self.schema.leaves
        let pageValues = 1 << 16
        func number<V: ParquetNumericValue>(_ i: Int) -> NumericColumnWriter<V> {
            NumericColumnWriter<V>(leaves[i], codec: codec, pageValues: pageValues)
        }
        routeID = number(0); pointIndex = number(1); time = number(2); latitude = number(3); longitude = number(4)
        optional = (5..<12).map { number($0) }
        writers = [routeID, pointIndex, time, latitude, longitude] + optional
        self.rowsPerGroup = rowsPerGroup
        // Rows are sorted by route_id, then time.
        file = try ParquetFileWriter(path: path, schema: Self.schema, sortedBy: [0, 2])
    }

    /// Appends a route's points in time order (recording order where times are equal);
    /// `point_index` keeps each point's place in the route.
    /// - Throws: ``RouteLogError`` `.io` when a row group cannot be written.
    func append(_ id: RouteID, points stored: [TrackPoint], times storedTimes: [Int64]) throws {
        var points = stored, times = storedTimes, indices: [Int32]?
        if let order = Self.timeOrder(storedTimes) {
            points = order.map { stored[$0] }
            times = order.map { storedTimes[$0] }
            indices = order.map { Int32($0) }
        }
        let rid = Int64(id.rawValue)
        var done = 0
        while done < points.count {
            // A group ends between routes, so a route's points share one group, unless
            // the route alone is longer than four groups.
            let upper = min(points.count, done + max(1, 4 * rowsPerGroup - routeID.rowCount))
            for _ in done..<upper { routeID.append(rid) }
            for k in done..<upper { pointIndex.append(indices?[k] ?? Int32(k)) }
            for k in done..<upper { time.append(times[k]) }
            for k in done..<upper { latitude.append(Int32(Quantization.degrees(points[k].latitude))) }
            for k in done..<upper { longitude.append(Int32(Quantization.degrees(points[k].longitude))) }
            for (i, column) in optional.enumerated() {
                let tag = Self.optionalTags[i], scale = Self.optionalScales[i]
                for k in done..<upper {
                    column.append(tag.value(of: points[k]).map { Int32(Quantization.scaled($0, scale)) })
                }
            }
            done = upper
            if routeID.rowCount >= rowsPerGroup { try file.writeRowGroup(writers) }
        }
    }

    private static let optionalTags: [FormatConstants.ColumnTag] = [
        .altitude, .horizontalAccuracy, .verticalAccuracy, .speed, .course, .heartRate, .cadence,
    ]

    /// The permutation that sorts `times` stably, or nil when they are already in order.
    static func timeOrder(_ times: [Int64]) -> [Int]? {
        var sorted = true
        for i in times.indices.dropFirst() where times[i] < times[i - 1] {
            sorted = false
            break
        }
        if sorted { return nil }
        return times.indices.sorted { times[$0] < times[$1] || (times[$0] == times[$1] && $0 < $1) }
    }

    /// Writes the last row group and the footer.
    /// - Returns: The file's size in bytes.
    /// - Throws: ``RouteLogError`` `.io` when the file cannot be written.
    func finish() throws -> Int64 {
        try file.writeRowGroup(writers)
        return try file.finish(keyValues: [])
    }

    /// Removes the unfinished file.
    func abandon() { file.abandon() }

    var rowCount: Int64 { file.rowCount + Int64(routeID.rowCount) }
}
