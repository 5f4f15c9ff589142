import CRouteLogSystem
import Testing
@testable import RouteLog
import RouteLogSamples

/// `routelog_first_point_out_of_range`, a load's check that every point's stored
/// coordinates and time are ones a writer can have stored, finds the first point out of
/// range (on the vector path and the portable one) as a point-by-point check does: one
/// bad value at every place around its blocks of 64, values at the edges of each range,
/// and with no times.
@Suite struct PointRangeCheckTests {
    static let ranges = PointBlockV2.storedRanges

    static func firstByHand(_ lat: [Int64], _ lon: [Int64], _ time: [Int64]?) -> Int {
        lat.indices.first { i in
            let t = time?[i] ?? 0
            return !(lat[i] >= -900_000_000 && lat[i] <= 900_000_000 && lon[i] >= -1_800_000_000 && lon[i] <= 1_800_000_000
                     && t >= 0 && t <= FormatConstants.latestTimestampMs)
        } ?? lat.count
    }

    static func expectBoth(_ lat: [Int64], _ lon: [Int64], _ time: [Int64]?, _ comment: String) {
        var r = ranges
        let expected = firstByHand(lat, lon, time)
        let wide = time.map { routelog_first_point_out_of_range(lat, lon, $0, lat.count, &r) }
            ?? routelog_first_point_out_of_range(lat, lon, nil, lat.count, &r)
        let portable = time.map { routelog_first_point_out_of_range_portable(lat, lon, $0, lat.count, &r) }
            ?? routelog_first_point_out_of_range_portable(lat, lon, nil, lat.count, &r)
        #expect(wide == expected && portable == expected, "\(comment): \(wide), \(portable), expected \(expected)")
    }

    @Test func oneBadValueAtEveryPlace() {
        let edges: [(field: Int, value: Int64)] = [
            (0, 900_000_001), (0, -900_000_001), (0, .min), (0, .max), (1, 1_800_000_001), (1, -1_800_000_001), (1, .min),
            (2, -1), (2, FormatConstants.latestTimestampMs + 1), (2, .min), (2, .max),
        ]
        var g = SeededGenerator(state: 64)
        for count in [0, 1, 3, 4, 5, 63, 64, 65, 127, 128, 129, 200] {
            let lat = (0..<count).map { _ in Int64.random(in: -900_000_000...900_000_000, using: &g) }
            let lon = (0..<count).map { _ in Int64.random(in: -1_800_000_000...1_800_000_000, using: &g) }
            let time = (0..<count).map { _ in Int64.random(in: 0...FormatConstants.latestTimestampMs, using: &g) }
            Self.expectBoth(lat, lon, time, "\(count) points, none out of range")
            Self.expectBoth(lat, lon, nil, "\(count) points, no times")
            for place in 0..<count {
                for edge in edges {
                    var columns = [lat, lon, time]
                    columns[edge.field][place] = edge.value
                    Self.expectBoth(columns[0], columns[1], columns[2], "\(count) points, field \(edge.field) = \(edge.value) at \(place)")
                    if edge.field < 2 { Self.expectBoth(columns[0], columns[1], nil, "no times, field \(edge.field) at \(place)") }
                }
            }
        }
    }

    @Test func theRangesOwnEdgesAreInRange() {
        let lat: [Int64] = [900_000_000, -900_000_000, 0, 0, 5], lon: [Int64] = [1_800_000_000, -1_800_000_000, 0, 0, 5]
        let time: [Int64] = [0, FormatConstants.latestTimestampMs, 0, 0, 1]
        Self.expectBoth(lat, lon, time, "the edges")
        var r = Self.ranges
        #expect(routelog_first_point_out_of_range(lat, lon, time, lat.count, &r) == lat.count)
    }

    /// With no times, every time counts as 0: out of range only for ranges that hold no
    /// time at all, on both paths and in whole blocks as in the tail.
    @Test func noTimesAreTimesOfZero() {
        var r = routelog_point_ranges(latitude: 900_000_000, longitude: 1_800_000_000, latest_time: -1)
        for count in [1, 63, 64, 65, 200] {
            let zeros = [Int64](repeating: 0, count: count)
            #expect(routelog_first_point_out_of_range(zeros, zeros, nil, count, &r) == 0, "\(count) points")
            #expect(routelog_first_point_out_of_range_portable(zeros, zeros, nil, count, &r) == 0, "\(count) points")
        }
        #expect(routelog_first_point_out_of_range([], [], nil, 0, &r) == 0)
    }
}
