import CRouteLogSystem
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog
import RouteLogSamples

/// `routelog_build_points`, which writes a load's points from their columns, gives bit
/// for bit the points the scalar steps give (each stored integer divided by its scale,
/// the time less the seconds from 1970 to the reference date; spread doubles copied),
/// on the vector path and on the portable one: for every count around its batches of
/// 64, integers past 2^51 in some batches (written again the divider's way), divisors
/// the multiply-adds do not serve, other rounding modes; it writes no byte past the
/// points. A load builds its points with it where `TrackPoint` is ten doubles.
@Suite struct BuildPointsTests {
    static let fields = Int(ROUTELOG_POINT_FIELDS)
    static let absent = TrackPoint.absent

    /// One field's inputs: integers with a divisor and offset, or doubles.
    struct Field {
        var integers: [Int64]?
        var doubles: [Double]
        var divisor: Double
        var offset: Double

        func expected(_ i: Int) -> Double {
            guard let integers else { return doubles[i] }
            let q = Double(integers[i]) / divisor
            return offset != 0 ? q - offset : q
        }
    }

    static func integer(_ g: inout SeededGenerator, wide: Bool) -> Int64 {
        switch Int.random(in: 0..<(wide ? 8 : 5), using: &g) {
        case 0: return Int64.random(in: -1_800_000_000...1_800_000_000, using: &g)
        case 1: return Int64.random(in: 0...4_102_444_800_000, using: &g)
        case 2: return Int64.random(in: -(1 << 51)...((1 << 51) - 1), using: &g)
        case 3: return [0, 1, -1, (1 << 51) - 1, -(1 << 51)][Int.random(in: 0..<5, using: &g)]
        case 4: return Int64.random(in: -100_000...100_000, using: &g)
        case 5: return [1 << 51, -(1 << 51) - 1, Int64.max, Int64.min, (1 << 53) + 1][Int.random(in: 0..<5, using: &g)]
        default: return Int64.random(in: Int64.min...Int64.max, using: &g)
        }
    }

