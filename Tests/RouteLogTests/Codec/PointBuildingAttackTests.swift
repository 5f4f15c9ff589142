import Foundation
import Testing
@testable import RouteLog
import RouteLogSamples

/// Points built a chunk of 256 at a time, optional columns spread over their gaps, and
/// four-stream columns summed as they are read: for every count around the chunk and
/// stream boundaries, every pattern of gaps in every optional column, and extreme
/// values, each field is `Double(stored) / scale` bit for bit (absent in the gaps);
/// damaged blocks with gaps decode to their columns or are refused, never read outside.
@Suite struct PointBuildingAttackTests {
    typealias Tag = FormatConstants.ColumnTag
    static let optionalTags: [Tag] = [.altitude, .horizontalAccuracy, .verticalAccuracy, .speed, .course, .heartRate, .cadence]
    static let scales: [Double] = [100, 100, 100, 100, 100, 1, 1]
    static let counts = [1, 2, 7, 8, 9, 255, 256, 257, 263, 511, 512, 513, 767, 768, 769, 1000]

    /// A block whose optional columns hold arbitrary Int64s (the encoder takes any).
    static func block(n: Int, lat: [Int64], lon: [Int64], time: [Int64],
                      optional: [(Tag, [Int64], [Bool]?)]) -> [UInt8] {
        var out = ByteWriter()
        out.u8(FormatConstants.Compression.columnsV2.rawValue)
        out.varint(n)
        out.varint(3 + optional.count)
        let encoder = ColumnEncoderV2(capacity: n)
        defer { encoder.deallocate() }
        for (tag, values) in [(Tag.latitude, lat), (.longitude, lon), (.time, time)] {
            values.withUnsafeBufferPointer { encoder.encode(tag: tag, values: $0, presence: nil, to: &out) }
        }
        for (tag, values, present) in optional {
            var presence: ColumnPresence?
            if let present {
                var bits = [UInt8](repeating: 0, count: (n + 7) / 8)
                for i in 0..<n where present[i] { bits[i >> 3] |= 1 << UInt8(i & 7) }
                presence = ColumnPresence(bitmap: bits, pointCount: n)
            }
            values.withUnsafeBufferPointer { encoder.encode(tag: tag, values: $0, presence: presence, to: &out) }
        }
        return out.bytes
    }

    static func raws(_ p: TrackPoint) -> [Double] {
        [p.rawAltitude, p.rawHorizontalAccuracy, p.rawVerticalAccuracy, p.rawSpeed, p.rawCourse, p.rawHeartRate, p.rawCadence]
    }

    static func expectBitIdentical(_ decoded: [TrackPoint], n: Int, lat: [Int64], lon: [Int64], time: [Int64],
                                   optional: [(Tag, [Int64], [Bool]?)], _ what: String) -> Int {
        var mismatches = 0
        guard decoded.count == n else { Issue.record("\(what): \(decoded.count) points"); return 1 }
        var expected = [[Double]](repeating: [Double](repeating: TrackPoint.absent, count: n), count: 7)
        for (tag, values, present) in optional {
            let slot = optionalTags.firstIndex(of: tag)!
            var next = 0
            for i in 0..<n where present?[i] ?? true {
                expected[slot][i] = Double(values[next]) / scales[slot]
                next += 1
            }
        }
        for i in 0..<n {
            let p = decoded[i]
            let raw = Self.raws(p)
            var ok = p.latitude.bitPattern == (Double(lat[i]) / 1e7).bitPattern
                && p.longitude.bitPattern == (Double(lon[i]) / 1e7).bitPattern
                && p.timestamp == Date(timeIntervalSince1970: Double(time[i]) / 1000)
            for s in 0..<7 where raw[s].bitPattern != expected[s][i].bitPattern { ok = false }
            if !ok {
                if mismatches < 3 { Issue.record("\(what): point \(i) differs: \(raw) vs \(expected.map { $0[i] })") }
                mismatches += 1
            }
        }
        return mismatches
    }

