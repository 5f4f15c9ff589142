import Foundation

/// Where each field of a ``TrackPoint`` lies when an array of points is read as plain
/// doubles: the layout the save's field-at-a-time pass (``PointColumns``) reads through.
/// Found by writing a probe point and reading it back, not assumed: when the compiler
/// or Foundation lays a point out another way (a `Date` that is not one `Double`), this
/// is nil and the save reads point by point instead.
struct TrackPointLayout {
    /// Doubles from one point to the next.
    let stride: Int
    let latitude: Int, longitude: Int
    /// The timestamp's seconds since Foundation's reference date.
    let time: Int
    /// The optional fields, in ``PointField/optional``'s order.
    let optional: [Int]

    static let current: TrackPointLayout? = {
        guard MemoryLayout<TrackPoint>.stride % MemoryLayout<Double>.stride == 0,
              MemoryLayout<TrackPoint>.alignment % MemoryLayout<Double>.alignment == 0 else { return nil }
        let stride = MemoryLayout<TrackPoint>.stride / MemoryLayout<Double>.stride
        // Distinct values in every field, then each found in the point's doubles.
        let probe = TrackPoint(latitude: 1.25, longitude: 2.25, timestamp: Date(timeIntervalSinceReferenceDate: 3.25),
                               raw: (4.25, 5.25, 6.25, 7.25, 8.25, 9.25, 10.25))
        var doubles = [Double](repeating: 0, count: stride)
        withUnsafeBytes(of: probe) { bytes in
            doubles.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.prefix($0.count))) }
        }
        func index(of value: Double) -> Int? {
            let found = doubles.indices.filter { doubles[$0].bitPattern == value.bitPattern }
            return found.count == 1 ? found[0] : nil
        }
        guard let latitude = index(of: 1.25), let longitude = index(of: 2.25), let time = index(of: 3.25) else { return nil }
        let optional = [4.25, 5.25, 6.25, 7.25, 8.25, 9.25, 10.25].compactMap(index)
        guard optional.count == PointField.optional.count else { return nil }
        return TrackPointLayout(stride: stride, latitude: latitude, longitude: longitude, time: time, optional: optional)
    }()
}
