import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// Version 2 point blocks give back exactly the quantized points, for every kind of
/// route: random ones with every column and gaps, extremes, constant and huge values.
@Suite struct CodecV2RoundTripTests {
    static func roundTrip(_ points: [TrackPoint]) throws -> (block: [UInt8], decoded: [TrackPoint]) {
        let block = RouteCodec.encodePoints(points, version: 2)
        #expect(block.first == FormatConstants.Compression.columnsV2.rawValue)
        return (block, try RouteCodec.decodePoints(block[...]))
    }

    @Test func randomRoutesDecodeToTheirQuantizedSelves() throws {
        var routes = RandomRoutes(seed: 42)
        for _ in 0..<300 {
            let route = routes.next()
            try RouteValidation.validate(route)
            let (_, decoded) = try Self.roundTrip(route.points)
            #expect(decoded == RouteCodec.quantize(route).points)
        }
    }

    @Test func walksDecodeToTheirQuantizedSelves() throws {
        for seed in 1...5 {
            let walk = Fixtures.sampleWalk(seed: UInt64(seed), points: [1, 2, 3, 255, 256, 257, 3600][seed % 7])
            let (_, decoded) = try Self.roundTrip(walk.points)
            #expect(decoded == RouteCodec.quantize(walk).points)
        }
        let long = Fixtures.sampleWalk(seed: 9, points: 3600)
        #expect(try Self.roundTrip(long.points).decoded == RouteCodec.quantize(long).points)
    }

    @Test func everyPointCountUpToAFewStreamsRoundTrips() throws {
        let walk = Fixtures.sampleWalk(seed: 3, points: 1100)
        for count in [1, 2, 3, 4, 5, 7, 8, 9, 63, 64, 65, 258, 259, 260, 261, 1024, 1100] {
            let points = Array(walk.points.prefix(count))
            #expect(try Self.roundTrip(points).decoded == points.map(RouteCodec.quantize), "\(count) points")
        }
    }

    @Test func missingValuesInEveryPatternRoundTrip() throws {
        var g = SeededGenerator(state: 77)
        let walk = Fixtures.sampleWalk(seed: 4, points: 700)
        let patterns: [(Int) -> Bool] = [
            { _ in Bool.random(using: &g) },        // scattered: a bitmap
            { $0 < 350 },                           // one gap: runs
            { $0 % 100 < 3 },                       // rare values
            { $0 == 699 },                          // only the last point
            { $0 == 0 },                            // only the first point
        ]
        for (p, present) in patterns.enumerated() {
            var points = walk.points
            for i in points.indices where !present(i) {
                points[i].altitude = nil
                points[i].heartRate = nil
            }
            for i in points.indices where present(i) { points[i].heartRate = Double(60 + i % 100) }
            let (_, decoded) = try Self.roundTrip(points)
            #expect(decoded == points.map(RouteCodec.quantize), "pattern \(p)")
        }
    }

    @Test func extremesSurvive() throws {
        let latest = Double(FormatConstants.latestTimestampMs) / 1000
        let points = [
            TrackPoint(latitude: 90, longitude: 180, timestamp: Date(timeIntervalSince1970: 0),
                       altitude: 1e7, horizontalAccuracy: -1e7, speed: 1e7, course: -1e7, heartRate: 1e6, cadence: 0),
            TrackPoint(latitude: -90, longitude: -180, timestamp: Date(timeIntervalSince1970: latest - 0.001),
                       altitude: -1e7, horizontalAccuracy: 1e7, speed: -1e7, course: 1e7, heartRate: 0, cadence: 1e6),
            TrackPoint(latitude: 0, longitude: 0, timestamp: Date(timeIntervalSince1970: 1), altitude: 0),
            TrackPoint(latitude: 90, longitude: -180, timestamp: Date(timeIntervalSince1970: latest - 0.001), altitude: 1e7),
            TrackPoint(latitude: -90, longitude: 180, timestamp: Date(timeIntervalSince1970: 0), altitude: -1e7),
        ]
        for count in 1...points.count {
            let part = Array(points.prefix(count))
            #expect(try Self.roundTrip(part).decoded == part.map(RouteCodec.quantize))
        }
    }

    @Test func constantAndRegularColumnsTakeAlmostNothing() throws {
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        let points = (0..<3600).map { TrackPoint(latitude: 45.5, longitude: 9.25, timestamp: start.addingTimeInterval(Double($0)),
                                                 altitude: 120, horizontalAccuracy: 5) }
        let (block, decoded) = try Self.roundTrip(points)
        #expect(decoded == points)
        // Five columns of one value (or one step) each: a run token and a header apiece.
        #expect(block.count < 150, "\(block.count) bytes for a standing, regular recording")
    }

    @Test func theWriterPicksOrdersDivisorsAndRunsThatFitTheData() throws {
        // Irregular whole seconds (divisor 1000), whole metres from an odd datum (divisor
        // 100 around an offset), a steady acceleration, noise.
        let start = Date(timeIntervalSince1970: 1_767_225_600.123)
        var g = SeededGenerator(state: 5)
        var seconds = 0.0
        let points = (0..<2000).map { i in
            seconds += Double(Int.random(in: 1...4, using: &g))
            return TrackPoint(latitude: 45 + Double(i) * 1e-5 + Double.random(in: -3e-6...3e-6, using: &g), longitude: 9,
                              timestamp: start.addingTimeInterval(seconds), altitude: 100.37 + Double(Int.random(in: 0...30, using: &g)),
                              speed: 1 + Double(i) * 0.01)
        }
        let columns = try PointColumns(points, validating: true)
        #expect(ResidualModel.choose(columns.times.buffer).divisor == 1000)
        let altitude = ResidualModel.choose(columns.optional[0].values.buffer)
        #expect(altitude.divisor == 100 && altitude.bias % 100 == 37)
        // Speed grows 1 cm/s a point: first differences all 1, so order 1 with bias 1
        // (second differences are no smaller, and ties go to the lower order).
        #expect(ResidualModel.choose(columns.optional[1].values.buffer) == ResidualModel(order: 1, bias: 1, divisor: 1))
        let (block, decoded) = try Self.roundTrip(points)
        #expect(decoded == points.map(RouteCodec.quantize))
        #expect(block.count < 2000 * 3, "\(block.count) bytes")
    }

    @Test func hugeJumpsWrapAndStillRoundTrip() throws {
        // Values that make 64-bit second differences wrap, and extra bits over 32.
        var points: [TrackPoint] = []
        for i in 0..<600 {
            let far = i % 2 == 0
            points.append(TrackPoint(latitude: far ? 89.9999999 : -89.9999999, longitude: far ? -179.9999999 : 179.9999999,
                                     timestamp: Date(timeIntervalSince1970: far ? 7_000_000_000 : 1),
                                     altitude: far ? 1e7 : -1e7, speed: i % 3 == 0 ? nil : 9_999_999.99))
        }
        #expect(try Self.roundTrip(points).decoded == points.map(RouteCodec.quantize))
    }

    @Test func versionOneBlocksStillDecode() throws {
        var routes = RandomRoutes(seed: 8)
        for _ in 0..<100 {
            let points = routes.next().points
            let v1 = RouteCodec.encodePoints(points, version: 1)
            #expect(v1.first == 0 || v1.first == 1)
            #expect(try RouteCodec.decodePoints(v1[...]) == points.map(RouteCodec.quantize))
            #expect(try RouteCodec.decodePoints(v1[...]) == RouteCodec.decodePoints(RouteCodec.encodePoints(points, version: 2)[...]))
        }
    }
}
