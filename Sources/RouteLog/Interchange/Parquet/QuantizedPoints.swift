/// A route's points with their time and coordinates as the store keeps them (1 ms,
/// 1e-7 degree), computed once for both tables.
struct QuantizedPoints {
    var points: [TrackPoint]
    var times: [Int64]
    var latitudes: [Int32]
    var longitudes: [Int32]

    var count: Int { points.count }

    init(_ points: [TrackPoint]) {
        self.points = points
        let n = points.count
        var times = [Int64](repeating: 0, count: n)
        var latitudes = [Int32](repeating: 0, count: n), longitudes = [Int32](repeating: 0, count: n)
        points.withUnsafeBufferPointer { p in
            for k in 0..<n {
                times[k] = Quantization.milliseconds(p[k].timestamp)
                // Stored coordinates are within ±180e7, well inside Int32.
                latitudes[k] = Int32(truncatingIfNeeded: Quantization.degrees(p[k].latitude))
                longitudes[k] = Int32(truncatingIfNeeded: Quantization.degrees(p[k].longitude))
            }
        }
        self.times = times
        self.latitudes = latitudes
        self.longitudes = longitudes
    }

    /// The points in the order `order` gives (a permutation of their indices).
    func permuted(_ order: [Int]) -> QuantizedPoints {
        var copy = self
        copy.points = order.map { points[$0] }
        copy.times = order.map { times[$0] }
        copy.latitudes = order.map { latitudes[$0] }
        copy.longitudes = order.map { longitudes[$0] }
        return copy
    }
}
