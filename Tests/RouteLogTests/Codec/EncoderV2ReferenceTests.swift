import CRouteLogSystem
import Foundation
import Testing
@testable import RouteLog

/// The version 2 encoder writes, byte for byte, what the reference copy of its earlier
/// self writes (Reference/ReferenceEncoderV2.swift): for random and hostile routes, and
/// for columns built to reach every path of the bit writer and the zero-run scan.
@Suite struct EncoderV2ReferenceTests {
    /// Both encoders' bytes for one column, with `model` or the one each would choose.
    static func bothColumns(_ values: [Int64], tag: FormatConstants.ColumnTag = .altitude,
                            model: ResidualModel? = nil) -> (new: [UInt8], reference: [UInt8]) {
        values.withUnsafeBufferPointer { v in
            let encoder = ColumnEncoderV2(capacity: v.count), reference = ReferenceColumnEncoderV2(capacity: v.count)
            defer {
                encoder.deallocate()
                reference.deallocate()
            }
            var a = ByteWriter(), b = ByteWriter()
            encoder.encode(tag: tag, values: v, presence: nil, model: model, to: &a)
            reference.encode(tag: tag, values: v, presence: nil, model: model, to: &b)
            return (a.bytes, b.bytes)
        }
    }

    @Test func randomRoutesEncodeAsTheReferenceDoes() throws {
        var routes = RandomRoutes(seed: 1313)
        for _ in 0..<400 {
            let columns = try PointColumns(routes.next().points, validating: false)
            #expect(PointBlockV2.encode(columns) == ReferencePointBlockV2.encode(columns))
        }
    }

    @Test func walksEncodeAsTheReferenceDoes() throws {
        for (seed, count) in zip(1...9, [1, 2, 3, 7, 8, 9, 255, 256, 3600]) {
            let columns = try PointColumns(Fixtures.sampleWalk(seed: UInt64(seed), points: count).points, validating: false)
            #expect(PointBlockV2.encode(columns) == ReferencePointBlockV2.encode(columns), "walk \(seed) of \(count)")
        }
    }

    @Test func hostileRoutesEncodeAsTheReferenceDoes() throws {
        var g = SeededGenerator(state: 77)
        let start = 1_700_000_000.0
        let shapes: [(Int) -> TrackPoint] = [
            // At the poles, every longitude.
            { i in TrackPoint(latitude: i % 2 == 0 ? 90 : -90, longitude: Double(i % 361) - 180, timestamp: Date(timeIntervalSince1970: start + Double(i))) },
            // Across the antimeridian and back, zero steps in between.
            { i in TrackPoint(latitude: 10, longitude: [179.9999999, -180, 180, -179.9999999][i % 4], timestamp: Date(timeIntervalSince1970: start + Double(i / 3))) },
            // Huge jumps and extreme optional values.
            { i in TrackPoint(latitude: i % 3 == 0 ? 89.9999999 : -89.9999999, longitude: i % 2 == 0 ? 180 : -180,
                              timestamp: Date(timeIntervalSince1970: i % 2 == 0 ? 0 : 7_258_000_000), altitude: i % 2 == 0 ? 1e9 : -1e9,
                              speed: i % 5 == 0 ? nil : 1e9, heartRate: i % 7 == 0 ? 1e6 : 0) },
            // Every point equal.
            { _ in TrackPoint(latitude: 48, longitude: 11, timestamp: Date(timeIntervalSince1970: start), altitude: 500) },
        ]
        for shape in shapes {
            for count in [1, 2, 3, 9, 64, 257, 2000] {
                let columns = try PointColumns((0..<count).map(shape), validating: false)
                #expect(PointBlockV2.encode(columns) == ReferencePointBlockV2.encode(columns))
            }
        }
        for _ in 0..<50 {
            let count = Int.random(in: 1...3000, using: &g)
            let points = (0..<count).map { i in
                TrackPoint(latitude: Double.random(in: -90...90, using: &g), longitude: Double.random(in: -180...180, using: &g),
                           timestamp: Date(timeIntervalSince1970: start + Double(i) * Double.random(in: 0...2, using: &g).rounded()),
                           altitude: Bool.random(using: &g) ? Double(Int.random(in: -3...3, using: &g)) : nil,
                           horizontalAccuracy: Double.random(in: 0...1, using: &g) < 0.9 ? 5 : Double.random(in: 0...1e6, using: &g))
            }
            let columns = try PointColumns(points, validating: false)
            #expect(PointBlockV2.encode(columns) == ReferencePointBlockV2.encode(columns))
        }
    }

