/// The points table's schema, and the encoding of a batch of routes' points into one
/// fragment of pages per column (on an export worker thread).
enum PointsTable {
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

    /// The rows are sorted by route_id, then time (leaf indices).
    static let sortedBy: [Int32] = [0, 2]

    /// Values per page.
    static let pageValues = 1 << 16

    /// One fragment per column holding `routes`' points, each route's in time order
    /// (recording order where times are equal); `point_index` keeps each point's place
    /// in its route.
    static func encode(_ routes: [(id: RouteID, points: QuantizedPoints)], codec: ParquetFormat.Codec) -> [EncodedColumnChunk] {
        let leaves = schema.leaves
        func writer<V: ParquetNumericValue>(_ i: Int) -> NumericColumnWriter<V> {
            NumericColumnWriter<V>(leaves[i], codec: codec, pageValues: pageValues)
        }
        let routeID: NumericColumnWriter<Int64> = writer(0), time: NumericColumnWriter<Int64> = writer(2)
        let pointIndex: NumericColumnWriter<Int32> = writer(1)
        let latitude: NumericColumnWriter<Int32> = writer(3), longitude: NumericColumnWriter<Int32> = writer(4)
        let optional: [NumericColumnWriter<Int32>] = (5..<12).map { writer($0) }
        for (id, stored) in routes {
            var route = stored, indices: [Int32]
            if let order = timeOrder(stored.times) {
                route = stored.permuted(order)
                indices = order.map { Int32($0) }
            } else {
                indices = (0..<Int32(stored.count)).map { $0 }
            }
            let rid = Int64(id.rawValue)
            [Int64](repeating: rid, count: route.count).withUnsafeBufferPointer { routeID.append(contentsOf: $0) }
            indices.withUnsafeBufferPointer { pointIndex.append(contentsOf: $0) }
            route.times.withUnsafeBufferPointer { time.append(contentsOf: $0) }
            route.latitudes.withUnsafeBufferPointer { latitude.append(contentsOf: $0) }
            route.longitudes.withUnsafeBufferPointer { longitude.append(contentsOf: $0) }
            route.points.withUnsafeBufferPointer { points in
                // One call per channel with its own closure, so each loop is specialized.
                let cm = FormatConstants.centimetreScale, perMinute = FormatConstants.perMinuteScale
                appendChannel(points, scale: cm, to: optional[0]) { $0.altitude }
                appendChannel(points, scale: cm, to: optional[1]) { $0.horizontalAccuracy }
                appendChannel(points, scale: cm, to: optional[2]) { $0.verticalAccuracy }
                appendChannel(points, scale: cm, to: optional[3]) { $0.speed }
                appendChannel(points, scale: FormatConstants.courseScale, to: optional[4]) { $0.course }
                appendChannel(points, scale: perMinute, to: optional[5]) { $0.heartRate }
                appendChannel(points, scale: perMinute, to: optional[6]) { $0.cadence }
            }
        }
        let writers: [any ColumnChunkWriter] = [routeID, pointIndex, time, latitude, longitude] + optional
        return writers.map { $0.finishChunk() }
    }

    /// Appends an optional channel of `points`, quantized at `scale`, nulls where absent.
    @inline(__always)
    private static func appendChannel(_ points: UnsafeBufferPointer<TrackPoint>, scale: Double,
                                      to writer: NumericColumnWriter<Int32>, _ field: (TrackPoint) -> Double?) {
        let n = points.count
        var levels = [UInt8](repeating: 0, count: n)
        let values = [Int32](unsafeUninitializedCapacity: n) { values, present in
            present = 0
            levels.withUnsafeMutableBufferPointer { levels in
                for k in 0..<n {
                    guard let value = field(points[k]) else { continue }
                    // The store keeps every channel within ±1e9 of its unit: inside Int32.
                    values[present] = Int32(truncatingIfNeeded: Quantization.scaled(value, scale))
                    present += 1
                    levels[k] = 1
                }
            }
        }
        values.withUnsafeBufferPointer { v in levels.withUnsafeBufferPointer { writer.append(contentsOf: v, levels: $0) } }
    }

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
}
