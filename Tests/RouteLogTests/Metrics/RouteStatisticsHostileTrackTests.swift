import Foundation
import Testing
@testable import RouteLog

/// The distance and moving time a save measures in its one pass equal RouteMetrics' to
/// the bit on tracks built at the edges of the short-step case, with segment starts.
@Suite struct RouteStatisticsHostileTrackTests {
    /// Tracks of hostile steps: the poles, the antimeridian, zero and signed-zero steps,
    /// steps at and just past the short-step limit, huge jumps.
    static func hostileTracks() -> [[(Double, Double)]] {
        var g = SeededGenerator(state: 2026)
        let limit = Geodesic.shortStep
        var tracks: [[(Double, Double)]] = []
        tracks.append((0..<301).map { (i: Int) -> (Double, Double) in
            let latitude: Double = 90 - Double(i % 3) * 0.01
            return (latitude, Double(i) - 150)
        })
        tracks.append((0..<300).map { (i: Int) -> (Double, Double) in
            let latitude: Double = -90 + Double(i % 2) * 1e-7
            return (latitude, i % 2 == 0 ? 180.0 : -180.0)
        })
        let nearAntimeridian: [Double] = [179.99, -179.99, 180, -180, 179.9999999]
        tracks.append((0..<200).map { (i: Int) -> (Double, Double) in (10.0, nearAntimeridian[i % 5]) })
        tracks.append((0..<200).map { (i: Int) -> (Double, Double) in (i % 2 == 0 ? 0.0 : -0.0, i % 3 == 0 ? 0.0 : -0.0) })
        tracks.append((0..<400).map { (i: Int) -> (Double, Double) in
            let steps: [Double] = [limit, limit.nextUp, limit.nextDown, -limit, -limit.nextUp, 0]
            let step = steps[i % 6]
            let latitude: Double = 45 + Double(i / 6) * 0.05 + (i % 2 == 0 ? step : 0)
            return (latitude, 7 + (i % 4 < 2 ? step : 0))
        })
        tracks.append((0..<257).map { (_: Int) -> (Double, Double) in
            (Double.random(in: -90...90, using: &g), Double.random(in: -180...180, using: &g))
        })
        for _ in 0..<40 {
            var lat = Double.random(in: -90...90, using: &g), lon = Double.random(in: -180...180, using: &g)
            tracks.append((0..<Int.random(in: 0...500, using: &g)).map { (_: Int) -> (Double, Double) in
                let scales: [Double] = [0, 1e-9, 1e-4, 0.019, 0.021, 5]
                let scale = scales[Int.random(in: 0..<6, using: &g)]
                lat = min(90, max(-90, lat + Double.random(in: -scale...scale, using: &g)))
                lon += Double.random(in: -scale...scale, using: &g)
                if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
                return (lat, lon)
            })
        }
        return tracks
    }

    @Test func routeStatisticsEqualRouteMetricsOnHostileTracks() throws {
        var g = SeededGenerator(state: 31)
        for track in Self.hostileTracks() where !track.isEmpty {
            var t = 1_700_000_000.0
            let points = track.map { c in
                let gaps: [Double] = [0, 0.5, 1, 30]
                t += gaps[Int.random(in: 0..<4, using: &g)]
                return TrackPoint(latitude: c.0, longitude: c.1, timestamp: Date(timeIntervalSince1970: t))
            }
            let starts = points.count > 3 ? Array(Set((0..<3).map { _ in Int.random(in: 1..<points.count, using: &g) })).sorted() : []
            let s = try #require(try PointColumns(points, validating: true, measuring: starts).statistics)
            #expect(s.distance.bitPattern == RouteMetrics.distance(of: points, segmentStarts: starts).bitPattern)
            #expect(s.movingTime.bitPattern == RouteMetrics.movingTime(of: points, segmentStarts: starts).bitPattern)
        }
    }
}