    @Test func hostileColumnsEncodeAsTheReferenceDoes() {
        var g = SeededGenerator(state: 4242)
        let lengths = [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 255, 256, 257, 1000, 4097]
        func column(_ kind: Int, _ n: Int) -> [Int64] {
            switch kind {
            case 0: return Array(repeating: Int64.random(in: .min ... .max, using: &g), count: n)
            case 1: return (0..<n).map { _ in Int64.random(in: .min ... .max, using: &g) }
            case 2: return (0..<n).map { i in i % 2 == 0 ? .min : .max }
            case 3:  // zero runs of every length, nonzero values between
                var values: [Int64] = [], v: Int64 = 0
                while values.count < n {
                    let run = [0, 1, 2, 7, 8, 9, 16, 100][Int.random(in: 0..<8, using: &g)]
                    values += Array(repeating: v, count: run)
                    v &+= Int64.random(in: -3...3, using: &g)
                    values.append(v)
                }
                return Array(values.prefix(n))
            case 4: return (0..<n).map { _ in 100 * Int64.random(in: -50...50, using: &g) + 7 }
            case 5: return (0..<n).map { i in Int64(i) * 1000 + (Int.random(in: 0..<20, using: &g) == 0 ? 1 : 0) }
            case 6: return (0..<n).map { _ in Int64.random(in: -1...1, using: &g) << Int64.random(in: 0...62, using: &g) }
            default: return (0..<n).map { _ in Int64.random(in: 0...1, using: &g) * Int64.random(in: -(1 << 40)...(1 << 40), using: &g) }
            }
        }
        for kind in 0..<8 {
            for n in lengths {
                for _ in 0..<3 {
                    let values = column(kind, n)
                    let (new, reference) = Self.bothColumns(values)
                    #expect(new == reference, "kind \(kind), \(n) values")
                }
            }
        }
    }

    /// The zero-run scan (zero_runs.h) finds every run, whatever its length and wherever
    /// it lies against the 64-token words: counted and written, against runs found one
    /// token at a time.
    @Test func zeroRunsAreFoundAcrossEveryWordBoundary() {
        var g = SeededGenerator(state: 5)
        var cases: [[UInt8]] = (0..<400).map { _ in
            let zeroShare = Double.random(in: 0...1, using: &g)
            return (0..<Int.random(in: 0...300, using: &g)).map { _ in
                Double.random(in: 0...1, using: &g) < zeroShare ? 0 : UInt8.random(in: 1...255, using: &g)
            }
        }
        // Runs that start or end exactly at 63, 64, 65, 127, 128, 129 and at the end.
        for edge in [1, 63, 64, 65, 127, 128, 129, 191, 192] {
            cases.append(Array(repeating: 0, count: edge) + [9] + Array(repeating: 0, count: 64))
            cases.append([9] + Array(repeating: 0, count: edge))
            cases.append(Array(repeating: 7, count: edge) + Array(repeating: 0, count: 3))
        }
        cases.append(Array(repeating: 0, count: 1 << 20 + 5))  // longer than one run token sends
        for tokens in cases {
            var expected = [UInt32](repeating: 0, count: 20)
            var i = 0
            while i < tokens.count {
                guard tokens[i] == 0 else { i += 1; continue }
                var end = i
                while end < tokens.count && tokens[end] == 0 { end += 1 }
                var length = end - i
                while length > (1 << 20) - 1 { expected[19] += 1; length -= (1 << 20) - 1 }
                expected[ResidualToken.runToken(length)] += 1
                i = end
            }
            var counted = [UInt32](repeating: 0, count: 20)
            routelog_count_zero_runs(tokens, tokens.count, &counted)
            #expect(counted == expected, "\(tokens.count) tokens")
        }
    }

    /// The run stream's writer gives the same bytes with BMI2 as without.
    @Test func theRunStreamIsTheSameWithAndWithoutBMI2() {
        var g = SeededGenerator(state: 11)
        for _ in 0..<200 {
            let k = Int.random(in: 0...700, using: &g)
            let u: [UInt64] = (0..<k).map { _ in Bool.random(using: &g) ? 0 : UInt64.random(in: 1...(1 << 20), using: &g) }
            let tokens = u.map { UInt8(ResidualToken.token($0)) }
            // Any complete-enough table serves: every symbol a 9-bit code, extra bits as the format has them.
            var send = [UInt64](repeating: 0, count: HuffmanCode.symbolCount), masks = send
            for symbol in 0..<HuffmanCode.symbolCount {
                let extra = symbol < 256 ? ResidualToken.extraBits(symbol) : symbol - 256
                send[symbol] = UInt64(symbol & 0x1FF) | 9 << 32 | UInt64(extra) << 40 | UInt64(9 + extra) << 48
                masks[symbol] = (1 << UInt64(extra)) - 1
            }
            var a = [UInt8](repeating: 0xEE, count: 10 * k + 16), b = a
            let lengthA = routelog_write_run_stream(u, tokens, k, send, masks, &a)
            let lengthB = routelog_write_run_stream_portable(u, tokens, k, send, masks, &b)
            #expect(lengthA == lengthB)
            #expect(a[..<lengthA] == b[..<lengthB])
        }
    }
}
