import Foundation
import Testing
@testable import RouteLog

/// The save's one-pass stats and two-tracker farthest scan on inputs built to find a
/// difference: non-finite values, signed zeros, segment starts in every wrong shape,
/// long runs of equal keys, coordinates at the poles and across the antimeridian.
@Suite struct SaveFastPathHostileTests {
    /// `RouteStats.compute` as it was before the one-pass loop (829caad), word for word.
    static func previousStats(_ points: [TrackPoint], segmentStarts: [Int], movingTime: TimeInterval?) -> RouteStats {
        func meanAndMax(_ values: some Sequence<Double>) -> (mean: Double, max: Double)? {
            var sum = 0.0, count = 0, largest = -Double.infinity
            for value in values where value.isFinite {
                sum += value
                count += 1
                largest = Swift.max(largest, value)
            }
            return count == 0 ? nil : (sum / Double(count), largest)
        }
        func elevationChange(_ altitudes: some Sequence<Double>, threshold: Double) -> (gain: Double?, loss: Double?) {
            var iterator = altitudes.makeIterator()
            guard var reference = iterator.next() else { return (nil, nil) }
            var gain = 0.0, loss = 0.0
            var direction = 0
            while let altitude = iterator.next() {
                guard altitude.isFinite else { continue }
                let change = altitude - reference
                switch direction {
                case 1 where change > 0, 0 where change >= threshold, -1 where change >= threshold:
                    gain += change
                    reference = altitude
                    direction = 1
                case -1 where change < 0, 0 where change <= -threshold, 1 where change <= -threshold:
                    loss -= change
                    reference = altitude
                    direction = -1
                default:
                    break
                }
            }
            return (gain, loss)
        }
        let (moving, maxSpeed) = RouteStats.movingTimeAndMaxSpeed(points, segmentStarts: segmentStarts, knownMovingTime: movingTime)
        var gain: Double?, loss: Double?
        var start = 0
        for end in (segmentStarts.filter { $0 > 0 && $0 < points.count } + [points.count]) where end > start {
            let (g, l) = elevationChange(points[start..<end].lazy.compactMap(\.altitude), threshold: RouteStats.elevationNoiseThreshold)
            if let g, let l {
                gain = (gain ?? 0) + g
                loss = (loss ?? 0) + l
            }
            start = end
        }
        let hr = meanAndMax(points.lazy.compactMap(\.heartRate))
        let cadence = meanAndMax(points.lazy.compactMap(\.cadence))
        return RouteStats(movingTime: moving, maxSpeed: maxSpeed, elevationGain: gain, elevationLoss: loss,
                          averageHeartRate: hr?.mean, maxHeartRate: hr?.max,
                          averageCadence: cadence?.mean, maxCadence: cadence?.max)
    }

    /// Every figure's bits (NaN and -0 included), nil kept apart from any value.
    static func bits(_ s: RouteStats) -> [UInt64?] {
        [s.movingTime, s.maxSpeed, s.elevationGain, s.elevationLoss, s.averageHeartRate, s.maxHeartRate,
         s.averageCadence, s.maxCadence].map { $0?.bitPattern }
    }

    static func hostileValue(_ g: inout SeededGenerator, _ range: ClosedRange<Double>) -> Double? {
        switch Int.random(in: 0..<12, using: &g) {
        case 0...3: return nil
        case 4: return [Double.infinity, -.infinity, .nan, 0.0, -0.0, range.lowerBound, range.upperBound].randomElement(using: &g)
        case 5: return (Double.random(in: range, using: &g) * 2).rounded() / 2  // ties and repeats
        default: return Double.random(in: range, using: &g)
        }
    }

