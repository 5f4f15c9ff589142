import Foundation
import Testing
@testable import RouteLog

@Suite struct QuantizationRoundingTests {
    @Test func scaledRoundsHalfAwayFromZeroLikeTheStandardLibrary() {
        var g = SeededGenerator(state: 21)
        var values: [Double] = [0.5, -0.5, 1.5, -1.5, 2.5, 0.49999999999999994, -0.49999999999999994,
                                4503599627370495.5, -4503599627370495.5, 1e15 + 0.5, 7_258_118_400_000]
        for _ in 0..<100_000 { values.append(Double.random(in: -1e13...1e13, using: &g)) }
        for _ in 0..<10_000 { values.append(Double(Int.random(in: -1_000_000...1_000_000, using: &g)) + 0.5) }
        for v in values {
            #expect(Quantization.scaled(v, 1) == Int64(v.rounded(.toNearestOrAwayFromZero)), "\(v)")
        }
    }

    @Test func quantizeNeverTrapsOnValuesASaveRefuses() {
        let point = TrackPoint(latitude: .nan, longitude: .infinity, timestamp: Date(timeIntervalSince1970: .nan),
                               altitude: .infinity, speed: -.infinity)
        let q = RouteCodec.quantize(point)
        #expect(q.latitude.isNaN)
        let other = RouteCodec.quantize(TrackPoint(latitude: 1, longitude: 2, timestamp: Date(timeIntervalSince1970: 3),
                                                   altitude: .infinity, speed: 1e300))
        #expect(other.altitude == .infinity)
        #expect(other.speed != nil)
    }
}