    static func double(_ g: inout SeededGenerator) -> Double {
        switch Int.random(in: 0..<6, using: &g) {
        case 0: return absent
        case 1: return Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &g))  // any bits, NaNs too
        case 2: return -0.0
        default: return Double.random(in: -1e4...1e4, using: &g)
        }
    }

    static let divisors: [Double] = [1e7, 1e7, 1000, 100, 10, 1, 3, 0.1, -1000, 0x1p60, 0x1p-60, 1e-70, 1e70]

    /// Ten fields of `n` points; integers past 2^51 only where `wide` says.
    static func fields(n: Int, _ g: inout SeededGenerator, wide: Bool) -> [Field] {
        (0..<fields).map { f in
            if f > 2 && Int.random(in: 0..<3, using: &g) == 0 {
                let constant = Bool.random(using: &g)
                return Field(integers: nil, doubles: (0..<n).map { _ in constant ? absent : double(&g) }, divisor: 1, offset: 0)
            }
            let divisor = f < 2 ? 1e7 : f == 2 ? 1000 : divisors[Int.random(in: 0..<divisors.count, using: &g)]
            let offset = f == 2 ? Date.timeIntervalBetween1970AndReferenceDate : (Int.random(in: 0..<8, using: &g) == 0 ? 0.5 : 0)
            let manyWide = wide && Int.random(in: 0..<4, using: &g) == 0
            let values = (0..<n).map { _ in integer(&g, wide: manyWide || (wide && Int.random(in: 0..<200, using: &g) == 0)) }
            return Field(integers: values, doubles: [], divisor: divisor, offset: offset)
        }
    }

    /// The kernel's (or its portable twin's) points, with a sentinel point on each side.
    static func built(_ fields: [Field], n: Int, portable: Bool) -> (points: [Double], intact: Bool) {
        let sentinel = Double(bitPattern: 0x7FF4_5E47_1E1E_0001)
        var out = [Double](repeating: sentinel, count: (n + 2) * Self.fields)
        var keep: [UnsafeMutableRawPointer] = []
        defer { keep.forEach { $0.deallocate() } }
        let sources: [routelog_point_source] = fields.map { field in
            func copy<T>(_ values: [T]) -> UnsafeMutablePointer<T> {
                let p = UnsafeMutablePointer<T>.allocate(capacity: max(1, values.count))
                p.initialize(from: values, count: values.count)
                keep.append(UnsafeMutableRawPointer(p))
                return p
            }
            if let integers = field.integers {
                return routelog_point_source(integers: copy(integers), doubles: nil, divisor: field.divisor, offset: field.offset)
            }
            return routelog_point_source(integers: nil, doubles: copy(field.doubles), divisor: 1, offset: 0)
        }
        out.withUnsafeMutableBufferPointer { o in
            let at = UnsafeMutableRawPointer(o.baseAddress! + Self.fields)
            if portable { routelog_build_points_portable(sources, n, at) } else { routelog_build_points(sources, n, at) }
        }
        let edges = Array(out.prefix(Self.fields)) + Array(out.suffix(Self.fields))
        return (Array(out[Self.fields..<(n + 1) * Self.fields]), edges.allSatisfy { $0.bitPattern == sentinel.bitPattern })
    }

    static func mismatches(_ points: [Double], _ fields: [Field], n: Int) -> Int {
        var count = 0
        for i in 0..<n {
            for f in 0..<Self.fields where points[i * Self.fields + f].bitPattern != fields[f].expected(i).bitPattern {
                count += 1
            }
        }
        return count
    }

    static let counts = Array(0...70) + [127, 128, 129, 191, 192, 193, 255, 256, 257, 1000, 3600]

    @Test func everyPointIsTheScalarStepsOnBothPaths() {
        var g = SeededGenerator(state: 4242)
        var wrong = 0, overrun = 0, rounds = 0
        for n in Self.counts {
            for round in 0..<6 {
                let fields = Self.fields(n: n, &g, wide: round % 3 == 2)
                for portable in [false, true] {
                    let (points, intact) = Self.built(fields, n: n, portable: portable)
                    wrong += Self.mismatches(points, fields, n: n)
                    if !intact { overrun += 1 }
                }
                rounds += 1
            }
        }
        #expect(rounds == Self.counts.count * 6)
        #expect(wrong == 0)
        #expect(overrun == 0)
    }

    /// Consecutive integers in every field, each with another divisor: quotients that
    /// round up and down, exact ones, every residue. (The multiply-adds' second step of
    /// refinement is there for the proof that every quotient is correctly rounded: no
    /// input found so far needs it, so no test fails without it.)
    @Test func consecutiveIntegersGiveTheDividersQuotients() {
        let n = 100_000
        let starts: [Int64] = [-1_800_000_000, 123_456_789, 1_700_000_000_000, -400_000, -500_000, 1 << 50, 77, -3, 0, 99_999]
        let divisors: [Double] = [1e7, 1e7, 1000, 100, 3, 7, 10, 1, 60, 0.1]
        let fields = (0..<Self.fields).map { f in
            Field(integers: (0..<Int64(n)).map { starts[f] + $0 }, doubles: [], divisor: divisors[f],
                  offset: f == 2 ? Date.timeIntervalBetween1970AndReferenceDate : 0)
        }
        #expect(Self.mismatches(Self.built(fields, n: n, portable: false).points, fields, n: n) == 0)
    }

    /// One integer past 2^51 in one field of a batch of 64 sends that batch, and only
    /// it, the divider's way: its neighbours' batches must still be right, and so must
    /// every other field of its own.
    @Test func oneIntegerPastTheExactRangeAnywhere() {
        var g = SeededGenerator(state: 99)
        var wrong = 0
        for position in [0, 1, 3, 4, 62, 63, 64, 65, 127, 128, 190, 191, 192, 199] {
            for field in [0, 2, 5, 9] {
                var fields = Self.fields(n: 200, &g, wide: false)
                if fields[field].integers == nil {
                    fields[field] = Field(integers: (0..<200).map { _ in Self.integer(&g, wide: false) }, doubles: [],
                                          divisor: 100, offset: 0)
                }
                fields[field].integers![position] = [1 << 51, -(1 << 51) - 1, Int64.min, Int64.max][position % 4]
                for portable in [false, true] {
                    wrong += Self.mismatches(Self.built(fields, n: 200, portable: portable).points, fields, n: 200)
                }
            }
        }
        #expect(wrong == 0)
    }

    /// Doubles given for a field come out bit for bit: the absent pattern, signalling
    /// NaNs, negative zero.
    @Test func doublesAreCopiedBitForBit() {
        let patterns: [UInt64] = [TrackPoint.absentBitPattern, 0x7FF0_0000_0000_0001, 0xFFF8_0000_0000_0000,
                                  0x8000_0000_0000_0000, 0x0000_0000_0000_0001, 0x7FF0_0000_0000_0000]
        let n = 300
        var fields = (0..<Self.fields).map { f in
            Field(integers: nil, doubles: (0..<n).map { Double(bitPattern: patterns[($0 + f) % patterns.count]) },
                  divisor: 1, offset: 0)
        }
        fields[0] = Field(integers: (0..<Int64(n)).map { $0 * 12_345 }, doubles: [], divisor: 1e7, offset: 0)
        for portable in [false, true] {
            #expect(Self.mismatches(Self.built(fields, n: n, portable: portable).points, fields, n: n) == 0)
        }
    }

    /// A zero offset is no offset: "less `offset` when that is not 0", so -0.0 and +0.0
    /// leave the quotient's sign as it is (0 / -1000 is -0.0, and -0.0 - -0.0 would be
    /// +0.0).
    @Test func aZeroOffsetOfEitherSignLeavesTheQuotient() {
        for offset in [0.0, -0.0] {
            var fields = (0..<Self.fields).map { _ in Field(integers: nil, doubles: [Double](repeating: 1, count: 70), divisor: 1, offset: 0) }
            fields[0] = Field(integers: [Int64](repeating: 0, count: 70), doubles: [], divisor: -1000, offset: offset)
            fields[2] = Field(integers: [Int64](repeating: 0, count: 70), doubles: [], divisor: 1000, offset: offset)
            for portable in [false, true] {
                let points = Self.built(fields, n: 70, portable: portable).points
                #expect((0..<70).allSatisfy {
                    points[$0 * Self.fields].bitPattern == (-0.0).bitPattern && points[$0 * Self.fields + 2].bitPattern == 0
                })
            }
        }
    }

    /// The multiply-adds serve divisors of magnitude 2^-60 to 2^60; beyond (1e-300, 2^61)
    /// the divider's quotients, which the multiply-adds would not give.
    @Test func divisorsAtAndPastTheServedRange() {
        let integers: [Int64] = (0..<130).map { ((1 << 51) - 1) - Int64($0) * 7_777 } + [(1 << 51) - 1, -(1 << 51)]
        for divisor in [0x1p-60, -0x1p-60, 0x1p60, 1e-300, -1e-300, 0x1p61, 0x1p-61, 3e-19, 1e19] {
            var fields = (0..<Self.fields).map { _ in Field(integers: nil, doubles: [Double](repeating: 2, count: integers.count), divisor: 1, offset: 0) }
            for f in [0, 4, 9] { fields[f] = Field(integers: integers, doubles: [], divisor: divisor, offset: 0) }
            for portable in [false, true] {
                #expect(Self.mismatches(Self.built(fields, n: integers.count, portable: portable).points, fields, n: integers.count) == 0,
                        "divisor \(divisor)")
            }
        }
    }

    /// An app that sets another rounding mode gets what the divider gives in that mode.
    #if canImport(Glibc)
    @Test func anotherRoundingModeGetsTheDividersQuotients() {
        #if arch(x86_64)
        let modes: [Int32] = [0x400, 0xC00, 0x800]  // glibc's FE_DOWNWARD, FE_TOWARDZERO, FE_UPWARD
        #else
        let modes: [Int32] = [0x80_0000, 0xC0_0000, 0x40_0000]
        #endif
        var g = SeededGenerator(state: 5)
        let n = 700
        let fields = Self.fields(n: n, &g, wide: false)
        for mode in modes {
            let previous = fegetround()
            fesetround(mode)
            let wide = Self.built(fields, n: n, portable: false).points
            let portable = Self.built(fields, n: n, portable: true).points
            var scalar = [Double]()
            for i in 0..<n { for f in 0..<Self.fields { scalar.append(fields[f].expected(i)) } }
            fesetround(previous)
            let differ = wide.indices.filter {
                wide[$0].bitPattern != scalar[$0].bitPattern || portable[$0].bitPattern != scalar[$0].bitPattern
            }.count
            #expect(differ == 0, "mode \(mode): \(differ) values differ")
        }
    }

    /// A load in another rounding mode: the kernel's points are the Swift loop's.
    @Test func aLoadInAnotherRoundingModeBuildsTheSwiftLoopsPoints() throws {
        #if arch(x86_64)
        let modes: [Int32] = [0x400, 0xC00, 0x800]
        #else
        let modes: [Int32] = [0x80_0000, 0xC0_0000, 0x40_0000]
        #endif
        var g = SeededGenerator(state: 17)
        let n = 777
        let lat = (0..<n).map { _ in Int64.random(in: -900_000_000...900_000_000, using: &g) }
        let lon = (0..<n).map { _ in Int64.random(in: -1_800_000_000...1_800_000_000, using: &g) }
        let time = (0..<n).map { _ in Int64.random(in: 0...FormatConstants.latestTimestampMs, using: &g) }
        let optional: [(FormatConstants.ColumnTag, [Int64], [Bool]?)] = [
            (.altitude, (0..<n).map { _ in Int64.random(in: -50_000...900_000, using: &g) }, nil),
            (.speed, (0..<(n / 2)).map { _ in Int64.random(in: 0...5_000, using: &g) }, (0..<n).map { $0 % 2 == 0 && $0 < n - 1 })]
        let bytes = PointBuildingAttackTests.block(n: n, lat: lat, lon: lon, time: time, optional: optional)
        let columns = try PointBlockV2.decodeColumns(bytes[...], checkingStoredLimits: false)
        for mode in modes {
            let previous = fegetround()
            fesetround(mode)
            let kernel = PointBlockV2.points(columns), swift = PointBlockV2.pointsOneByOne(columns)
            fesetround(previous)
            let differ = zip(kernel, swift).filter { a, b in
                a.latitude.bitPattern != b.latitude.bitPattern || a.longitude.bitPattern != b.longitude.bitPattern
                    || a.timestamp.timeIntervalSinceReferenceDate.bitPattern != b.timestamp.timeIntervalSinceReferenceDate.bitPattern
                    || a.rawAltitude.bitPattern != b.rawAltitude.bitPattern || a.rawSpeed.bitPattern != b.rawSpeed.bitPattern
            }.count
            #expect(kernel.count == n && differ == 0, "mode \(mode): \(differ) points differ")
        }
    }
    #endif

    /// Where `TrackPoint` is ten doubles in order (every platform measured so far), loads
    /// build their points with the kernel; the points equal those built one by one in
    /// Swift, for blocks with gaps, missing columns and extreme values.
    @Test func loadsBuildTheSamePointsAsTheSwiftLoop() throws {
        #expect(PointBlockV2.pointsAreTenDoubles == (TrackPointLayout.current.map {
            $0.stride == 10 && $0.latitude == 0 && $0.longitude == 1 && $0.time == 2 && $0.optional == Array(3..<10)
        } ?? false))
        #if os(Linux) && arch(x86_64)
        #expect(PointBlockV2.pointsAreTenDoubles)
        #endif
        var g = SeededGenerator(state: 321)
        var differ = 0
        for n in [1, 5, 63, 64, 65, 256, 257, 700, 3600] {
            for round in 0..<4 {
                let lat = (0..<n).map { _ in Int64.random(in: -900_000_000...900_000_000, using: &g) }
                let lon = (0..<n).map { _ in Int64.random(in: -1_800_000_000...1_800_000_000, using: &g) }
                let time = (0..<n).map { _ in Int64.random(in: 0...FormatConstants.latestTimestampMs, using: &g) }
                var optional: [(FormatConstants.ColumnTag, [Int64], [Bool]?)] = []
                for tag in PointBuildingAttackTests.optionalTags where Int.random(in: 0..<3, using: &g) != 0 {
                    let present: [Bool]? = (round + Int(tag.rawValue)) % 3 == 0
                        ? (0..<n).map { _ in Int.random(in: 0..<4, using: &g) != 0 } : nil
                    let m = present.map { $0.filter { $0 }.count } ?? n
                    optional.append((tag, (0..<m).map { _ in Self.integer(&g, wide: round == 3) }, present))
                }
                let bytes = PointBuildingAttackTests.block(n: n, lat: lat, lon: lon, time: time, optional: optional)
                let columns = try PointBlockV2.decodeColumns(bytes[...], checkingStoredLimits: false)
                let kernel = PointBlockV2.points(columns), swift = PointBlockV2.pointsOneByOne(columns)
                #expect(kernel.count == n && swift.count == n)
                for (a, b) in zip(kernel, swift) {
                    let same = a.latitude.bitPattern == b.latitude.bitPattern
                        && a.longitude.bitPattern == b.longitude.bitPattern
                        && a.timestamp.timeIntervalSinceReferenceDate.bitPattern
                            == b.timestamp.timeIntervalSinceReferenceDate.bitPattern
                        && zip(PointBuildingAttackTests.raws(a), PointBuildingAttackTests.raws(b))
                            .allSatisfy { $0.bitPattern == $1.bitPattern }
                    if !same { differ += 1 }
                }
            }
        }
        #expect(differ == 0)
    }
}
