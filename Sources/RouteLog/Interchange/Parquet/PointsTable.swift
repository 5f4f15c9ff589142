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
            route.points.withUnsafeBufferPointer { appendChannels($0, to: optional) }
        }
        let writers: [any ColumnChunkWriter] = [routeID, pointIndex, time, latitude, longitude] + optional
        return writers.map { $0.finishChunk() }
    }

    /// Appends the seven optional channels of `points` to `writers` (in schema order),
    /// quantized, nulls where absent: one pass over the points for all of them.
    private static func appendChannels(_ points: UnsafeBufferPointer<TrackPoint>, to writers: [NumericColumnWriter<Int32>]) {
        precondition(writers.count == 7)
        let n = points.count, channels = writers.count
        var present = [Int](repeating: 0, count: channels)
        var values = [Int32](repeating: 0, count: n * channels)
        var levels = [UInt8](repeating: 0, count: n * channels)
        values.withUnsafeMutableBufferPointer { values in
            levels.withUnsafeMutableBufferPointer { levels in
                present.withUnsafeMutableBufferPointer { present in
                    @inline(__always) func take(_ c: Int, _ k: Int, _ value: Double?, _ scale: Double) {
                        guard let value else { return }
                        // Every channel is within ±1e9 of its unit, inside Int32: writers
                        // keep it there, and a load refuses a block that does not
                        // (PointBlockV2.decodeColumns, ColumnCodec.decode).
                        values[c * n + present[c]] = Int32(truncatingIfNeeded: Quantization.scaled(value, scale))
                        present[c] += 1
                        levels[c * n + k] = 1
                    }
                    let cm = FormatConstants.centimetreScale, perMinute = FormatConstants.perMinuteScale
                    for k in 0..<n {
                        let point = points[k]
                        take(0, k, point.altitude, cm)
                        take(1, k, point.horizontalAccuracy, cm)
                        take(2, k, point.verticalAccuracy, cm)
                        take(3, k, point.speed, cm)
                        take(4, k, point.course, FormatConstants.courseScale)
                        take(5, k, point.heartRate, perMinute)
                        take(6, k, point.cadence, perMinute)
                    }
                }
            }
        }
        for (c, writer) in writers.enumerated() {
            values[c * n..<c * n + present[c]].withUnsafeBufferPointer { v in
                levels[c * n..<(c + 1) * n].withUnsafeBufferPointer { writer.append(contentsOf: v, levels: $0) }
            }
        }
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
