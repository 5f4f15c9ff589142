import Foundation
import RouteLog
import Testing
@testable import routelog_bench

@Suite struct WalkGeneratorTests {
    @Test func sameSeedSameWalks() {
        var a = WalkGenerator(seed: 7), b = WalkGenerator(seed: 7)
        #expect(a.walk(pointCount: 500) == b.walk(pointCount: 500))
        #expect(a.walk() == b.walk())
    }

    @Test func anHourAtOneHertzAtWalkingPace() {
        var walks = WalkGenerator(seed: 42)
        let route = walks.walk(pointCount: 3_600)
        #expect(route.points.count == 3_600)
        let duration = route.points.last!.timestamp.timeIntervalSince(route.points.first!.timestamp)
        #expect(abs(duration - 3_599) < 1e-6)
        // Pace 1.2-1.6 m/s for an hour, plus GPS noise: 4 to 7 km.
        let distance = RouteMetrics.distance(of: route.points)
        #expect(distance > 4_000 && distance < 7_000, "distance \(distance)")
        #expect(route.splits.filter { $0.unit == .kilometre }.count >= 4)
        #expect(route.points.allSatisfy { $0.horizontalAccuracy! >= 3 && $0.horizontalAccuracy! <= 15 })
        #expect(route.points.allSatisfy { $0.course! >= 0 && $0.course! < 360 && $0.speed! >= 0 })
    }

    @Test func defaultLengthIsTwentyToNinetyMinutes() {
        var walks = WalkGenerator(seed: 3)
        for _ in 0..<20 {
            let count = walks.walk().points.count
            #expect(count >= 1_200 && count <= 5_400)
        }
    }
}

@Suite struct GPXTracksTests {
    @Test func readsPointsTimesAndSegments() throws {
        let gpx = """
            <gpx><trk><trkseg>
            <trkpt lat="45.1" lon="9.2"><ele>120.5</ele><time>2020-02-29T23:59:59Z</time></trkpt>
            <trkpt lon='9.3' lat='45.2'><time>2020-03-01T00:00:00.250Z</time></trkpt>
            </trkseg><trkseg>
            <trkpt lat="45.3" lon="9.4"><time>2020-03-01T02:00:01+02:00</time></trkpt>
            <trkpt lat="45.4" lon="9.5"></trkpt>
            </trkseg></trk></gpx>
            """
        let route = try #require(GPXTracks.parse(Array(gpx.utf8)))
        #expect(route.points.count == 3)
        #expect(route.segmentStarts == [2])
        #expect(route.points[0].altitude == 120.5)
        #expect(route.points[1].latitude == 45.2 && route.points[1].longitude == 9.3)
        #expect(route.points[0].timestamp == Date(timeIntervalSince1970: 1_583_020_799))
        #expect(route.points[1].timestamp == Date(timeIntervalSince1970: 1_583_020_800.25))
        #expect(route.points[2].timestamp == Date(timeIntervalSince1970: 1_583_020_801))
    }
}
