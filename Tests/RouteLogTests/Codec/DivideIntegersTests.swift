import CRouteLogSystem
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog
import RouteLogSamples

/// `routelog_divide_integers`, which turns stored integers back into doubles when points
/// are built, gives bit for bit what one scalar division gives, on the vector path and
/// on the portable one, for every length (the vector loop's tail included), for the
/// format's scales and others. Where the processor has AVX2 and FMA3 the vector path
/// divides with multiply-adds, not the divider; `make check-divide` runs every latitude
/// and longitude through it.
@Suite struct DivideIntegersTests {
    static let divisors = [FormatConstants.degreeScale, FormatConstants.millisecondsPerSecond,
                           FormatConstants.centimetreScale, FormatConstants.courseScale, FormatConstants.perMinuteScale, 3.0, 7.0, 10.0, 60.0, 1e9, 0.1, 4294967296.0 * 2]

    /// Extremes, ties of rounding, integers past 2^53 (whose conversion rounds), random values.
    static func values() -> [Int64] {
        var values: [Int64] = [0, 1, -1, 5, -5, 15, 25, 1_800_000_000, -1_800_000_000, 900_000_000, 1 << 53, (1 << 53) + 1,
                               -(1 << 53) - 1, (1 << 62) - 1, -(1 << 62), Int64.max, Int64.min, 4_102_444_800_000,
                               // Around 2^51, where the vector path stops converting four at a time.
                               1 << 51, (1 << 51) - 1, (1 << 51) + 1, -(1 << 51), -(1 << 51) + 1, -(1 << 51) - 1, 7, 9]
        var g = SeededGenerator(state: 77)
        for _ in 0..<20_000 {
            switch Int.random(in: 0..<3, using: &g) {
            case 0: values.append(Int64.random(in: -1_800_000_000...1_800_000_000, using: &g))
            case 1: values.append(Int64.random(in: -(1 << 62)...(1 << 62), using: &g))
            default: values.append(Int64.random(in: -1000...1000, using: &g) * 5)
            }
        }
        return values
    }

    @Test(arguments: divisors)
    func everyQuotientIsTheScalarOne(divisor: Double) {
        let values = Self.values()
        var wide = [Double](repeating: .nan, count: values.count), portable = wide
        routelog_divide_integers(values, values.count, divisor, &wide)
        routelog_divide_integers_portable(values, values.count, divisor, &portable)
        var mismatches = 0
        for i in values.indices {
            let expected = (Double(values[i]) / divisor).bitPattern
            if wide[i].bitPattern != expected || portable[i].bitPattern != expected { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    /// Consecutive integers of each scale's common range, a million a scale: quotients
    /// that round up and down, exact ones, and every residue of the divisor.
    static let ranges: [(divisor: Double, first: Int64)] = [
        (FormatConstants.degreeScale, -1_800_000_000), (FormatConstants.degreeScale, 123_456_789),
        (FormatConstants.millisecondsPerSecond, 1_700_000_000_000), (FormatConstants.centimetreScale, -400_000),
        (3.0, -500_000), (7.0, 1 << 50)]

    @Test(arguments: ranges.indices)
    func consecutiveIntegersDivideAsTheDividerDoes(range: Int) {
        let (divisor, first) = Self.ranges[range]
        let values = (0..<Int64(1_000_000)).map { first + $0 }
        var quotients = [Double](repeating: .nan, count: values.count)
        routelog_divide_integers(values, values.count, divisor, &quotients)
        let mismatches = values.indices.filter { quotients[$0].bitPattern != (Double(values[$0]) / divisor).bitPattern }
        #expect(mismatches.count == 0, "quotients differ, the first of \(mismatches.first.map { values[$0] } ?? 0)")
    }

    /// The multiply-add path is taken exactly where the processor has AVX2 and FMA3 (as
    /// the system lists them in /proc/cpuinfo), so that the tests above cover it there.
    @Test func theMultiplyAddPathIsTakenWhereTheProcessorHasIt() throws {
        #if arch(x86_64) && os(Linux)
        let info = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let flags = Set(info.split(separator: "\n").first { $0.hasPrefix("flags") }?.split(separator: " ").map(String.init) ?? [])
        #expect(routelog_divide_multiplies() == (flags.contains("avx2") && flags.contains("fma") ? 1 : 0))
        #else
        #expect(routelog_divide_multiplies() == 0)
        #endif
    }

    /// An app that sets another rounding mode gets what the divider gives in that mode
    /// (the multiply-add path is correct in rounding to nearest only, and steps aside).
    #if canImport(Glibc)
    @Test func anotherRoundingModeGetsTheDividersQuotients() {
        let values = (0..<Int64(4096)).map { 1_638_137_000 + $0 * 7 } + (0..<Int64(4096)).map { -1_233_359_375 - $0 * 3 }
        // glibc's FE_DOWNWARD, FE_TOWARDZERO and FE_UPWARD (imported twice, as an enum
        // case and as a macro, so ambiguous by name).
        #if arch(x86_64)
        let modes: [Int32] = [0x400, 0xC00, 0x800]
        #else
        let modes: [Int32] = [0x80_0000, 0xC0_0000, 0x40_0000]
        #endif
        for mode in modes {
            for divisor in [1000.0, 1e7, 3.0] {
                var got = [Double](repeating: .nan, count: values.count), expected = got
                let previous = fegetround()
                fesetround(mode)
                routelog_divide_integers(values, values.count, divisor, &got)
                routelog_divide_integers_portable(values, values.count, divisor, &expected)
                fesetround(previous)
                let differ = values.indices.filter { got[$0].bitPattern != expected[$0].bitPattern }.count
                #expect(differ == 0, "mode \(mode), divisor \(divisor): \(differ) quotients differ")
            }
        }
    }

    #endif

    /// The quotients may be written over their integers: a batch with a value past 2^51
    /// (done the scalar way) reads none that the batch has already overwritten.
    @Test func quotientsMayBeWrittenOverTheirIntegers() {
        var values = (0..<Int64(200)).map { 450_000_000 + $0 * 37 }
        values[40] = 1 << 52
        values[41] = -(1 << 60)
        let expected = values.map { Double($0) / 1000 }
        values.withUnsafeMutableBufferPointer { v in
            let base = v.baseAddress!
            UnsafeMutableRawPointer(base).withMemoryRebound(to: Double.self, capacity: v.count) { out in
                routelog_divide_integers(base, v.count, 1000, out)
            }
        }
        let got = values.map { Double(bitPattern: UInt64(bitPattern: $0)) }
        #expect(got.indices.filter { got[$0].bitPattern != expected[$0].bitPattern }.count == 0)
    }

    @Test func everyLengthAndOffsetIsCovered() {
        let values = Self.values()
        for count in 0...19 {
            for offset in 0..<4 {
                var out = [Double](repeating: -7, count: count + 2)
                values.withUnsafeBufferPointer { v in
                    out.withUnsafeMutableBufferPointer { o in
                        routelog_divide_integers(v.baseAddress! + offset, count, 1e7, o.baseAddress! + 1)
                    }
                }
                #expect(out.first == -7 && out.last == -7, "wrote outside 0..<\(count)")
                for i in 0..<count {
                    #expect(out[1 + i].bitPattern == (Double(values[offset + i]) / 1e7).bitPattern)
                }
            }
        }
    }
}
