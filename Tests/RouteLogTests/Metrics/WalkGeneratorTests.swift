import Foundation
import RouteLog
import RouteLogSamples
import Testing

@Suite struct WalkGeneratorTests {
    @Test func sameSeedSameWalks() {
        var a = WalkGenerator(seed: 7), b = WalkGenerator(seed: 7)
        #expect(a.walk(points: 500, start: Date(timeIntervalSince1970: 1_700_000_000)) == b.walk(points: 500, start: Date(timeIntervalSince1970: 1_700_000_000)))
        #expect(a.walk(start: Date(timeIntervalSince1970: 1_700_000_000)) == b.walk(start: Date(timeIntervalSince1970: 1_700_000_000)))
    }

    @Test func anHourAtOneHertzAtWalkingPace() {
        var walks = WalkGenerator(seed: 42)
        let route = walks.walk(points: 3_600, start: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(route.points.count == 3_600)
        let duration = route.points.last!.timestamp.timeIntervalSince(route.points.first!.timestamp)
        #expect(abs(duration - 3_599) < 0.01)
        // Pace 1.2-1.6 m/s for an hour, plus GPS noise: 4 to 7 km.
        let distance = RouteMetrics.distance(of: route.points)
        #expect(distance > 4_000 && distance < 7_000, "distance \(distance)")
        #expect(route.splits.filter { $0.unit == .kilometre }.count >= 4)
        #expect(route.points.allSatisfy { $0.horizontalAccuracy! >= 3 && $0.horizontalAccuracy! <= 30 })
        #expect(route.points.allSatisfy { $0.course! >= 0 && $0.course! < 360 && $0.speed! >= 0 })
    }

    @Test func defaultLengthIsTwentyToNinetyMinutes() {
        var walks = WalkGenerator(seed: 3)
        for _ in 0..<20 {
            let count = walks.walk(start: Date(timeIntervalSince1970: 1_700_000_000)).points.count
            #expect(count >= 1_200 && count <= 5_400)
        }
    }
}

