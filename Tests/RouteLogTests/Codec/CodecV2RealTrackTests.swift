import Foundation
import Testing
@testable import RouteLog

/// Real GPX tracks in version 2: exact round trips, and their bytes a point printed
/// beside version 1 (the benchmark compares them with the xz reference).
@Suite struct CodecV2RealTrackTests {
    static let fixtures = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/gpx")

    /// Every fixture track with times, as lat/lon/time/elevation points.
    static func tracks() throws -> [(name: String, points: [TrackPoint])] {
        let names = try FileManager.default.contentsOfDirectory(atPath: fixtures.path).filter { $0.hasSuffix(".gpx") }.sorted()
        return try names.compactMap { name in
            let points = try Fixtures.trackPoints(fixtures.appendingPathComponent(name))
            return points.count >= 2 ? (name, points) : nil
        }
    }

    @Test func fixtureTracksRoundTripAndShrink() throws {
        let tracks = try Self.tracks()
        #expect(tracks.count >= 8)
        for (name, points) in tracks {
            let v1 = RouteCodec.encodePoints(points, version: 1), v2 = RouteCodec.encodePoints(points, version: 2)
            #expect(try RouteCodec.decodePoints(v2[...]) == points.map(RouteCodec.quantize), "\(name)")
            let perPoint = { (bytes: [UInt8]) in String(format: "%.2f", Double(bytes.count) / Double(points.count)) }
            print("\(name): \(points.count) points, v1 \(perPoint(v1)), v2 \(perPoint(v2)) bytes a point")
            if points.count >= 100 { #expect(v2.count < v1.count, "\(name)") }
        }
    }

    @Test func lz4DoesNotShrinkVersion2Blocks() throws {
        // format-spec.md says the writer never uses LZ4 for version 2: this is why.
        var blocks = try Self.tracks().map { RouteCodec.encodePoints($0.points, version: 2) }
        blocks += (1...3).map { RouteCodec.encodePoints(Fixtures.sampleWalk(seed: UInt64($0)).points, version: 2) }
        for block in blocks where block.count > 200 {
            let compressed = LZ4Block.compress(block)
            #expect(compressed == nil || Double(compressed!.count) > 0.98 * Double(block.count))
        }
    }

    @Test func walksTakeUnderFiveAndAHalfBytesAPoint() throws {
        for seed in 1...4 {
            let walk = Fixtures.sampleWalk(seed: UInt64(seed))
            let block = RouteCodec.encodePoints(walk.points, version: 2)
            let perPoint = Double(block.count) / Double(walk.points.count)
            print("walk \(seed): \(String(format: "%.2f", perPoint)) bytes a point, every stored column")
            #expect(perPoint <= 5.5)
        }
    }
}
