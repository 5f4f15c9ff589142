import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// The version 2 encoder writes the same bytes as the encoder the format was frozen
/// with: a digest of the blocks of walks, random routes and columns built to exercise
/// every model (orders 0 to 2, biases, divisors that hold and divisors the samples get
/// wrong, zero runs, gaps) equals the one recorded from that encoder. An encoder made
/// faster must not write other bytes: older readers check them against nothing else.
@Suite struct CodecV2EncoderDigestTests {
    static func routes() -> [Route] {
        var routes = (1...6).map { Fixtures.sampleWalk(seed: UInt64($0), points: [3600, 1, 2, 3, 257, 1000][$0 - 1]) }
        var random = RandomRoutes(seed: 0xD16E57)
        for _ in 0..<60 { routes.append(random.next()) }
        var g = SeededGenerator(state: 0xC0DE)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        for kind in 0..<12 {
            let n = [5, 64, 255, 256, 257, 1000, 3600, 17, 300, 512, 4096, 700][kind]
            var points: [TrackPoint] = []
            for i in 0..<n {
                let x = Double(i)
                // Altitudes of whole metres (divisor 100), except near the end of some
                // routes (where the samples miss it); speeds of a few values with long runs; courses
                // stepping by a constant (order 2, zeros).
                let altitude = kind % 3 == 0 && i == n - 3 ? 101.37 : Double(Int.random(in: 90...120, using: &g))
                points.append(TrackPoint(
                    latitude: 45 + x * 1e-5 + Double.random(in: -1e-6...1e-6, using: &g),
                    longitude: 7 - x * 2e-5, timestamp: start.addingTimeInterval(x * (kind % 2 == 0 ? 1 : 0.25)),
                    altitude: altitude, horizontalAccuracy: kind % 4 == 1 && i % 50 == 0 ? nil : 5,
                    speed: i % 40 < 30 ? 0 : Double(Int.random(in: 0...3, using: &g)),
                    course: Double(i % 360), heartRate: kind > 6 ? Double(120 + i % 7) : nil,
                    cadence: kind == 11 ? Double(Int.random(in: -1...1, using: &g) == 0 ? 80 : 82) : nil))
            }
            routes.append(Route(points: points))
        }
        return routes
    }

    /// FNV-1a over every block's length and bytes, from `encode`.
    static func digest(_ encode: (Route) throws -> [UInt8] = { try RouteEncoder.encode($0, version: 2).pointBlock }) throws -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func add(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        for route in routes() {
            let block = try encode(route)
            for shift in stride(from: 0, to: 64, by: 8) { add(UInt8(truncatingIfNeeded: block.count >> shift)) }
            block.forEach(add)
        }
        return hash
    }

    /// The value recorded from the encoder of 78bdcf3 (codes of up to 11 bits), which
    /// the reference encoder still writes when allowed 11 bits: the bytes changed only by
    /// the limit.
    static let elevenBitDigest: UInt64 = 0xA34A_90A7_C16D_7591

    @Test func blocksAreTheBytesTheFrozenEncoderWrote() throws {
        // Recorded when the writer's codes were limited to 9 bits (writtenCodeLength).
        let digest = try Self.digest()
        #expect(digest == 0x26F6_1F2E_968C_B141, "digest \(String(digest, radix: 16))")
    }

    @Test func withElevenBitCodesTheReferenceWritesTheBytesRecordedBeforeTheLimit() throws {
        let digest = try Self.digest { route in
            ReferencePointBlockV2.encode(try PointColumns(route.points, validating: true), codeLengthLimit: 11)
        }
        #expect(digest == Self.elevenBitDigest, "digest \(String(digest, radix: 16))")
    }
}
