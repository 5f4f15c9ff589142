import Foundation
import Testing
@testable import RouteLog

/// Version 2 blocks that are damaged or forged fail with a clear error, never trap,
/// and never allocate for what their bytes do not hold.
@Suite struct CodecV2HostileBlockTests {
    /// A version 2 block with the given point count and raw columns.
    static func block(points: UInt64, _ columns: [(tag: UInt8, encoding: UInt8, body: [UInt8])]) -> [UInt8] {
        var w = ByteWriter()
        w.u8(FormatConstants.Compression.columnsV2.rawValue)
        w.varint(points)
        w.varint(UInt64(columns.count))
        for column in columns {
            w.u8(column.tag)
            w.u8(column.encoding)
            w.varint(UInt64(column.body.count))
            w.append(contentsOf: column.body)
        }
        return w.bytes
    }

    /// The body of a column whose every residual is zero, as a run (order 0, bias `value`).
    static func constantBody(_ value: Int64, count: Int) -> [UInt8] {
        var w = ByteWriter()
        w.varint(ByteWriter.zigzag(value))  // bias
        w.varint(1)                         // divisor
        let j = 63 - UInt64(count).leadingZeroBitCount
        w.varint(0)                         // no value tokens
        w.varint(j + 1)                     // run tokens 0...j
        var nibbles = [UInt8](repeating: 0, count: j + 1)
        nibbles[j] = 1                      // only run token j, code "0"
        var i = 0
        while i < nibbles.count {
            w.u8(nibbles[i] | (i + 1 < nibbles.count ? nibbles[i + 1] << 4 : 0))
            i += 2
        }
        // Stream: code bit 0, then j extra bits of count - 2^j, lowest first.
        var bits: UInt64 = UInt64(count - (1 << j)) << 1
        var length = 1 + j
        while length > 0 {
            w.u8(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
            length -= 8
        }
        return w.bytes
    }

    static let runsOrder0: UInt8 = FormatConstants.ColumnV2.zeroRuns

    static func decodeFails(_ bytes: [UInt8], _ comment: Comment? = nil) {
        #expect(throws: ByteReader.Malformed.self, comment) { try RouteCodec.decodePoints(bytes[...]) }
    }

    @Test func aHandMadeBlockOfRunsDecodes() throws {
        // The helper itself must make valid blocks, or the tests below prove nothing.
        let bytes = Self.block(points: 1000, [
            (1, Self.runsOrder0, Self.constantBody(455_000_000, count: 1000)),
            (2, Self.runsOrder0, Self.constantBody(92_500_000, count: 1000)),
            (3, Self.runsOrder0, Self.constantBody(1_767_225_600_000, count: 1000)),
        ])
        let points = try RouteCodec.decodePoints(bytes[...])
        #expect(points.count == 1000)
        #expect(points.allSatisfy { $0 == TrackPoint(latitude: 45.5, longitude: 9.25, timestamp: Date(timeIntervalSince1970: 1_767_225_600)) })
    }

    @Test func everyTruncationOfAVersion2BlockFailsCleanly() throws {
        for seed in [1, 2] as [UInt64] {
            let walk = Fixtures.sampleWalk(seed: seed, points: seed == 1 ? 300 : 20)
            let block = RouteCodec.encodePoints(walk.points, version: 2)
            for cut in 0..<block.count {
                Self.decodeFails(Array(block[..<cut]), "cut at \(cut) of \(block.count)")
            }
            #expect(try RouteCodec.decodePoints(block[...]) == RouteCodec.quantize(walk).points)
        }
    }

    @Test func everySingleBitFlipFailsOrDecodesToSomethingValid() throws {
        // Entropy-coded bits have little redundancy: many flips decode to other points.
        // Those must still be points a store could hold, and survive a round trip.
        let walk = Fixtures.sampleWalk(seed: 3, points: 40)
        let block = RouteCodec.encodePoints(walk.points, version: 2)
        var refused = 0
        for byte in 0..<block.count {
            for bit in 0..<8 {
                var damaged = block
                damaged[byte] ^= 1 << UInt8(bit)
                do {
                    let points = try RouteCodec.decodePoints(damaged[...])
                    #expect(points.count >= 1 && points.count <= FormatConstants.ColumnV2.maxPoints)
                    #expect(try RouteCodec.decodePoints(RouteCodec.encodePoints(points, version: 2)[...]) == points)
                } catch is ByteReader.Malformed {
                    refused += 1
                }
            }
        }
        #expect(refused > 0)
    }

    @Test func aHugePointCountWithoutTheBytesIsRefused() {
        // A million points claimed, columns that hold one value each.
        let one = Self.constantBody(5, count: 1)
        Self.decodeFails(Self.block(points: 1_000_000, [(1, Self.runsOrder0, one), (2, Self.runsOrder0, one), (3, Self.runsOrder0, one)]))
        // Over the format's limit, whatever the bytes.
        Self.decodeFails(Self.block(points: 1_000_001, []))
        Self.decodeFails(Self.block(points: 0, []))
        // Plain (no runs) streams need a bit a value: 100,000 values in 3 bytes is refused
        // before anything is allocated for them.
        var w = ByteWriter()
        w.varint(0); w.varint(1)             // bias 0, divisor 1
        w.varint(1); w.u8(0x01)              // one value token (0), length 1
        w.append(contentsOf: [0, 0, 0])      // 24 bits
        Self.decodeFails(Self.block(points: 100_000, [(1, 0, w.bytes), (2, 0, w.bytes), (3, 0, w.bytes)]))
    }

    @Test func runsThatPassTheColumnOrFallShortAreRefused() {
        let good = Self.constantBody(5, count: 1000)
        let bytes = Self.block(points: 999, [(1, Self.runsOrder0, good), (2, Self.runsOrder0, good), (3, Self.runsOrder0, good)])
        Self.decodeFails(bytes, "runs of 1000 in a 999-point block")
        let short = Self.constantBody(5, count: 998)
        Self.decodeFails(Self.block(points: 999, [(1, Self.runsOrder0, short), (2, Self.runsOrder0, short), (3, Self.runsOrder0, short)]))
    }

    @Test func badCodesAreRefused() {
        func body(values: UInt64, nibbles: [UInt8], stream: [UInt8]) -> [UInt8] {
            var w = ByteWriter()
            w.varint(0); w.varint(1)
            w.varint(values)
            w.append(contentsOf: nibbles)
            w.append(contentsOf: stream)
            return w.bytes
        }
        let cases: [(String, [UInt8])] = [
            ("no symbols", body(values: 2, nibbles: [0x00], stream: [0])),
            ("oversubscribed", body(values: 3, nibbles: [0x11, 0x01], stream: [0])),
            ("incomplete", body(values: 3, nibbles: [0x21, 0x00], stream: [0])),
            ("single code of 2 bits", body(values: 1, nibbles: [0x02], stream: [0])),
            ("length over 11", body(values: 2, nibbles: [0xC1], stream: [0])),
            ("odd nibble not 0", body(values: 1, nibbles: [0x11], stream: [0])),
            ("too many value tokens", body(values: 257, nibbles: [], stream: [])),
        ]
        for (name, column) in cases {
            Self.decodeFails(Self.block(points: 1, [(1, 0, column), (2, 0, column), (3, 0, column)]), Comment(rawValue: name))
        }
    }

    @Test func badHeadersAreRefused() throws {
        let walk = RouteCodec.encodePoints(Fixtures.sampleWalk(seed: 5, points: 50).points, version: 2)
        var columns: [(tag: UInt8, encoding: UInt8, body: [UInt8])] = []
        var reader = ByteReader(walk, from: 1)
        let n = try reader.varint()
        for _ in 0..<(try reader.varint()) {
            let tag = try reader.u8(), encoding = try reader.u8()
            columns.append((tag, encoding, Array(try reader.bytes(try reader.count(max: reader.remaining)))))
        }
        #expect(try RouteCodec.decodePoints(Self.block(points: n, columns)[...]).count == 50)
        var twice = columns
        twice.append(columns[0])
        Self.decodeFails(Self.block(points: n, twice), "a repeated tag")
        Self.decodeFails(Self.block(points: n, Array(columns.dropFirst())), "no latitude")
        for bad: UInt8 in [0x03, 0x20, 0xC0, 0x0C, 0x18] {
            var changed = columns
            changed[0].encoding = bad
            Self.decodeFails(Self.block(points: n, changed), Comment(rawValue: "encoding \(bad)"))
        }
        var presence = columns
        presence[0].encoding |= FormatConstants.columnHasBitmap
        Self.decodeFails(Self.block(points: n, presence), "a required column with a presence")
        // An unknown tag is skipped; bytes after the last column are not.
        #expect(try RouteCodec.decodePoints(Self.block(points: n, columns + [(200, 0x55, [1, 2, 3])])[...]).count == 50)
        // Unknown tags are held to appearing once too, every tag apart from the others
        // (8, 72, 136 and 200 differ only above their low six bits).
        let unknown: [(tag: UInt8, encoding: UInt8, body: [UInt8])] = [136, 72, 200].map { ($0, 0x55, [1, 2, 3]) }
        #expect(try RouteCodec.decodePoints(Self.block(points: n, columns + unknown)[...]).count == 50)
        Self.decodeFails(Self.block(points: n, columns + unknown + [(72, 0x55, [4])]), "an unknown tag repeated")
        Self.decodeFails(Self.block(points: n, columns + unknown + [(255, 0, []), (255, 0, [])]), "tag 255 repeated")
        Self.decodeFails(Self.block(points: n, columns) + [0], "a trailing byte")
        // A divisor of 0.
        var zero = columns
        zero[2].body = Self.constantBody(5, count: 50)
        zero[2].encoding = Self.runsOrder0
        zero[2].body[1] = 0
        Self.decodeFails(Self.block(points: n, zero), "divisor 0")
    }

    @Test func outOfRangeValuesAreDamage() {
        let lat = Self.constantBody(900_000_001, count: 3)
        let ok = Self.constantBody(5, count: 3)
        Self.decodeFails(Self.block(points: 3, [(1, Self.runsOrder0, lat), (2, Self.runsOrder0, ok), (3, Self.runsOrder0, ok)]))
        let lateTime = Self.constantBody(FormatConstants.latestTimestampMs + 1, count: 3)
        Self.decodeFails(Self.block(points: 3, [(1, Self.runsOrder0, ok), (2, Self.runsOrder0, ok), (3, Self.runsOrder0, lateTime)]))
    }

    @Test func presenceRunsMustCoverThePoints() {
        let ok = Self.constantBody(5, count: 4)
        func altitude(_ runs: [UInt64], values: Int) -> (UInt8, UInt8, [UInt8]) {
            var w = ByteWriter()
            w.varint(UInt64(runs.count))
            for run in runs { w.varint(run) }
            w.append(contentsOf: Self.constantBody(7, count: values))
            return (4, Self.runsOrder0 | FormatConstants.ColumnV2.presenceRuns, w.bytes)
        }
        let required = [(UInt8(1), Self.runsOrder0, ok), (2, Self.runsOrder0, ok), (3, Self.runsOrder0, ok)]
        #expect(throws: Never.self) { try RouteCodec.decodePoints(Self.block(points: 4, required + [altitude([2, 1, 1], values: 3)])[...]) }
        Self.decodeFails(Self.block(points: 4, required + [altitude([2, 1], values: 2)]), "runs cover 3 of 4")
        Self.decodeFails(Self.block(points: 4, required + [altitude([2, 0, 2], values: 4)]), "an empty run after the first")
        Self.decodeFails(Self.block(points: 4, required + [altitude([5], values: 5)]), "runs past the points")
    }
}
