import Foundation
import Testing
@testable import RouteLog

/// A TrackPoint keeps its optional fields as plain doubles, an absent one as a NaN of
/// RouteLog's own: 80 bytes a point. It must behave exactly as ten declared fields
/// would: nil stays nil, every other value (NaN and infinities included) is kept,
/// equality, hashing and coding as `Double?` fields give them.
@Suite struct TrackPointStorageTests {
    static let start = Date(timeIntervalSince1970: 1_767_225_600)

    @Test func aPointIsEightyBytes() {
        #expect(MemoryLayout<TrackPoint>.stride == 80)
    }

    @Test func everyOptionalFieldKeepsNilAndEveryValue() {
        let fields: [WritableKeyPath<TrackPoint, Double?>] = [\.altitude, \.horizontalAccuracy, \.verticalAccuracy,
                                                             \.speed, \.course, \.heartRate, \.cadence]
        let values: [Double?] = [nil, 0, -0.0, 1.5, -12.25, .infinity, -.infinity, .greatestFiniteMagnitude,
                                 .leastNonzeroMagnitude, Double.nan, Double.signalingNaN, -Double.nan]
        for field in fields {
            for value in values {
                var point = TrackPoint(latitude: 1, longitude: 2, timestamp: Self.start)
                #expect(point[keyPath: field] == nil)
                point[keyPath: field] = value
                let read = point[keyPath: field]
                switch value {
                case nil: #expect(read == nil)
                case let v? where v.isNaN: #expect(read?.isNaN == true, "\(field): NaN read back as \(String(describing: read))")
                case let v?: #expect(read?.bitPattern == v.bitPattern)
                }
                // The others stay absent.
                for other in fields where other != field { #expect(point[keyPath: other] == nil) }
            }
        }
    }

    @Test func onlyNilIsReadAsNil() {
        var point = TrackPoint(latitude: 1, longitude: 2, timestamp: Self.start, altitude: 3)
        point.altitude = nil
        #expect(point.altitude == nil)
        // A NaN with the absent pattern is a NaN given, not an absent field.
        point.altitude = Double(bitPattern: TrackPoint.absentBitPattern)
        #expect(point.altitude?.isNaN == true)
        point.altitude = Double(bitPattern: TrackPoint.absentBitPattern ^ 1)
        #expect(point.altitude?.isNaN == true)
    }

    @Test func equalityAndHashingAreThoseOfOptionalFields() {
        let a = TrackPoint(latitude: 1, longitude: 2, timestamp: Self.start, speed: 3)
        var b = a
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        b.altitude = 0
        #expect(a != b)
        b.altitude = nil
        #expect(a == b)
        // NaN is unequal to itself, as it was in a `Double?` field.
        let nan = TrackPoint(latitude: 1, longitude: 2, timestamp: Self.start, heartRate: .nan)
        #expect(nan != nan)
        #expect(Set([a, b, TrackPoint(latitude: 1, longitude: 2, timestamp: Self.start)]).count == 2)
    }

    @Test func codingWritesOnlyPresentFieldsAndReadsThemBack() throws {
        let point = TrackPoint(latitude: 45.5, longitude: 9.25, timestamp: Self.start, altitude: 120.5,
                               speed: 1.25, cadence: 80)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(point), as: UTF8.self)
        #expect(json == #"{"altitude":120.5,"cadence":80,"latitude":45.5,"longitude":9.25,"speed":1.25,"timestamp":788918400}"#)
        #expect(try JSONDecoder().decode(TrackPoint.self, from: Data(json.utf8)) == point)
        let bare = #"{"latitude":1,"longitude":2,"timestamp":0}"#
        let decoded = try JSONDecoder().decode(TrackPoint.self, from: Data(bare.utf8))
        #expect(decoded == TrackPoint(latitude: 1, longitude: 2, timestamp: Date(timeIntervalSinceReferenceDate: 0)))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(TrackPoint.self, from: Data(#"{"latitude":1}"#.utf8)) }
    }

    /// A NaN given for a field is a bad value, refused at save as before, never taken
    /// for an absent one.
    @Test func aNaNFieldIsRefusedAtSaveNotDropped() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        defer { try? store.close() }
        var points = Fixtures.sampleWalk(seed: 3, points: 10).points
        points[4].altitude = .nan
        #expect(throws: RouteLogError.self) { try store.save(Route(points: points)) }
        #expect(try store.count == 0)
        points[4].altitude = nil
        let id = try store.save(Route(points: points))
        #expect(try store.route(id).points[4].altitude == nil)
    }
}
