import Testing
@testable import routelog_bench

@Suite struct PercentilesTests {
    @Test func interpolatesBetweenClosestRanks() {
        let p = Percentiles([4, 1, 3, 2])
        #expect(p.value(at: 50) == 2.5)
        #expect(p.value(at: 0) == 1)
        #expect(p.value(at: 100) == 4)
        #expect(abs(p.value(at: 90) - 3.7) < 1e-12)
    }

    @Test func p99OfAHundredSamplesIsNearTheTop() {
        let p = Percentiles((1...100).map(Double.init))
        #expect(abs(p.value(at: 99) - 99.01) < 1e-9)
        #expect(p.value(at: 50) == 50.5)
    }

    @Test func emptyAndSingleSamples() {
        #expect(Percentiles([]).value(at: 50).isNaN)
        #expect(Percentiles([7]).value(at: 99) == 7)
        #expect(LatencyStats([]) == nil)
    }
}