    @Test func statsEqualThePreviousDefinitionToTheBitOnHostileInputs() {
        var g = SeededGenerator(state: 0xA77AC)
        let t0 = Date(timeIntervalSince1970: 1_767_225_600)
        for round in 0..<2_000 {
            let count = [0, 1, 2, 3, Int.random(in: 0...60, using: &g), Int.random(in: 0...600, using: &g)][round % 6]
            var points: [TrackPoint] = []
            var t = 0.0
            for i in 0..<count {
                t += [0, 1, -1, 0.25, 3_600][Int.random(in: 0..<5, using: &g)]
                points.append(TrackPoint(
                    latitude: Double.random(in: -90...90, using: &g) * (i % 7 == 0 ? 1 : 1e-4),
                    longitude: Double.random(in: -180...180, using: &g) * (i % 5 == 0 ? 1 : 1e-4),
                    timestamp: t0.addingTimeInterval(t),
                    altitude: Self.hostileValue(&g, -500...9000),
                    speed: Self.hostileValue(&g, -1...80),
                    heartRate: Self.hostileValue(&g, 0...220),
                    cadence: Self.hostileValue(&g, 0...200)))
            }
            // Segment starts at 0 and at count, past it, negative, repeated, unsorted.
            var starts = (0..<Int.random(in: 0...6, using: &g)).map { _ in Int.random(in: -2...(count + 2), using: &g) }
            if round % 4 == 0 { starts.sort() }
            if round % 4 == 1 { starts += [0, count, count] }
            let known: TimeInterval? = Bool.random(using: &g) ? RouteMetrics.movingTime(of: points, segmentStarts: starts) : nil
            let fast = RouteStats.compute(points, segmentStarts: starts, movingTime: known)
            let previous = Self.previousStats(points, segmentStarts: starts, movingTime: known)
            #expect(Self.bits(fast) == Self.bits(previous), "round \(round): \(fast) vs \(previous), starts \(starts)")
        }
    }

    /// The save reads the stats' fields from the copies its first pass made (a field at
    /// a time, none for a field no point has), not from the points: the same bits.
    @Test func statsFromTheFirstPassCopiesEqualStatsFromThePoints() throws {
        var g = SeededGenerator(state: 0xC0B1E5)
        let t0 = Date(timeIntervalSince1970: 1_767_225_600)
        var copied = 0
        for round in 0..<1_500 {
            let count = [1, 2, 3, Int.random(in: 1...60, using: &g), Int.random(in: 1...600, using: &g)][round % 5]
            // Each field present everywhere, nowhere, or here and there, with hostile values.
            let kinds = (0..<4).map { _ in Int.random(in: 0..<3, using: &g) }
            func value(_ kind: Int, _ range: ClosedRange<Double>) -> Double? {
                switch kind {
                case 0: return nil
                case 1: return Self.hostileValue(&g, range) ?? Double.random(in: range, using: &g)
                default: return Self.hostileValue(&g, range)
                }
            }
            var t = 0.0
            let points = (0..<count).map { _ in
                t += [0, 1, -1, 0.25][Int.random(in: 0..<4, using: &g)]
                return TrackPoint(latitude: 45 + Double.random(in: 0...1e-3, using: &g), longitude: 9 + Double.random(in: 0...1e-3, using: &g),
                                  timestamp: t0.addingTimeInterval(t), altitude: value(kinds[0], -500...9000),
                                  speed: value(kinds[1], -1...80), heartRate: value(kinds[2], 0...220), cadence: value(kinds[3], 0...200))
            }
            // Segment starts as a save takes them (it refuses others): increasing, inside.
            let starts = count > 2 ? Array(Set((0..<Int.random(in: 0...4, using: &g)).map { _ in Int.random(in: 1..<count, using: &g) })).sorted() : []
            let columns = try PointColumns(points, validating: false, measuring: starts)
            let track = try #require(columns.measuredTrack)
            if track.statsFields != nil { copied += 1 }
            let fromCopies = RouteStats.compute(points, segmentStarts: starts, movingTime: columns.statistics?.movingTime,
                                                measured: track)
            let fromPoints = RouteStats.compute(points, segmentStarts: starts, movingTime: columns.statistics?.movingTime)
            #expect(Self.bits(fromCopies) == Self.bits(fromPoints), "round \(round): \(fromCopies) vs \(fromPoints)")
        }
        #expect(copied == 1_500)  // the first pass read the points a field at a time every time
    }

