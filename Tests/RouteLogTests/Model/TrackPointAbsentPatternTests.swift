import Foundation
import Testing
@testable import RouteLog

/// A NaN a user gives for an optional field is a bad value, whatever its payload: the
/// save refuses it, as it did when the fields were `Double?`. The NaN a point uses for
/// "absent" must not be a way to slip one past validation as a missing value.
@Suite struct TrackPointAbsentPatternTests {
    static let start = Date(timeIntervalSince1970: 1_767_225_600)
    static let sentinel = Double(bitPattern: TrackPoint.absentBitPattern)
    static var fields: [WritableKeyPath<TrackPoint, Double?>] { [\.altitude, \.horizontalAccuracy, \.verticalAccuracy,
                                                                 \.speed, \.course, \.heartRate, \.cadence] }

    @Test func aNaNWithTheAbsentPatternIsKeptAsANaN() {
        for field in Self.fields {
            var point = TrackPoint(latitude: 1, longitude: 2, timestamp: Self.start)
            point[keyPath: field] = Self.sentinel
            #expect(point[keyPath: field]?.isNaN == true, "\(field) read back \(String(describing: point[keyPath: field]))")
        }
        let made = TrackPoint(latitude: 1, longitude: 2, timestamp: Self.start, altitude: Self.sentinel, cadence: Self.sentinel)
        #expect(made.altitude?.isNaN == true)
        #expect(made.cadence?.isNaN == true)
    }

    @Test func aNaNWithTheAbsentPatternIsRefusedBeforeAnythingIsWritten() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        defer { try? store.close() }
        for field in Self.fields {
            var points = Fixtures.sampleWalk(seed: 3, points: 10).points
            points[4][keyPath: field] = Self.sentinel
            #expect(throws: RouteLogError.self, "\(field)") { try RouteValidation.validate(Route(points: points)) }
            #expect(throws: RouteLogError.self, "\(field)") { try RouteCodec.encodedPoints(of: points) }
            #expect(throws: RouteLogError.self, "\(field)") { try store.save(Route(points: points)) }
            let recorder = try store.startRecording()
            #expect(throws: RouteLogError.self, "\(field)") { try recorder.append(points) }
            try recorder.discard()
        }
        #expect(try store.count == 0)
    }

    /// Bytes from elsewhere (a binary property list holds any double's bits) decode to a
    /// present NaN, refused at save, as a `Double?` field would have held it.
    @Test func aDecodedNaNWithTheAbsentPatternIsNotAbsent() throws {
        let marker = 12_345.678_9
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        var bytes = [UInt8](try encoder.encode(TrackPoint(latitude: 1, longitude: 2, timestamp: Self.start, altitude: marker)))
        let find = (0..<8).map { UInt8(truncatingIfNeeded: marker.bitPattern >> (56 - 8 * UInt64($0))) }
        let at = try #require((0...(bytes.count - 8)).first { Array(bytes[$0..<$0 + 8]) == find })
        for i in 0..<8 { bytes[at + i] = UInt8(truncatingIfNeeded: TrackPoint.absentBitPattern >> (56 - 8 * UInt64(i))) }
        let decoded = try PropertyListDecoder().decode(TrackPoint.self, from: Data(bytes))
        #expect(decoded.altitude?.isNaN == true, "decoded altitude \(String(describing: decoded.altitude))")
    }
}
