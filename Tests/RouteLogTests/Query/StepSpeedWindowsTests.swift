import Foundation
import Testing
@testable import RouteLog

/// The largest speed of a route without speeds of its own (format-spec.md, "Derived
/// fields", stats): windows counted against the record against every window sorted
/// anew, and the save's steps (measured once, by the gathering pass) against the public
/// computation from the points, to the bit.
@Suite struct StepSpeedWindowsTests {
    /// The windows as `RouteStats.movingTimeAndMaxSpeed` walked them before they were
    /// counted (ab9b661), word for word but for reading the steps from arrays: each
    /// window's speeds gathered and sorted.
    static func sortingEachWindow(lengths: [Double], times: [Double]) -> Double {
        let n = lengths.count
        guard n > 1 else { return 0 }
        let travelled = lengths.map(\.isFinite)  // the contract: a length not finite is a step not travelled
        var best = 0.0, start = 0
        var speeds: [Double] = []
        for end in 1..<n {
            guard travelled[end] else {
                start = end
                continue
            }
            func span(_ from: Int) -> Double { times[end] - times[from] }
            while start + 1 < end, span(start + 1) >= RouteStats.maxSpeedWindow || end - start > 64 { start += 1 }
            guard span(start) >= RouteStats.maxSpeedWindow else { continue }
            speeds.removeAll(keepingCapacity: true)
            for i in (start + 1)...end {
                let seconds = times[i] - times[i - 1]
                if seconds > 0 { speeds.append(lengths[i] / seconds) }
            }
            guard !speeds.isEmpty else { continue }
            speeds.sort()
            best = Swift.max(best, speeds[speeds.count / 2])
        }
        return best
    }

    /// `RouteStats.movingTimeAndMaxSpeed(_:segmentStarts:)` as it was before (ab9b661),
    /// word for word: the steps measured, then every window gathered and sorted.
    static func previousMovingTimeAndMaxSpeed(_ points: [TrackPoint], segmentStarts: [Int]) -> (moving: TimeInterval, maxSpeed: Double) {
        guard points.count > 1 else { return (0, max(0, points.first?.speed ?? 0)) }
        var reported = -1.0
        for point in points { if let speed = point.speed, speed.isFinite { reported = Swift.max(reported, speed) } }
        var steps = [Double](repeating: 0, count: points.count)
        var travelled = [Bool](repeating: false, count: points.count)
        var moving = 0.0
        RouteMetrics.forEachStep(points, segmentStarts) { i, length in
            steps[i] = length
            travelled[i] = true
            let seconds = points[i].timestamp.timeIntervalSince(points[i - 1].timestamp)
            if RouteMetrics.isMoving(length, seconds, RouteMetrics.defaultMinimumMovingSpeed) { moving += seconds }
        }
        if reported >= 0 { return (moving, reported) }
        var best = 0.0, start = 0
        var speeds: [Double] = []
        for end in 1..<points.count {
            guard travelled[end] else {
                start = end
                continue
            }
            func span(_ from: Int) -> Double { points[end].timestamp.timeIntervalSince(points[from].timestamp) }
            while start + 1 < end, span(start + 1) >= RouteStats.maxSpeedWindow || end - start > 64 { start += 1 }
            guard span(start) >= RouteStats.maxSpeedWindow else { continue }
            speeds.removeAll(keepingCapacity: true)
            for i in (start + 1)...end {
                let seconds = points[i].timestamp.timeIntervalSince(points[i - 1].timestamp)
                if seconds > 0 { speeds.append(steps[i] / seconds) }
            }
            guard !speeds.isEmpty else { continue }
            speeds.sort()
            best = Swift.max(best, speeds[speeds.count / 2])
        }
        return (moving, best)
    }

    /// The same value, and the same bits but for the sign of a zero.
    static func same(_ a: Double, _ b: Double) -> Bool { a.bitPattern == b.bitPattern || (a == 0 && b == 0) }

    static func largestMedian(lengths: [Double], times: [Double]) -> Double {
        lengths.withUnsafeBufferPointer { l in
            times.withUnsafeBufferPointer { t in
                StepSpeedWindows.largestMedian(count: l.count, lengths: l.baseAddress!, times: t.baseAddress!)
            }
        }
    }

