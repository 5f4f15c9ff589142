import CRouteLogSystem
import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// `routelog_sum_steps`, which adds a save's steps to its distance and moving time, gives
/// the sums and lengths one loop over the steps gives, on the vector path and the
/// portable one; and the save's measuring pass built on it gives what it gave before it,
/// to the bit: lengths and times that are NaN, infinite, the absent pattern or signed
/// zeros, steps left to the caller (-1) at every place around the four-step loop, time
/// standing still or going back, segment starts of every shape.
@Suite struct StepSumsTests {
    /// The sums as one plain loop adds them, stopping at the first negative length.
    static func reference(_ times: [Double], _ lengths: inout [Double], _ from: Int, _ to: Int, _ minimumSpeed: Double,
                          _ distance: inout Double, _ moving: inout Double) -> Int {
        for i in from..<to {
            let length = lengths[i]
            if length < 0 { return i }
            let seconds = times[i] - times[i - 1]
            let finite = length.isFinite
            lengths[i] = finite ? length : .nan
            distance += finite ? length : 0
            moving += finite && seconds > 0 && length >= minimumSpeed * seconds ? seconds : 0
        }
        return to
    }

    static func hostile(_ g: inout SeededGenerator, _ usual: Double) -> Double {
        switch Int.random(in: 0..<16, using: &g) {
        case 0: return [Double.nan, .infinity, -.infinity, Double(bitPattern: TrackPoint.absentBitPattern), -0.0, 0,
                        .greatestFiniteMagnitude, .leastNonzeroMagnitude].randomElement(using: &g)!
        case 1: return -1  // a step the caller measures
        default: return usual
        }
    }

    @Test func bothPathsAddWhatOneLoopAdds() {
        var g = SeededGenerator(state: 0x57E95)
        for round in 0..<3_000 {
            let n = round < 300 ? round % 30 + 1 : Int.random(in: 1...400, using: &g)
            var t = Double.random(in: -1e9...1e9, using: &g)
            let times = (0..<n).map { _ in
                t += [0, 1, -1, 0.25, 3_600][Int.random(in: 0..<5, using: &g)]
                return Int.random(in: 0..<40, using: &g) == 0 ? Self.hostile(&g, t) : t
            }
            let lengths = (0..<n).map { _ in Self.hostile(&g, Double.random(in: 0...3, using: &g)) }
            let minimumSpeed = [RouteMetrics.defaultMinimumMovingSpeed, 0, -1, .infinity][round % 4]
            let from = Int.random(in: 1...max(1, n), using: &g), to = Int.random(in: from...max(from, n), using: &g)
            let start = round % 5 == 0 ? (-0.0, 7.5) : (0.0, 0.0)
            var expected = (lengths: lengths, distance: start.0, moving: start.1, stops: [Int]())
            var i = from
            while i < to {
                i = Self.reference(times, &expected.lengths, i, to, minimumSpeed, &expected.distance, &expected.moving)
                expected.stops.append(i)
                i += 1
            }
            for wide in [true, false] {
                var out = (lengths: lengths, distance: start.0, moving: start.1, stops: [Int]())
                var i = from
                while i < to {
                    i = out.lengths.withUnsafeMutableBufferPointer { l in
                        wide ? routelog_sum_steps(times, l.baseAddress!, i, to, minimumSpeed, &out.distance, &out.moving)
                            : routelog_sum_steps_portable(times, l.baseAddress!, i, to, minimumSpeed, &out.distance, &out.moving)
                    }
                    out.stops.append(i)
                    i += 1
                }
                let label = "round \(round) (\(wide ? "vector" : "portable")), steps \(from)..<\(to)"
                #expect(out.stops == expected.stops, "\(label)")
                #expect(out.distance.bitPattern == expected.distance.bitPattern, "\(label): distance \(out.distance) against \(expected.distance)")
                #expect(out.moving.bitPattern == expected.moving.bitPattern, "\(label): moving \(out.moving) against \(expected.moving)")
                #expect(out.lengths.map(\.bitPattern) == expected.lengths.map(\.bitPattern), "\(label): lengths")
            }
        }
    }

