import Foundation
import Testing
@testable import RouteLog

/// format-spec.md's version 2 worked example is the codec's real output for its points,
/// byte for byte, and decodes back to them.
@Suite struct CodecV2WorkedExampleTests {
    static func examplePoints() -> [TrackPoint] {
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        let latitudes = [45.5, 45.5000012, 45.5000025, 45.5000036, 45.500005, 45.5000061]
        let altitudes: [Double?] = [120, 120.5, nil, 121.5, 122, 122.5]
        return (0..<6).map { i in
            TrackPoint(latitude: latitudes[i], longitude: 9.25, timestamp: start.addingTimeInterval(Double(i)), altitude: altitudes[i])
        }
    }

    /// The rows of the example: a 4-digit hex offset, then hex pairs up to the two
    /// spaces before the comment.
    static func specRows() throws -> [(offset: Int, bytes: [UInt8])] {
        try FormatWorkedExampleTests.specBytes(under: "### A version 2 block, byte by byte")
    }

    @Test func theSpecShowsTheRealBytes() throws {
        let block = RouteCodec.encodePoints(Self.examplePoints(), version: 2)
        let rows = try Self.specRows()
        #expect(rows.count >= 20, "the example should show the whole block")
        var shown: [UInt8] = []
        for (offset, bytes) in rows {
            #expect(offset == shown.count, "row \(String(offset, radix: 16)) should follow the one before")
            shown += bytes
        }
        #expect(shown == block, "spec: \(shown.map { String(format: "%02X", $0) }) code: \(block.map { String(format: "%02X", $0) })")
    }

    @Test func theExampleDecodesToItsPoints() throws {
        let points = Self.examplePoints()
        let decoded = try RouteCodec.decodePoints(RouteCodec.encodePoints(points, version: 2)[...])
        #expect(decoded == points.map(RouteCodec.quantize))
        #expect(decoded[2].altitude == nil && decoded[3].altitude == 121.5)
    }
}
