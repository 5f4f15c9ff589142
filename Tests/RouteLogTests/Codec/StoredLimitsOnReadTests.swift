import CRouteLogSystem
import Foundation
import Testing
@testable import RouteLog

/// A load holds every optional column to the limits a writer holds it to
/// (format-spec.md, "Quantization"), as it holds coordinates and times: a block with an
/// altitude past ±10,000 km or a negative heart rate is damage, in version 1 and 2
/// blocks alike, and a value at the limit is read as stored.
@Suite struct StoredLimitsOnReadTests {
    typealias Tag = FormatConstants.ColumnTag

    /// Each optional tag's stored integers at its limits, and one past each.
    static let limits: [(tag: Tag, low: Int64, high: Int64)] = [
        (.altitude, -1_000_000_000, 1_000_000_000), (.horizontalAccuracy, -1_000_000_000, 1_000_000_000),
        (.verticalAccuracy, -1_000_000_000, 1_000_000_000), (.speed, -1_000_000_000, 1_000_000_000),
        (.course, -1_000_000_000, 1_000_000_000), (.heartRate, 0, 1_000_000), (.cadence, 0, 1_000_000),
    ]

    static func block(n: Int, _ tag: Tag, _ values: [Int64], present: [Bool]? = nil) -> [UInt8] {
        PointBuildingAttackTests.block(n: n, lat: (0..<n).map { Int64($0) }, lon: (0..<n).map { -Int64($0) },
                                       time: (0..<n).map { 1_700_000_000_000 + Int64($0) * 1000 },
                                       optional: [(tag, values, present)])
    }

    @Test func theLimitsAreThoseAWriterHoldsTo() {
        for (tag, low, high) in Self.limits {
            #expect(Quantization.storedLimits(tag) == low...high, "\(tag)")
            let field = PointField.optional.first { $0.tag == tag }!
            #expect(field.integer(field.limits.lowerBound) == low && field.integer(field.limits.upperBound) == high)
        }
        for tag: Tag in [.latitude, .longitude, .time] { #expect(Quantization.storedLimits(tag) == nil) }
    }

    /// One value past a limit, at the first, a middle and the last place of columns
    /// around the check's blocks of 64, with and without gaps: refused, naming the field
    /// and the value; the same columns with the value at the limit load as stored.
    @Test func aValueOnePastALimitIsDamageAndOneAtItIsRead() throws {
        for (tag, low, high) in Self.limits {
            for n in [1, 4, 63, 64, 65, 129, 300] {
                for place in Set([0, n / 2, n - 1]) {
                    for gaps in [false, true] {
                        let present: [Bool]? = gaps ? (0..<n).map { $0 % 3 != 1 || $0 == place } : nil
                        let m = present.map { $0.filter { $0 }.count } ?? n
                        let at = present.map { p in (0..<place).filter { p[$0] }.count } ?? place
                        for (edge, past) in [(low, low &- 1), (high, high &+ 1)] {
                            var values = (0..<m).map { _ in (low + high) / 2 }
                            values[at] = edge
                            let points = try PointBlockV2.decode(Self.block(n: n, tag, values, present: present)[...])
                            let field = PointField.optional.first { $0.tag == tag }!
                            #expect(field.get(points[place]) == field.value(edge), "\(tag) at \(edge), n \(n), place \(place)")
                            values[at] = past
                            let bad = Self.block(n: n, tag, values, present: present)
                            let error = #expect(throws: ByteReader.Malformed.self) { try PointBlockV2.decode(bad[...]) }
                            #expect(error?.reason == "point \(place) has a stored \(field.name) of \(past), outside \(low)...\(high), "
                                    + "the most a writer stores", "\(error?.reason ?? "")")
                            #expect(throws: ByteReader.Malformed.self) { try RouteCodec.decodePoints(bad[...]) }
                            // The codec's own tests read any integer.
                            let columns = try PointBlockV2.decodeColumns(bad[...], checkingStoredLimits: false)
                            #expect(columns.optional.first?.column.values.base[at] == past)
                        }
                    }
                }
            }
        }
    }

    @Test func versionOneBlocksAreHeldToTheSameLimits() throws {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        for (altitude, refused) in [(1e7, false), (-1e7, false), (1e7 + 0.01, true), (-2e16, true)] {
            var points = (0..<5).map { TrackPoint(latitude: 1, longitude: 2, timestamp: start.addingTimeInterval(Double($0))) }
            points[3].altitude = altitude
            let columns = try PointColumns(points, validating: false)
            let block = PointBlock.encode(columns: ColumnCodec.encode(columns))
            if refused {
                let error = #expect(throws: ByteReader.Malformed.self) { try RouteCodec.decodePoints(block[...]) }
                #expect(error?.reason.hasPrefix("point 3 has a stored altitude of ") == true, "\(error?.reason ?? "")")
            } else {
                #expect(try RouteCodec.decodePoints(block[...])[3].altitude == altitude)
            }
        }
    }

    /// The kernel against a plain loop: random columns with values just inside and
    /// outside random limits, every count around its blocks of 64.
    @Test func theKernelFindsTheFirstValueOutsideAsAPlainLoopDoes() {
        var g = SeededGenerator(state: 0x11A175)
        for round in 0..<3000 {
            let n = Int.random(in: 0...300, using: &g)
            let low = Int64.random(in: -1_000_000...0, using: &g), high = Int64.random(in: 0...1_000_000, using: &g)
            var values = (0..<n).map { _ in Int64.random(in: low...high, using: &g) }
            for _ in 0..<Int.random(in: 0...2, using: &g) where n > 0 {
                let edges: [Int64] = [low &- 1, high &+ 1, .min, .max, low, high]
                values[Int.random(in: 0..<n, using: &g)] = edges.randomElement(using: &g)!
            }
            let expected = values.firstIndex { $0 < low || $0 > high } ?? n
            #expect(routelog_first_value_outside(values, n, low, high) == expected, "round \(round)")
            #expect(routelog_first_value_outside_portable(values, n, low, high) == expected, "round \(round)")
        }
    }

    /// A forged store (a RoutePut rewritten with a matching checksum) whose route holds
    /// an altitude past the limit: the route is damage, reported by a load and by
    /// verify; the store's other route loads.
    @Test func aForgedRouteWithAnAltitudePastTheLimitIsDamage() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let good = try ReliabilityRegressionTests.twoRouteStore(at: url)
        try ReliabilityRegressionTests.forge(url) { record in
            record.pointBlock = Self.block(n: 1, .altitude, [4_000_000_000_000_000_000])[...]
        }
        for store in [try RouteStore(readOnlyAt: url), try RouteStore(at: url)] {
            #expect(try store.route(RouteID(2)) == good)
            if try store.summaries().contains(where: { $0.id == RouteID(1) }) {
                let error = #expect(throws: RouteLogError.self) { try store.route(RouteID(1)) }
                #expect("\(error.map { "\($0)" } ?? "")".contains("altitude"), "\(String(describing: error))")
            }
            let problems = try store.verify().problems.map(\.message)
            #expect(problems.contains { $0 == "the point block of route 1 makes no sense: point 0 has a stored altitude of "
                        + "4000000000000000000, outside -1000000000...1000000000, the most a writer stores" }, "\(problems)")
            try store.close()
        }
    }
}