    /// Steps built to find a difference: sampling from 0.01 s to an hour apart, time
    /// standing still or going back, runs of equal speeds, signed zeros, untravelled
    /// steps alone and in runs, windows held at 64 steps by fast sampling.
    static func hostileSteps(_ g: inout SeededGenerator) -> (lengths: [Double], times: [Double]) {
        let n = [0, 1, 2, 3, Int.random(in: 0...80, using: &g), Int.random(in: 0...3_000, using: &g)][Int.random(in: 0..<6, using: &g)]
        let rate = [0.01, 0.078, 0.079, 0.1, 0.5, 1, 5, 3_600][Int.random(in: 0..<8, using: &g)]  // 0.078: 64 steps span about 5 s
        var t = Double.random(in: -1e9...1e9, using: &g), lengths: [Double] = [], times: [Double] = []
        let speedsFew = [0.0, -0.0, 1.5, 1.5, 3, 250]
        // Speeds that rise or fall all along (a new record at almost every window, or
        // none after the first), or that rise and fall in waves.
        let trend = Int.random(in: 0..<4, using: &g)
        for i in 0..<n {
            switch Int.random(in: 0..<20, using: &g) {
            case 0: t += 0
            case 1: t -= rate
            case 2: t += 3_600
            default: t += rate * Double.random(in: 0.5...1.5, using: &g)
            }
            times.append(t)
            let x = Double(i)
            if trend == 1 { lengths.append(x * 0.01 * rate); continue }
            if trend == 2 { lengths.append(Double(n - i) * 0.01 * rate); continue }
            switch Int.random(in: 0..<(trend == 3 ? 14 : 12), using: &g) {
            case 12, 13: lengths.append((sin(x / 30) + 1.5) * rate)
            case 0: lengths.append(.nan)
            case 1...3: lengths.append(speedsFew.randomElement(using: &g)! * rate)
            case 4: lengths.append([0.0, -0.0, 1e300, .leastNonzeroMagnitude, .infinity, -.infinity].randomElement(using: &g)!)
            default: lengths.append(Double.random(in: 0...40, using: &g) * rate)
            }
        }
        return (lengths, times)
    }