    /// `RouteStatistics.init(track:segmentStarts:)` as it was before the steps were added
    /// by `routelog_sum_steps` (one Swift loop with a segment-start cursor), word for word.
    static func previousStatistics(_ track: TrackScratch, _ segmentStarts: [Int]) -> (distance: Double, moving: Double) {
        let lat = track.latitudes, lon = track.longitudes, time = track.times, n = track.count
        guard n > 1 else { return (0, 0) }
        var cursor = 0, next = Int.max
        func advance(past index: Int) {
            while cursor < segmentStarts.count && segmentStarts[cursor] <= index { cursor += 1 }
            next = cursor < segmentStarts.count ? segmentStarts[cursor] : .max
        }
        advance(past: 0)
        var distance = 0.0, moving = 0.0
        let minimumSpeed = RouteMetrics.defaultMinimumMovingSpeed
        let lengths = track.lengths
        routelog_short_step_lengths(lat, lon, n, lengths)
        lengths[0] = .nan
        for i in 1..<n {
            if i == next {
                advance(past: i)
                lengths[i] = .nan
                continue
            }
            var length = lengths[i]
            if length < 0 { length = Geodesic.distance(lat[i - 1], lon[i - 1], lat[i], lon[i]) }
            let seconds = time[i] - time[i - 1]
            let finite = length.isFinite
            lengths[i] = finite ? length : .nan
            distance += finite ? length : 0
            moving += finite && RouteMetrics.isMoving(length, seconds, minimumSpeed) ? seconds : 0
        }
        return (distance, moving)
    }

    @Test func measuringPassGivesWhatItGaveBefore() {
        var g = SeededGenerator(state: 0x5E65)
        var tracks = RouteStatisticsHostileTrackTests.hostileTracks()
        for seed in 1...3 {
            tracks.append(Fixtures.sampleWalk(seed: UInt64(seed), points: 3601).points.map { ($0.latitude, $0.longitude) })
        }
        tracks += (0...9).map { n in (0..<n).map { i in (45 + Double(i) * 1e-5, 9.0) } }
        for (k, track) in tracks.enumerated() {
            let n = track.count
            for round in 0..<4 {
                let scratch = TrackScratch(count: n), previous = TrackScratch(count: n)
                var t = 1_700_000_000.0
                for (i, c) in track.enumerated() {
                    t += [0, 0.5, 1, 30, -1][Int.random(in: 0..<5, using: &g)]
                    let time = Int.random(in: 0..<100, using: &g) == 0 ? Self.hostile(&g, t) : t
                    var (lat, lon) = c
                    if round == 3 && Int.random(in: 0..<50, using: &g) == 0 { lat = .nan }
                    if round == 3 && Int.random(in: 0..<50, using: &g) == 0 { lon = .infinity }
                    scratch.set(i, lat, lon, time)
                    previous.set(i, lat, lon, time)
                }
                // Segment starts sorted, unsorted, repeated, at 0, at and past the end, negative.
                var starts = (0..<Int.random(in: 0...6, using: &g)).map { _ in Int.random(in: -2...(n + 2), using: &g) }
                if round == 0 { starts.sort() }
                if round == 1 { starts += [0, 1, n - 1, n, n] }
                let s = RouteStatistics(track: scratch, segmentStarts: starts)
                let expected = Self.previousStatistics(previous, starts)
                let label = "track \(k), round \(round), starts \(starts)"
                #expect(s.distance.bitPattern == expected.distance.bitPattern, "\(label): distance")
                #expect(s.movingTime.bitPattern == expected.moving.bitPattern, "\(label): moving time")
                if n > 1 {
                    let lengths = Array(UnsafeBufferPointer(start: scratch.lengths, count: n)).map(\.bitPattern)
                    let before = Array(UnsafeBufferPointer(start: previous.lengths, count: n)).map(\.bitPattern)
                    #expect(lengths == before, "\(label): lengths")
                }
            }
        }
    }
}