    @Test func everyCountEveryPatternExtremeValuesBitIdentical() throws {
        var g = SeededGenerator(state: 1234)
        var total = 0
        for n in Self.counts {
            for round in 0..<12 {
                let lat = (0..<n).map { _ in Int64.random(in: -900_000_000...900_000_000, using: &g) }
                let lon = (0..<n).map { _ in Int64.random(in: -1_800_000_000...1_800_000_000, using: &g) }
                let time = (0..<n).map { _ in Int64.random(in: 0...FormatConstants.latestTimestampMs, using: &g) }
                var optional: [(Tag, [Int64], [Bool]?)] = []
                for tag in Self.optionalTags where Int.random(in: 0..<4, using: &g) != 0 {
                    let present: [Bool]?
                    switch (round + Int(tag.rawValue)) % 7 {
                    case 0: present = nil
                    case 1: present = (0..<n).map { _ in Bool.random(using: &g) }
                    case 2: present = (0..<n).map { $0 >= n / 2 }
                    case 3: present = (0..<n).map { $0 == n - 1 }
                    case 4: present = (0..<n).map { _ in false } // bitmap of nothing (a column with m = 0)
                    case 5: present = (0..<n).map { $0 % 256 == 255 || $0 % 256 == 0 }
                    default: present = (0..<n).map { _ in Int.random(in: 0..<10, using: &g) == 0 }
                    }
                    let m = present.map { $0.filter { $0 }.count } ?? n
                    let values: [Int64] = (0..<m).map { _ in
                        switch Int.random(in: 0..<5, using: &g) {
                        case 0: return Int64.max - Int64.random(in: 0...3, using: &g)
                        case 1: return Int64.min + Int64.random(in: 0...3, using: &g)
                        case 2: return Int64.random(in: Int64.min...Int64.max, using: &g)
                        case 3: return (1 << 53) + Int64.random(in: -3...3, using: &g)
                        default: return Int64.random(in: -100_000...100_000, using: &g)
                        }
                    }
                    optional.append((tag, values, present))
                }
                let bytes = Self.block(n: n, lat: lat, lon: lon, time: time, optional: optional)
                // Any integer in the optional columns: not held to the stored limits.
                let decoded = PointBlockV2.points(try PointBlockV2.decodeColumns(bytes[...], checkingStoredLimits: false))
                total += Self.expectBitIdentical(decoded, n: n, lat: lat, lon: lon, time: time, optional: optional,
                                                 "n \(n) round \(round)")
            }
        }
        #expect(total == 0)
    }

    /// Random byte damage of valid blocks with gaps: fails or decodes, never traps
    /// (run under --sanitize=address); what decodes is consistent with its columns.
    @Test func damagedBlocksWithGapsNeverReadOutOfBounds() throws {
        var g = SeededGenerator(state: 99)
        var decodedCount = 0, failed = 0
        for n in [1, 9, 255, 256, 257, 513] {
            let walk = Fixtures.sampleWalk(seed: UInt64(n), points: n)
            var points = walk.points
            for i in points.indices {
                if Bool.random(using: &g) { points[i].altitude = nil }
                points[i].heartRate = i % 3 == 0 ? nil : Double(60 + i % 90)
                points[i].cadence = i % 7 == 0 ? Double(i % 200) : nil
                points[i].course = Int.random(in: 0..<20, using: &g) == 0 ? 12.5 : nil
            }
            let block = RouteCodec.encodePoints(points, version: 2)
            for _ in 0..<3000 {
                var damaged = block
                for _ in 0..<Int.random(in: 1...3, using: &g) {
                    let at = Int.random(in: 1..<damaged.count, using: &g)
                    damaged[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &g))
                }
                do {
                    let columns = try PointBlockV2.decodeColumns(damaged[...], checkingStoredLimits: false)
                    let decoded = PointBlockV2.points(columns)
                    decodedCount += 1
                    // Reference: the columns spread point by point.
                    for (tag, column) in columns.optional {
                        guard let slot = Self.optionalTags.firstIndex(of: tag) else { continue }
                        let bits = column.presence
                        #expect(bits.map { $0.reduce(0) { $0 + $1.nonzeroBitCount } } ?? columns.count == column.values.count)
                        var next = 0
                        for i in 0..<columns.count {
                            let present = bits.map { $0[i >> 3] & (1 << UInt8(i & 7)) != 0 } ?? true
                            let raw = Self.raws(decoded[i])[slot]
                            let want = present ? Double(column.values.base[next]) / Self.scales[slot] : TrackPoint.absent
                            if present { next += 1 }
                            if raw.bitPattern != want.bitPattern {
                                Issue.record("n \(n): point \(i) slot \(slot) \(raw) != \(want)")
                                return
                            }
                        }
                    }
                } catch {
                    failed += 1
                }
            }
        }
    }
}