    /// Equal values, and the same bits but for the sign of a zero (a window of -0 speeds
    /// made the sorting loop's record -0, which the stored cm/s cannot tell from 0).
    @Test func countingWindowsEqualSortingEachWindow() {
        var g = SeededGenerator(state: 0x57EB)
        var records = 0
        for round in 0..<3_000 {
            let (lengths, times) = Self.hostileSteps(&g)
            let expected = Self.sortingEachWindow(lengths: lengths, times: times)
            let got = Self.largestMedian(lengths: lengths, times: times)
            if expected > 0 { records += 1 }
            #expect(got == expected && (got == 0 || got.bitPattern == expected.bitPattern),
                    "round \(round): \(got) vs \(expected), \(lengths.count) steps")
        }
        #expect(records > 1_000)  // most rounds have a window with a speed to compare
    }

    @Test func aJitteredFixMakesNoRecordAtAnyRate() {
        // 1 m/s at a steady pace, one fix thrown 500 m out and back: the window's median
        // ignores the two fast steps, whether a window holds 6 steps or 51.
        for rate in [1.0, 0.5, 0.1] {
            let n = 2_000
            var lengths = [Double](repeating: rate, count: n)
            lengths[0] = .nan
            lengths[1_000] = 500
            lengths[1_001] = 500
            let times = (0..<n).map { Double($0) * rate }
            let best = Self.largestMedian(lengths: lengths, times: times)
            #expect(abs(best - 1) < 1e-9, "rate \(rate): \(best)")
            #expect(best.bitPattern == Self.sortingEachWindow(lengths: lengths, times: times).bitPattern)
        }
        // At 100 Hz, 64 steps span 0.64 s: no window spans 5 s, and no speed is measured.
        let lengths = [Double.nan] + [Double](repeating: 0.01, count: 999)
        #expect(Self.largestMedian(lengths: lengths, times: (0..<1_000).map { Double($0) * 0.01 }) == 0)
    }

    /// Routes without speeds (as most GPX files give them), or with a speed on a few
    /// points, at several sampling rates, with breaks and repeated or backward times.
    static func routeWithoutSpeeds(_ g: inout SeededGenerator) -> Route {
        let n = Int.random(in: 1...1_500, using: &g)
        let rate = [0.1, 1, 1, 5][Int.random(in: 0..<4, using: &g)]
        var t = 1_767_225_600.0, lat = Double.random(in: -80...80, using: &g), lon = Double.random(in: -179...179, using: &g)
        var points: [TrackPoint] = []
        let someSpeeds = Int.random(in: 0..<5, using: &g) == 0  // a speed on a few points: the points' own speeds count
        for i in 0..<n {
            t += [0, -rate, rate, rate, rate, rate][Int.random(in: 0..<6, using: &g)]
            lat += Double.random(in: -3e-5...3e-5, using: &g) * rate
            lon = max(-180, min(180, lon + Double.random(in: -3e-5...3e-5, using: &g) * rate))
            if i % 97 == 50 { lon += lon < 0 ? 0.5 : -0.5 }  // a long step (measured outside the short-step kernel)
            points.append(TrackPoint(latitude: lat, longitude: lon, timestamp: Date(timeIntervalSince1970: t),
                                     altitude: Bool.random(using: &g) ? Double.random(in: 0...300, using: &g) : nil,
                                     speed: i == 0 && Bool.random(using: &g) ? -1 : (someSpeeds && i % 7 == 3 ? 1.5 : nil)))
        }
        let starts = n > 2 ? Array(Set((0..<Int.random(in: 0...4, using: &g)).map { _ in Int.random(in: 1..<n, using: &g) })).sorted() : []
        return Route(points: points, segmentStarts: starts)
    }

    /// Points no save would take (the public computation takes any): coordinates and
    /// times that are NaN, infinite or huge, speeds on some points only (-1 counting as
    /// none), segment starts unsorted, repeated, negative and past the end.
    @Test func thePublicComputationEqualsThePreviousOneOnHostilePoints() {
        var g = SeededGenerator(state: 0x0DD5)
        let odd = [Double.nan, .infinity, -.infinity, 1e300, -1e300, 0, -0.0]
        var records = 0
        for round in 0..<3_000 {
            let n = [0, 1, 2, 3, Int.random(in: 0...40, using: &g), Int.random(in: 0...400, using: &g)][round % 6]
            let speeds = Int.random(in: 0..<3, using: &g)  // none, some, -1 only
            var t = Double.random(in: -1e9...1e9, using: &g), lat = 45.0, lon = 9.0
            let points = (0..<n).map { i -> TrackPoint in
                t += [0, 1, -1, 0.1, 3_600, 1][Int.random(in: 0..<6, using: &g)]
                lat = max(-90, min(90, lat + Double.random(in: -1e-4...1e-4, using: &g)))
                lon = max(-180, min(180, lon + Double.random(in: -1e-4...1e-4, using: &g)))
                let oddPoint = Int.random(in: 0..<25, using: &g) == 0
                let time = oddPoint && Bool.random(using: &g) ? odd.randomElement(using: &g)! : t
                let speed: Double? = speeds == 0 ? nil : speeds == 2 ? -1 : (i % 3 == 0 ? Double.random(in: -1...9, using: &g) : nil)
                return TrackPoint(latitude: oddPoint ? odd.randomElement(using: &g)! : lat, longitude: lon,
                                  timestamp: Date(timeIntervalSinceReferenceDate: time), speed: speed)
            }
            let starts = (0..<Int.random(in: 0...4, using: &g)).map { _ in Int.random(in: -2...(n + 2), using: &g) }
            let now = RouteStats.movingTimeAndMaxSpeed(points, segmentStarts: starts)
            let before = Self.previousMovingTimeAndMaxSpeed(points, segmentStarts: starts)
            if before.maxSpeed > 0 { records += 1 }
            #expect(now.moving.bitPattern == before.moving.bitPattern && Self.same(now.maxSpeed, before.maxSpeed),
                    "round \(round): \(now) vs \(before)")
        }
        #expect(records > 500)
    }

    @Test func theSavesMeasuredStepsGiveThePublicComputationsStats() throws {
        var g = SeededGenerator(state: 0x9A5)
        var fromSteps = 0
        for round in 0..<300 {
            let route = Self.routeWithoutSpeeds(&g)
            let columns = try PointColumns(route.points, validating: true, measuring: route.segmentStarts)
            let track = try #require(columns.measuredTrack)
            let saved = RouteStats.compute(route.points, segmentStarts: route.segmentStarts,
                                           movingTime: columns.statistics?.movingTime, measured: track)
            let computed = RouteStats.compute(route.points, segmentStarts: route.segmentStarts)
            #expect(SaveFastPathHostileTests.bits(saved) == SaveFastPathHostileTests.bits(computed),
                    "round \(round): \(saved) vs \(computed)")
            let before = Self.previousMovingTimeAndMaxSpeed(route.points, segmentStarts: route.segmentStarts)
            #expect(saved.movingTime.bitPattern == before.moving.bitPattern && Self.same(saved.maxSpeed, before.maxSpeed),
                    "round \(round): \(saved) vs the previous \(before)")
            if computed.maxSpeed > 0 && computed.maxSpeed != 1.5 { fromSteps += 1 }
        }
        #expect(fromSteps > 150)
    }

    @Test func aSavedRouteWithoutSpeedsStoresTheStatsItsPointsGive() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        var g = SeededGenerator(state: 0xB1CE)
        for _ in 0..<20 {
            let route = Self.routeWithoutSpeeds(&g)
            let id = try store.save(route)
            let stored = try #require(try store.summary(id).stats)
            let expected = RouteStats.compute(route.points, segmentStarts: route.segmentStarts)
            #expect(stored == expected.quantizedForTest)
        }
        try store.close()
    }
}
