import Foundation
import Testing
@testable import RouteLog

@Suite struct CodecRoundTripTests {
    @Test func randomRoutesDecodeToTheirQuantizedSelves() throws {
        var routes = RandomRoutes(seed: 42)
        for _ in 0..<200 {
            let route = routes.next()
            try RouteValidation.validate(route)
            let decoded = try RouteCodec.decodePoints(RouteCodec.encodePoints(route.points)[...])
            #expect(decoded == RouteCodec.quantize(route).points)
        }
    }

    @Test func quantizeIsIdempotent() {
        var routes = RandomRoutes(seed: 7)
        for _ in 0..<100 {
            let once = RouteCodec.quantize(routes.next())
            #expect(RouteCodec.quantize(once) == once)
        }
    }

    @Test func quantizationKeepsTheDocumentedPrecision() {
        let point = TrackPoint(latitude: 45.123456789, longitude: -122.98765432, timestamp: Date(timeIntervalSince1970: 1_700_000_000.12345),
                               altitude: 123.456, horizontalAccuracy: 4.999, speed: 1.234, course: 359.996, heartRate: 141.6)
        let q = RouteCodec.quantize(point)
        #expect(q.latitude == 45.1234568)
        #expect(q.longitude == -122.9876543)
        #expect(q.timestamp == Date(timeIntervalSince1970: 1_700_000_000.123))
        #expect(q.altitude == 123.46)
        #expect(q.horizontalAccuracy == 5.0)
        #expect(q.speed == 1.23)
        #expect(q.course == 360.0)
        #expect(q.heartRate == 142)
        #expect(q.verticalAccuracy == nil)
    }

    @Test func extremesSurvive() throws {
        let points = [
            TrackPoint(latitude: 90, longitude: 180, timestamp: Date(timeIntervalSince1970: 0)),
            TrackPoint(latitude: -90, longitude: -180, timestamp: Date(timeIntervalSince1970: 7_258_118_399.999), altitude: -1e7),
            TrackPoint(latitude: 0, longitude: 0, timestamp: Date(timeIntervalSince1970: 1), altitude: 1e7, speed: -1),
        ]
        let decoded = try RouteCodec.decodePoints(RouteCodec.encodePoints(points)[...])
        #expect(decoded == points.map(RouteCodec.quantize))
    }

    @Test(.enabled(if: Fixtures.sharedGPXAvailable, "needs ../shared/data/gpx (real tracks, not copied into the project)"))
    func realTracksRoundTripAndStayCompact() throws {
        for name in ["gpsbabel__sbn-v13.gpx", "jpx__Gpx-full-sample.gpx", "georust__garmin-activity.gpx", "dougfales__big.gpx"] {
            let points = try Fixtures.trackPoints(Fixtures.sharedTrack(name))
            #expect(points.count > 900, "\(name)")
            let block = RouteCodec.encodePoints(points)
            let decoded = try RouteCodec.decodePoints(block[...])
            #expect(decoded == points.map(RouteCodec.quantize), "\(name)")
            let perPoint = Double(block.count) / Double(points.count)
            print("\(name): \(points.count) points, \(block.count) bytes, \(String(format: "%.2f", perPoint)) bytes/point")
            if name.hasPrefix("gpsbabel__sbn") || name.hasPrefix("jpx__Gpx-full") {
                #expect(perPoint <= 6.5, "\(name) takes \(perPoint) bytes a point")
            }
        }
    }

    @Test func anUnknownColumnIsSkipped() throws {
        let points = [TrackPoint(latitude: 1, longitude: 2, timestamp: Date(timeIntervalSince1970: 3))]
        var columns = ColumnCodec.encode(points)
        // Append a column with tag 200 (from some future version) and bump the count.
        #expect(columns[1] == 3)
        columns[1] = 4
        columns += [200, 0, 2, 0x05, 0x07]
        #expect(try ColumnCodec.decode(columns) == points)
    }

    @Test func hostileBlocksAreRejectedWithoutHugeAllocations() {
        // LZ4 claiming 64 MiB from 10 bytes.
        var w = ByteWriter()
        w.u8(1)
        w.varint(64 << 20)
        w.append(contentsOf: [UInt8](repeating: 0, count: 10))
        #expect(throws: ByteReader.Malformed.self) { try RouteCodec.decodePoints(w.bytes[...]) }
        // A point count far beyond the bytes that follow.
        var c = ByteWriter()
        c.u8(0)
        c.varint(5)
        c.append(contentsOf: [0xFF, 0xFF, 0xFF, 0xFF, 0x0F])
        #expect(throws: ByteReader.Malformed.self) { try RouteCodec.decodePoints(c.bytes[...]) }
        // A varint that never ends.
        #expect(throws: ByteReader.Malformed.self) { try ColumnCodec.decode([UInt8](repeating: 0xFF, count: 32)) }
        // Missing required columns.
        #expect(throws: ByteReader.Malformed.self) { try ColumnCodec.decode([1, 0]) }
    }

    @Test func everyTruncationOfABlockFailsCleanly() throws {
        let block = RouteCodec.encodePoints(Fixtures.sampleWalk(points: 300).points)
        for cut in 0..<block.count {
            #expect(throws: ByteReader.Malformed.self) { try RouteCodec.decodePoints(block[..<cut]) }
        }
    }
}
