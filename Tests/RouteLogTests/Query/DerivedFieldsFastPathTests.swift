import Foundation
import Testing
@testable import RouteLog

/// The save computes stats and the preview in loops shaped for speed; these check them,
/// to the bit, against plain implementations of the same definitions: a faster save
/// must store exactly what a slower one stored.
@Suite struct DerivedFieldsFastPathTests {
    /// Stats as their definition reads, one field at a time (format-spec.md, "Derived
    /// fields"): elevation per segment over the points with an altitude, rates over the
    /// points with one, the moving time and largest speed from the steps.
    static func referenceStats(_ points: [TrackPoint], segmentStarts: [Int]) -> RouteStats {
        func hysteresis(_ altitudes: [Double]) -> (Double, Double)? {
            guard var reference = altitudes.first else { return nil }
            var gain = 0.0, loss = 0.0, direction = 0
            for altitude in altitudes.dropFirst() where altitude.isFinite {
                let change = altitude - reference
                let threshold = RouteStats.elevationNoiseThreshold
                if (direction == 1 && change > 0) || (direction != 1 && change >= threshold) {
                    (gain, reference, direction) = (gain + change, altitude, 1)
                } else if (direction == -1 && change < 0) || (direction != -1 && change <= -threshold) {
                    (loss, reference, direction) = (loss - change, altitude, -1)
                }
            }
            return (gain, loss)
        }
        func rate(_ values: [Double]) -> (Double, Double)? {
            let finite = values.filter(\.isFinite)
            guard let top = finite.max() else { return nil }
            return (finite.reduce(0, +) / Double(finite.count), top)
        }
        var gain: Double?, loss: Double?, start = 0
        for end in segmentStarts.filter({ $0 > 0 && $0 < points.count }) + [points.count] where end > start {
            if let (g, l) = hysteresis(points[start..<end].compactMap(\.altitude)) {
                gain = (gain ?? 0) + g
                loss = (loss ?? 0) + l
            }
            start = end
        }
        let (moving, fastest) = RouteStats.movingTimeAndMaxSpeed(points, segmentStarts: segmentStarts)
        let hr = rate(points.compactMap(\.heartRate)), cadence = rate(points.compactMap(\.cadence))
        return RouteStats(movingTime: moving, maxSpeed: fastest, elevationGain: gain, elevationLoss: loss,
                          averageHeartRate: hr?.0, maxHeartRate: hr?.1, averageCadence: cadence?.0, maxCadence: cadence?.1)
    }

    @Test func statsEqualTheirDefinitionToTheBit() {
        var routes = RandomRoutes(seed: 13)
        var g = SeededGenerator(state: 7)
        for round in 0..<300 {
            let route = routes.next()
            // Segment starts as apps pass them: sorted, unsorted, repeated, out of range.
            var starts = route.segmentStarts
            if round % 3 == 1 { starts = starts.reversed() + [route.points.count + 5, 0] }
            if round % 3 == 2, let first = starts.first { starts += [first, -1] }
            let moving = Bool.random(using: &g) ? RouteMetrics.movingTime(of: route.points, segmentStarts: starts) : nil
            let fast = RouteStats.compute(route.points, segmentStarts: starts, movingTime: moving)
            let reference = Self.referenceStats(route.points, segmentStarts: starts)
            #expect(fast == reference, "round \(round): \(fast) vs \(reference)")
        }
    }

    @Test func climbsAndRatesOverMissingValuesAndSegments() {
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        let altitudes: [Double?] = [100, nil, 104, 105, nil, 101, 99, 500, 503, nil, 497]
        let points = altitudes.enumerated().map { i, altitude in
            TrackPoint(latitude: 45 + Double(i) * 1e-5, longitude: 9, timestamp: start.addingTimeInterval(Double(i)),
                       altitude: altitude, heartRate: i % 2 == 0 ? Double(100 + i) : nil, cadence: i == 3 ? 80 : nil)
        }
        let stats = RouteStats.compute(points, segmentStarts: [7])
        // First segment: 100 -> 104 -> 105 climbs 5, then 105 -> 101 -> 99 descends 6;
        // the jump to 500 starts a segment; 500 -> 503 climbs 3, 503 -> 497 descends 6.
        #expect(stats.elevationGain == 8 && stats.elevationLoss == 12)
        #expect(stats.averageHeartRate == 105 && stats.maxHeartRate == 110)
        #expect(stats.averageCadence == 80 && stats.maxCadence == 80)
        #expect(stats == Self.referenceStats(points, segmentStarts: [7]))
    }

