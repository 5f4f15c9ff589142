import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// A stored preview (format-spec.md, "Derived fields": tolerance, count, then each
/// point's zigzag varint differences) is checked on every load of its route. A valid one
/// is read straight from its bytes, anything else by the careful loop that names what is
/// wrong: both must accept and refuse exactly what the rules say, on hostile bytes too,
/// and never stop the process (a sum of Int64.min has no absolute value).
@Suite struct StoredPreviewCheckTests {
    static func varint(_ value: UInt64, padded extra: Int = 0) -> [UInt8] {
        var out: [UInt8] = [], v = value
        repeat {
            out.append(UInt8(v & 0x7F) | (v >= 0x80 ? 0x80 : 0))
            v >>= 7
        } while v != 0
        // A longer encoding of the same value (LEB128 allows it, up to 10 bytes).
        for _ in 0..<extra {
            out[out.count - 1] |= 0x80
            out.append(0)
        }
        return out
    }

    static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }

    /// What the rules say of the points' bytes: accepted, or refused.
    static func accepted(_ bytes: [UInt8], count: Int) -> Bool {
        var i = 0
        func next() -> UInt64? {
            var value: UInt64 = 0, shift: UInt64 = 0
            while i < bytes.count {
                let byte = bytes[i]
                i += 1
                if shift == 63 && byte > 1 { return nil }
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
                if shift > 63 { return nil }
            }
            return nil
        }
        var lat: Int64 = 0, lon: Int64 = 0
        for _ in 0..<count {
            guard let a = next(), let b = next() else { return false }
            lat &+= ByteReader.unzigzag(a)
            lon &+= ByteReader.unzigzag(b)
            guard lat.magnitude <= 9_000_000, lon.magnitude <= 18_000_000 else { return false }
        }
        return i == bytes.count
    }

    static func field(tolerance: UInt64, count: Int, points: [UInt8]) -> [UInt8] {
        varint(tolerance) + varint(UInt64(count)) + points
    }

    @Test func aCoordinateSummingToInt64MinIsRefusedNotATrap() throws {
        for (lat, lon) in [(UInt64.max, UInt64(0)), (0, UInt64.max), (UInt64.max, UInt64.max)] {
            let value = Self.field(tolerance: 3, count: 1, points: Self.varint(lat) + Self.varint(lon))
            #expect(throws: ByteReader.Malformed.self) { try DerivedFields.check(.preview, value[...]) }
        }
        // Two steps that reach Int64.min together (each alone within 64 bits).
        let half = Self.zigzag(Int64.min / 2)
        let value = Self.field(tolerance: 0, count: 2, points: Self.varint(half) + Self.varint(0) + Self.varint(half) + Self.varint(0))
        #expect(throws: ByteReader.Malformed.self) { try DerivedFields.check(.preview, value[...]) }
    }

    /// The globe's edges: a point on them is kept, one a unit past is refused, at
    /// either end of the preview.
    @Test func pointsOnTheEdgesAndOnePast() throws {
        for (lat, lon) in [(9_000_000, 0), (-9_000_000, 0), (0, 18_000_000), (0, -18_000_000), (9_000_000, -18_000_000)] as [(Int64, Int64)] {
            for past in [false, true] {
                let (plat, plon) = past ? (lat + lat.signum(), lon + lon.signum()) : (lat, lon)
                for first in [true, false] {
                    let edge = Self.varint(Self.zigzag(plat)) + Self.varint(Self.zigzag(plon))
                    let points = first ? edge + Self.varint(Self.zigzag(-plat)) + Self.varint(Self.zigzag(-plon))
                        : Self.varint(0) + Self.varint(0) + edge
                    let value = Self.field(tolerance: 1, count: 2, points: points)
                    var accepted = true
                    do { try DerivedFields.check(.preview, value[...]) } catch { accepted = false }
                    #expect(accepted == !past, "(\(plat), \(plon)), first \(first)")
                }
            }
        }
    }

    @Test func validAndHostilePreviewsAreJudgedByTheRules() throws {
        var g = SeededGenerator(state: 64)
        var judged = 0, acceptedCount = 0, wrong = 0
        for round in 0..<6_000 {
            let count = Int.random(in: 1...64, using: &g)
            var points: [UInt8] = []
            var lat: Int64 = Int64.random(in: -9_000_000...9_000_000, using: &g), lon: Int64 = 0
            var previousLat: Int64 = 0, previousLon: Int64 = 0
            // One point in a third of the previews with a hostile difference.
            let hostile = round % 3 == 0 ? Int.random(in: 0..<count, using: &g) : -1
            for point in 0..<count {
                lat = max(-9_000_000, min(9_000_000, lat + Int64.random(in: -3_000...3_000, using: &g)))
                lon = Int64.random(in: -18_000_000...18_000_000, using: &g)
                var dlat = lat - previousLat, dlon = lon - previousLon
                switch point == hostile ? Int.random(in: 0..<3, using: &g) : 3 {
                case 0: dlat = Int64.random(in: Int64.min...Int64.max, using: &g)
                case 1: dlon = dlon + Int64.random(in: -40_000_000...40_000_000, using: &g)
                case 2: dlat = dlat + (Bool.random(using: &g) ? 1 : -1)  // one past an edge, now and then
                default: break
                }
                previousLat = lat
                previousLon = lon
                let padding = Int.random(in: 0..<20, using: &g) == 0 ? Int.random(in: 1...9, using: &g) : 0
                points += Self.varint(Self.zigzag(dlat), padded: padding) + Self.varint(Self.zigzag(dlon))
            }
            switch round % 10 {
            case 0: points.append(UInt8.random(in: 0...255, using: &g))  // trailing
            case 1: if !points.isEmpty { points.removeLast(Int.random(in: 1...min(3, points.count), using: &g)) }
            case 2: if !points.isEmpty { points[Int.random(in: 0..<points.count, using: &g)] ^= 1 << UInt8.random(in: 0...7, using: &g) }
            case 3: points += [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02]  // past 64 bits
            default: break
            }
            let value = Self.field(tolerance: UInt64.random(in: 0...100_000, using: &g), count: count, points: points)
            let expected = Self.accepted(points, count: count)
            var got = true
            do { try DerivedFields.check(.preview, value[...]) } catch { got = false }
            if got != expected { wrong += 1 }
            if expected {
                acceptedCount += 1
                var r = ByteReader(value[...])
                let preview = try DerivedFields.decodePreview(&r)
                if preview.encoded != points || preview.count != count { wrong += 1 }
            }
            judged += 1
        }
        #expect(judged == 6_000)
        #expect(acceptedCount > 2_000 && acceptedCount < 5_500, "\(acceptedCount) accepted: the rounds should mix both")
        #expect(wrong == 0)
    }
}
