import Testing
@testable import RouteLog

/// How a compaction groups the damaged ranges of a segment before it copies them into
/// `lost/`: neighbours less than the gap apart become one range that covers both.
@Suite struct DamagedRangeTests {
    static func range(_ offset: Int64, _ length: Int64, _ path: String = "a") -> DamagedRange {
        DamagedRange(path: path, offset: offset, length: length)
    }

    @Test func aMillionSmallRangesCloseTogetherAreOne() {
        let ranges = (0..<1_000_000).map { Self.range(Int64($0) * 40 + 20, 3) }
        #expect(DamagedRange.merged(ranges) == [Self.range(20, 999_999 * 40 + 3)])
    }

    @Test func rangesAGapApartStaySeparateAndOverlapsJoin() {
        let gap: Int64 = 64 << 10
        // 10 + gap is exactly the gap past the end of (0, 10); (12 + gap, 20) overlaps it.
        let ranges = [Self.range(10 + gap, 5), Self.range(0, 10), Self.range(12 + gap, 20), Self.range(3 * gap, 1)]
        #expect(DamagedRange.merged(ranges, gap: gap)
                == [Self.range(0, 10), Self.range(10 + gap, 22), Self.range(3 * gap, 1)])
        #expect(DamagedRange.merged([Self.range(0, 10), Self.range(9 + gap, 1)], gap: gap).count == 1)
    }

    @Test func everyDamagedByteIsInsideAMergedRange() {
        var state: UInt64 = 7
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let ranges = (0..<500).map { _ in Self.range(Int64(next() % 40_000_000), Int64(next() % 300 + 1)) }
        let merged = DamagedRange.merged(ranges)
        #expect(zip(merged, merged.dropFirst()).allSatisfy { $1.offset - $0.end >= 64 << 10 })
        for range in ranges {
            #expect(merged.contains { $0.offset <= range.offset && range.end <= $0.end })
        }
    }
}
