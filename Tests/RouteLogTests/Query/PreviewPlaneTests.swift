import CRouteLogSystem
import Foundation
import Testing
@testable import RouteLog

/// `routelog_project_on_plane`, the preview's plane four points at a time where the
/// running longitude is provably each point's own, gives the x and y the Swift loop gave
/// before it, on the vector path and the portable one: across the antimeridian and the
/// prime meridian, steps of exactly 180 degrees and just past, equal points, signed zeros,
/// NaN, infinities and the absent pattern, and every count around the four-point loop.
/// A NaN's payload is left out of the comparison: it comes from whichever operand a
/// compiler put first, and the plane's NaNs are never kept nor measured.
@Suite struct PreviewPlaneTests {
    /// The plane as `PreviewSimplifier` made it before the kernel (99fae52), word for word.
    static func previousPlane(_ latitudes: [Double], _ longitudes: [Double]) -> (x: [Double], y: [Double]) {
        let count = latitudes.count
        guard count > 0 else { return ([], []) }
        let metresPerDegree = 6_371_008.8 * Double.pi / 180
        var sums = (0.0, 0.0, 0.0, 0.0), i = 0
        while i + 4 <= count {
            sums.0 += latitudes[i]
            sums.1 += latitudes[i + 1]
            sums.2 += latitudes[i + 2]
            sums.3 += latitudes[i + 3]
            i += 4
        }
        while i < count {
            sums.0 += latitudes[i]
            i += 1
        }
        let meanLat = ((sums.0 + sums.1) + (sums.2 + sums.3)) / Double(count)
        let lonScale = metresPerDegree * cos(meanLat * .pi / 180)
        var x = [Double](repeating: 0, count: count), y = x
        var lon = longitudes[0], previous = lon
        for i in 0..<count {
            let longitude = longitudes[i]
            var step = longitude - previous
            if step > 180 { step -= 360 } else if step < -180 { step += 360 }
            lon += step
            previous = longitude
            x[i] = lon * lonScale
            y[i] = latitudes[i] * metresPerDegree
        }
        return (x, y)
    }

    /// Bits, with every NaN as one.
    static func bits(_ values: [Double]) -> [UInt64] { values.map { $0.isNaN ? Double.nan.bitPattern : $0.bitPattern } }

    /// Lines of longitudes that cross the antimeridian and the prime meridian, stand
    /// still, take steps of 180 degrees and just past it, and now and then a hostile value.
    static func lines(_ g: inout SeededGenerator) -> [(latitudes: [Double], longitudes: [Double])] {
        var lines: [([Double], [Double])] = []
        let hostile: [Double] = [.nan, .infinity, -.infinity, Double(bitPattern: TrackPoint.absentBitPattern), -0.0, 0,
                                 1e300, -1e300, .leastNonzeroMagnitude]
        let steps: [Double] = [180, -180, 180.00000000000003, -179.99999999999997, 360, 0, 1e-300, -0.0]
        for round in 0..<400 {
            let n = round < 60 ? round % 15 : Int.random(in: 0...300, using: &g)
            var lat = Double.random(in: -90...90, using: &g)
            var lon = round % 3 == 0 ? Double.random(in: -1e-3...1e-3, using: &g) : Double.random(in: -180...180, using: &g)
            let jumps = round % 4 == 0 ? 5 : 300
            var latitudes: [Double] = [], longitudes: [Double] = []
            for _ in 0..<n {
                if Int.random(in: 0..<jumps, using: &g) == 0 {
                    switch Int.random(in: 0..<3, using: &g) {
                    case 0: lon += steps.randomElement(using: &g)!
                    case 1: lon = Bool.random(using: &g) ? 179.9999999 : -179.9999999
                    default: lon = Double.random(in: -1e-4...1e-4, using: &g)
                    }
                } else if Int.random(in: 0..<8, using: &g) != 0 {
                    lon += Double.random(in: -2e-4...2e-4, using: &g)
                    lat += Double.random(in: -1e-4...1e-4, using: &g)
                }
                if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
                let wild = round % 2 == 0 ? 100 : 100_000
                latitudes.append(Int.random(in: 0..<wild, using: &g) == 0 ? hostile.randomElement(using: &g)! : lat)
                longitudes.append(Int.random(in: 0..<wild, using: &g) == 0 ? hostile.randomElement(using: &g)! : lon)
            }
            lines.append((latitudes, longitudes))
        }
        lines.append(([1, 2, 3], [-0.0, -0.0, 0]))  // a first longitude of -0: the running one is +0
        lines.append(((0..<3_000).map { Double($0 % 13) - 6 }, (0..<3_000).map { $0 % 2 == 0 ? 179.9999 : -179.9999 }))
        lines.append(([Double](repeating: 89.99, count: 3_000), (0..<3_000).map { Double($0 % 360) - 180 }))
        return lines
    }