    /// Lines whose keys tie in long runs, at odd and even offsets alike.
    static func tyingLines(_ g: inout SeededGenerator) -> [[Coordinate]] {
        let n = Int.random(in: 3...300, using: &g)
        let standing = [Coordinate](repeating: Coordinate(latitude: 45, longitude: 9), count: n)
        // Alternating sides of the chord at the same offset: every inner point ties.
        func offset(_ i: Int) -> Double {
            if i == 0 || i == n - 1 { return 0 }
            return i % 2 == 0 ? 1e-3 : -1e-3
        }
        let mirrored = (0..<n).map { i in Coordinate(latitude: offset(i), longitude: Double(i) * 1e-4) }
        // A plateau whose first top is at an even offset, then odd ones, then even again.
        let top = Int.random(in: 1..<(n - 1), using: &g)
        func height(_ i: Int) -> Double {
            if i == 0 || i == n - 1 { return 0 }
            return i >= top && (i - top) % 3 != 1 ? 2e-3 : 1e-3
        }
        let plateau = (0..<n).map { i in Coordinate(latitude: height(i), longitude: Double(i) * 1e-4) }
        // Few distinct places, round the poles and across the antimeridian.
        let places = [Coordinate(latitude: 90, longitude: 180), Coordinate(latitude: -90, longitude: -180),
                      Coordinate(latitude: 89.9999999, longitude: 179.9999999), Coordinate(latitude: 0, longitude: -180),
                      Coordinate(latitude: 0, longitude: 180), Coordinate(latitude: -89.9999999, longitude: 0)]
        let extreme = (0..<n).map { _ in places.randomElement(using: &g)! }
        // Points beyond both ends of the chord, at equal distances from them.
        func along(_ i: Int) -> Double {
            if i == 0 { return 0 }
            if i == n - 1 { return 1e-3 }
            return i % 2 == 0 ? -1e-3 : 2e-3
        }
        let beyond = (0..<n).map { i in Coordinate(latitude: 10, longitude: along(i)) }
        return [standing, mirrored, plateau, extreme, beyond]
    }

    @Test func farthestMatchesOneScanOverTiesAndExtremes() {
        var g = SeededGenerator(state: 0xF00D)
        for round in 0..<60 {
            for (shape, line) in Self.tyingLines(&g).enumerated() {
                let s = PreviewSimplifier(line)
                let n = line.count
                var spans = [(0, n - 1), (0, 2), (n - 3, n - 1), (1, n - 1), (0, n - 2)].filter { $0.0 >= 0 && $0.1 >= $0.0 }
                for _ in 0..<40 {
                    let a = Int.random(in: 0..<n, using: &g)
                    spans.append((a, Int.random(in: a..<n, using: &g)))
                }
                for (a, b) in spans {
                    #expect(s.farthest(a, b)?.index == DerivedFieldsFastPathTests.referenceFarthest(s, a, b), "round \(round), shape \(shape), span \(a)...\(b)")
                }
            }
        }
    }

    @Test func previewFromColumnsEqualsPreviewFromCoordinatesAtTheEdgesOfTheGlobe() throws {
        var g = SeededGenerator(state: 0xE0E)
        let t0 = Date(timeIntervalSince1970: 1_767_225_600)
        var lines = [[Coordinate]]()
        for _ in 0..<40 { lines += Self.tyingLines(&g) }
        // A route hopping across the antimeridian at every step, and one circling a pole.
        lines.append((0..<3_000).map { Coordinate(latitude: Double($0 % 13) - 6, longitude: $0 % 2 == 0 ? 179.9999 : -179.9999) })
        lines.append((0..<3_000).map { Coordinate(latitude: 89.99, longitude: Double($0 % 360) - 180) })
        lines.append([Coordinate(latitude: -90, longitude: -180)])
        lines.append([Coordinate(latitude: 90, longitude: 180), Coordinate(latitude: -90, longitude: -180)])
        for (k, line) in lines.enumerated() {
            let points = line.enumerated().map { TrackPoint(latitude: $1.latitude, longitude: $1.longitude, timestamp: t0.addingTimeInterval(Double($0))) }
            let columns = try PointColumns(points, validating: false)
            let latitudes = columns.latitudes.buffer, longitudes = columns.longitudes.buffer
            let stored = (0..<columns.count).map {
                Coordinate(latitude: Quantization.degrees(latitudes[$0]), longitude: Quantization.degrees(longitudes[$0]))
            }
            let fromColumns = PreviewSimplifier(latitudes: latitudes, longitudes: longitudes)
            let fromCoordinates = PreviewSimplifier(stored)
            #expect(fromColumns.x.map(\.bitPattern) == fromCoordinates.x.map(\.bitPattern), "line \(k)")
            #expect(fromColumns.y.map(\.bitPattern) == fromCoordinates.y.map(\.bitPattern), "line \(k)")
            let kept = fromColumns.keep(maxPoints: RoutePreview.maxPoints, tolerance: RoutePreview.minimumTolerance)
            let expected = fromCoordinates.keep(maxPoints: RoutePreview.maxPoints, tolerance: RoutePreview.minimumTolerance)
            #expect(kept.indices == expected.indices && kept.error.bitPattern == expected.error.bitPattern, "line \(k)")
            #expect(kept.indices.count <= RoutePreview.maxPoints && kept.indices.first == 0 && kept.indices.last == line.count - 1)
        }
    }
}
