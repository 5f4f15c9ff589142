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

    @Test func bitWriterWritesTheReferenceBits() {
        var g = SeededGenerator(state: 99)
        for _ in 0..<200 {
            let puts = (0..<Int.random(in: 0...300, using: &g)).map { _ in
                let count = Int.random(in: 0...64, using: &g)
                return (UInt64.random(in: 0 ... .max, using: &g) & (count == 64 ? .max : (1 << UInt64(count)) - 1), count)
            }
            var a = [UInt8](repeating: 0xEE, count: puts.count * 8 + 16), b = a
            let lengthA = a.withUnsafeMutableBufferPointer { p in
                var w = BitStreamWriter(p.baseAddress!)
                for (bits, count) in puts { w.putLong(bits, count) }
                return w.finish()
            }
            let lengthB = b.withUnsafeMutableBufferPointer { p in
                var w = ReferenceBitStreamWriter(p.baseAddress!)
                for (bits, count) in puts { w.putLong(bits, count) }
                return w.finish()
            }
            #expect(lengthA == lengthB)
            #expect(a[..<lengthA] == b[..<lengthB])
        }
    }

    @Test func zeroRunScanFindsEveryBoundary() {
        var g = SeededGenerator(state: 5)
        for _ in 0..<300 {
            let tokens = (0..<Int.random(in: 0...80, using: &g)).map { _ in Bool.random(using: &g) ? 0 : UInt8.random(in: 1...255, using: &g) }
            tokens.withUnsafeBufferPointer { t in
                guard let base = t.baseAddress else { return }
                for from in 0...t.count {
                    let nonzero = (from..<t.count).first { t[$0] != 0 } ?? t.count
                    let zero = (from..<t.count).first { t[$0] == 0 } ?? t.count
                    #expect(ZeroRunScan.nextNonzero(base, from: from, end: t.count) == nonzero)
                    #expect(ZeroRunScan.nextZero(base, from: from, end: t.count) == zero)
                }
            }
        }
    }
}