    @Test func bothPathsGiveThePreviousPlane() {
        var g = SeededGenerator(state: 0x91A4E)
        for (k, line) in Self.lines(&g).enumerated() {
            let n = line.latitudes.count
            let expected = Self.previousPlane(line.latitudes, line.longitudes)
            let meanLat = n == 0 ? 0 : Self.previousLonScaleLatitude(line.latitudes)
            let metresPerDegree = 6_371_008.8 * Double.pi / 180
            let lonScale = metresPerDegree * cos(meanLat * .pi / 180)
            for wide in [true, false] {
                var x = [Double](repeating: 12345, count: n), y = x
                let project = wide ? routelog_project_on_plane : routelog_project_on_plane_portable
                withExactlySizedBuffers(line.latitudes, line.longitudes, offset: 0) { lat, lon in
                    project(lat, lon, n, lonScale, metresPerDegree, &x, &y)
                }
                let label = "line \(k) (\(wide ? "vector" : "portable"))"
                #expect(Self.bits(x) == Self.bits(expected.x), "\(label): x")
                #expect(Self.bits(y) == Self.bits(expected.y), "\(label): y")
            }
            let coordinates = zip(line.latitudes, line.longitudes).map { Coordinate(latitude: $0, longitude: $1) }
            let simplifier = PreviewSimplifier(coordinates)
            #expect(Self.bits(simplifier.x) == Self.bits(expected.x) && Self.bits(simplifier.y) == Self.bits(expected.y),
                    "line \(k): PreviewSimplifier")
        }
    }

    /// The mean latitude as the previous plane computed it.
    static func previousLonScaleLatitude(_ latitudes: [Double]) -> Double {
        var sums = (0.0, 0.0, 0.0, 0.0), i = 0
        while i + 4 <= latitudes.count {
            sums.0 += latitudes[i]
            sums.1 += latitudes[i + 1]
            sums.2 += latitudes[i + 2]
            sums.3 += latitudes[i + 3]
            i += 4
        }
        while i < latitudes.count {
            sums.0 += latitudes[i]
            i += 1
        }
        return ((sums.0 + sums.1) + (sums.2 + sums.3)) / Double(latitudes.count)
    }

    @Test func storedColumnsGiveThePreviousPlane() throws {
        var g = SeededGenerator(state: 0x5707ED)
        let t0 = Date(timeIntervalSince1970: 1_767_225_600)
        for (k, line) in Self.lines(&g).enumerated() {
            // Stored coordinates are on the globe and finite.
            let points = zip(line.latitudes, line.longitudes).enumerated().map { i, c in
                TrackPoint(latitude: c.0.isFinite ? min(90, max(-90, c.0)) : 0, longitude: c.1.isFinite ? min(180, max(-180, c.1)) : 0,
                           timestamp: t0.addingTimeInterval(Double(i)))
            }
            let columns = try PointColumns(points, validating: false)
            let latitudes = columns.latitudes.buffer, longitudes = columns.longitudes.buffer
            let expected = Self.previousPlane(latitudes.map(Quantization.degrees), longitudes.map(Quantization.degrees))
            let simplifier = PreviewSimplifier(latitudes: latitudes, longitudes: longitudes)
            #expect(simplifier.x.map(\.bitPattern) == expected.x.map(\.bitPattern), "line \(k): x")
            #expect(simplifier.y.map(\.bitPattern) == expected.y.map(\.bitPattern), "line \(k): y")
        }
    }
}