    /// The farthest point of a span as one scan in order finds it: the first of the
    /// points with the largest key.
    static func referenceFarthest(_ s: PreviewSimplifier, _ a: Int, _ b: Int) -> Int? {
        b - a > 1 ? FarthestPointKernelTests.reference(s.x, s.y, a, b) : nil
    }

    @Test func farthestPicksTheFirstOfEqualPoints() {
        var g = SeededGenerator(state: 17)
        for round in 0..<200 {
            let n = Int.random(in: 2...40, using: &g)
            // Few distinct positions, so that many points tie: standing still, going
            // back and forth, mirrored zigzags.
            let grid = Int.random(in: 1...4, using: &g)
            let coordinates = (0..<n).map { _ in
                Coordinate(latitude: 45 + Double(Int.random(in: 0..<grid, using: &g)) * 1e-4,
                           longitude: 9 + Double(Int.random(in: 0..<grid, using: &g)) * 1e-4)
            }
            let simplifier = PreviewSimplifier(coordinates)
            for a in 0..<n {
                for b in a..<n {
                    #expect(simplifier.farthest(a, b)?.index == Self.referenceFarthest(simplifier, a, b),
                            "round \(round), span \(a)...\(b)")
                }
            }
        }
    }

    @Test func previewFromStoredColumnsEqualsPreviewFromCoordinates() throws {
        var routes = RandomRoutes(seed: 29)
        for _ in 0..<100 {
            let route = routes.next()
            let columns = try PointColumns(route.points, validating: false)
            let latitudes = columns.latitudes.buffer, longitudes = columns.longitudes.buffer
            let coordinates = (0..<columns.count).map {
                Coordinate(latitude: Quantization.degrees(latitudes[$0]), longitude: Quantization.degrees(longitudes[$0]))
            }
            let fromColumns = PreviewSimplifier(latitudes: latitudes, longitudes: longitudes)
            let fromCoordinates = PreviewSimplifier(coordinates)
            #expect(fromColumns.x == fromCoordinates.x && fromColumns.y == fromCoordinates.y)
            let kept = fromColumns.keep(maxPoints: RoutePreview.maxPoints, tolerance: RoutePreview.minimumTolerance)
            let expected = fromCoordinates.keep(maxPoints: RoutePreview.maxPoints, tolerance: RoutePreview.minimumTolerance)
            #expect(kept.indices == expected.indices && kept.error == expected.error)
        }
    }

    /// The largest reported speed, four running maxima side by side, is the plain
    /// loop's to the bit: values of every kind (NaN, infinities, the absent pattern, the
    /// invalid -1, zeros of both signs, equal values), every count around the groups of
    /// four, and the case where the largest is a zero, whose sign the order decides.
    @Test func largestSpeedIsThePlainLoops() {
        var g = SeededGenerator(state: 0x5BEED)
        let kinds: [Double] = [.nan, .infinity, -.infinity, Double(bitPattern: TrackPoint.absentBitPattern), -1, -1.5,
                               0, -0.0, 0.25, 3.75, 3.75, 12.5, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                               .leastNonzeroMagnitude, -.leastNonzeroMagnitude]
        func plain(_ values: [Double], _ start: Double) -> Double {
            var largest = start
            for value in values where value.isFinite { largest = Swift.max(largest, value) }
            return largest
        }
        for round in 0..<4_000 {
            let count = round < 200 ? round % 20 : Int.random(in: 0...300, using: &g)
            // Some rounds only zeros, negatives and values that are not finite: the
            // largest is then a zero or the start.
            let pool = round % 3 == 0 ? [0.0, -0.0, -1, .nan, -.infinity, .infinity] : kinds
            let values = (0..<count).map { _ in
                Bool.random(using: &g) ? pool.randomElement(using: &g)! : Double.random(in: -2...40, using: &g)
            }
            for start in [-1.0, 0, -0.0] {
                let fast = values.withUnsafeBufferPointer { RouteStats.largestFinite($0.baseAddress ?? UnsafePointer(bitPattern: 8)!, count: count, startingAt: start) }
                #expect(fast.bitPattern == plain(values, start).bitPattern, "round \(round), start \(start): \(values)")
            }
        }
    }
}
