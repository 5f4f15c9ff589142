import Foundation
import Testing
@testable import RouteLog

/// TrackPoint's hand-written equality, hashing and coding against a struct whose
/// `Double?` fields get them synthesized, over every pairing of awkward values.
@Suite struct TrackPointSynthesizedParityTests {
    struct Reference: Hashable, Codable {
        var latitude: Double, longitude: Double, timestamp: Date
        var altitude: Double?, horizontalAccuracy: Double?, verticalAccuracy: Double?
        var speed: Double?, course: Double?, heartRate: Double?, cadence: Double?

        init(_ p: TrackPoint) {
            (latitude, longitude, timestamp) = (p.latitude, p.longitude, p.timestamp)
            (altitude, horizontalAccuracy, verticalAccuracy) = (p.altitude, p.horizontalAccuracy, p.verticalAccuracy)
            (speed, course, heartRate, cadence) = (p.speed, p.course, p.heartRate, p.cadence)
        }
    }

    static let start = Date(timeIntervalSince1970: 1_767_225_600)
    static let values: [Double?] = [nil, 0, -0.0, 1.5, -1.5, .infinity, -.infinity, .nan, -.nan, .signalingNaN,
                                    .leastNonzeroMagnitude, .greatestFiniteMagnitude,
                                    Double(bitPattern: TrackPoint.absentBitPattern ^ 1),
                                    Double(bitPattern: TrackPoint.absentBitPattern | (1 << 63))]

    static func points() -> [TrackPoint] {
        var result: [TrackPoint] = []
        for a in values {
            for b in values {
                result.append(TrackPoint(latitude: 0, longitude: -0.0, timestamp: start, altitude: a, cadence: b))
                result.append(TrackPoint(latitude: -0.0, longitude: 0, timestamp: start, speed: a, heartRate: b))
            }
        }
        return result
    }

    @Test func equalityAndHashingMatchSynthesized() {
        let points = Self.points()
        for p in points {
            let rp = Reference(p)
            #expect(p.hashValue == rp.hashValue)
            for q in points {
                let rq = Reference(q)
                #expect((p == q) == (rp == rq))
                if p == q { #expect(p.hashValue == q.hashValue) }
            }
        }
    }

    @Test func codingMatchesSynthesized() throws {
        let json = JSONEncoder()
        json.outputFormatting = .sortedKeys
        json.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let jsonIn = JSONDecoder()
        jsonIn.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let plist = PropertyListEncoder()
        plist.outputFormat = .binary
        for p in Self.points() {
            let bytes = try json.encode(p)
            #expect(bytes == (try json.encode(Reference(p))))
            let back = try jsonIn.decode(TrackPoint.self, from: bytes)
            let reference = try jsonIn.decode(Reference.self, from: bytes)
            #expect(try json.encode(back) == json.encode(reference))
            #expect((back.altitude == nil) == (p.altitude == nil) && (back.cadence == nil) == (p.cadence == nil))
            let pl = try plist.encode(p)
            // (Foundation's binary plist bytes are not the same from run to run: compare keys.)
            func keys(_ data: Data) throws -> Set<String> {
                Set(try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]).keys)
            }
            #expect(try keys(pl) == keys(try plist.encode(Reference(p))))
            // Foundation's binary plists unique equal reals and keep no NaN payload: the
            // decoded point must be what the synthesized decoding gives, bit for bit.
            let plBack = Reference(try PropertyListDecoder().decode(TrackPoint.self, from: pl))
            let plReference = try PropertyListDecoder().decode(Reference.self, from: pl)
            for k in [\Reference.altitude, \.speed, \.heartRate, \.cadence] {
                #expect(plBack[keyPath: k]?.bitPattern == plReference[keyPath: k]?.bitPattern)
            }
        }
        let nulls = #"{"latitude":1,"longitude":2,"timestamp":0,"altitude":null,"cadence":null}"#
        let decoded = try JSONDecoder().decode(TrackPoint.self, from: Data(nulls.utf8))
        #expect(decoded.altitude == nil && decoded.cadence == nil)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(TrackPoint.self, from: Data(#"{"latitude":1,"longitude":2,"timestamp":0,"speed":"x"}"#.utf8))
        }
    }
}
