import Foundation
import Testing
@testable import RouteLog

/// `HuffmanLengths.build` against the plain build it replaced (arrays for the keys and
/// depths, sorted anew each round): the same lengths for every weight table, since a
/// column's stored lengths, and so its bytes, come from them. Weights flat and steep
/// (steep ones pass the limit and take the halving rounds, where ties between tokens
/// reorder), few and many symbols, ties everywhere, the largest weights.
@Suite struct HuffmanLengthsOracleTests {
    /// The build as it was written with arrays: the reference.
    static func plainBuild(_ weights: [UInt32], limit: Int) -> [UInt8] {
        var lengths = [UInt8](repeating: 0, count: weights.count)
        var keys: [UInt64] = []
        for t in 0..<weights.count where weights[t] > 0 { keys.append(UInt64(weights[t]) << 16 | UInt64(t)) }
        guard keys.count > 1 else {
            if let only = keys.first { lengths[Int(only & 0xFFFF)] = 1 }
            return lengths
        }
        while true {
            keys.sort()
            var depths = keys.map { Int($0 >> 16) }
            HuffmanLengths.minimumRedundancy(&depths)
            if depths[0] <= limit {
                for (i, key) in keys.enumerated() { lengths[Int(key & 0xFFFF)] = UInt8(depths[i]) }
                return lengths
            }
            keys = keys.map { key in (((key >> 16) + 1) >> 1) << 16 | (key & 0xFFFF) }
        }
    }

    static func build(_ weights: [UInt32], limit: Int) -> [UInt8] {
        var lengths = [UInt8](repeating: 0xEE, count: weights.count)  // every entry must be written
        weights.withUnsafeBufferPointer { w in
            lengths.withUnsafeMutableBufferPointer { HuffmanLengths.build(weights: w, limit: limit, into: $0) }
        }
        return lengths
    }

    @Test func theSameLengthsAsThePlainBuild() {
        var g = SeededGenerator(state: 2026)
        var halvingRounds = 0
        for round in 0..<3_000 {
            let count = [1, 2, 3, 5, 17, 64, 256, 276][round % 8]
            let used = Int.random(in: 0...count, using: &g)
            var weights = [UInt32](repeating: 0, count: count)
            for _ in 0..<used {
                let symbol = Int.random(in: 0..<count, using: &g)
                switch round % 5 {
                case 0: weights[symbol] = UInt32.random(in: 1...3, using: &g)  // ties everywhere
                case 1: weights[symbol] = UInt32.random(in: 1...UInt32.max >> 16, using: &g)
                case 2: weights[symbol] = UInt32(min(Double(UInt32.max >> 16), pow(1.7, Double(symbol % 48))))  // steep
                case 3: weights[symbol] = UInt32.max - UInt32.random(in: 0...1, using: &g)
                default: weights[symbol] = UInt32.random(in: 1...1000, using: &g)
                }
            }
            let limit = 9 + round % 3
            let expected = Self.plainBuild(weights, limit: limit)
            if expected.contains(where: { Int($0) == limit }) { halvingRounds += 1 }
            #expect(Self.build(weights, limit: limit) == expected, "round \(round), \(used) of \(count) symbols")
        }
        // The steep tables reach the limit (and so the halving) often.
        #expect(halvingRounds > 100)
    }
}
