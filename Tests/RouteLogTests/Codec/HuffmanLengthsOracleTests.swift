import Foundation
import Testing
@testable import RouteLog

/// `HuffmanLengths.build` (C, huffman_lengths.c) against the plain Swift build it
/// replaced (arrays for the keys and depths, sorted anew each round, and Moffat and
/// Katajainen's passes written out below): the same lengths for every weight table,
/// since a column's stored lengths, and so its bytes, come from them. Weights flat and steep
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
            Self.minimumRedundancy(&depths)
            if depths[0] <= limit {
                for (i, key) in keys.enumerated() { lengths[Int(key & 0xFFFF)] = UInt8(depths[i]) }
                return lengths
            }
            keys = keys.map { key in (((key >> 16) + 1) >> 1) << 16 | (key & 0xFFFF) }
        }
    }

    /// Replaces ascending weights `a` by their code lengths (Moffat and Katajainen):
    /// pass 1 pairs weights into internal nodes, storing parent indices; pass 2 turns
    /// parents into internal depths; pass 3 gives each leaf its depth.
    static func minimumRedundancy(_ a: inout [Int]) {
        let n = a.count
        guard n > 1 else {
            if n == 1 { a[0] = 0 }
            return
        }
        a[0] += a[1]
        var root = 0, leaf = 2
        for next in 1..<(n - 1) {
            if leaf >= n || a[root] < a[leaf] {
                a[next] = a[root]
                a[root] = next
                root += 1
            } else {
                a[next] = a[leaf]
                leaf += 1
            }
            if leaf >= n || (root < next && a[root] < a[leaf]) {
                a[next] += a[root]
                a[root] = next
                root += 1
            } else {
                a[next] += a[leaf]
                leaf += 1
            }
        }
        a[n - 2] = 0
        if n >= 3 {
            for next in stride(from: n - 3, through: 0, by: -1) { a[next] = a[a[next]] + 1 }
        }
        var available = 1, used = 0, depth = 0
        var rootIndex = n - 2, next = n - 1
        while available > 0 {
            while rootIndex >= 0 && a[rootIndex] == depth {
                used += 1
                rootIndex -= 1
            }
            while available > used {
                a[next] = depth
                next -= 1
                available -= 1
            }
            available = 2 * used
            depth += 1
            used = 0
        }
    }

    static func build(_ weights: [UInt32], limit: Int) -> [UInt8] {
        var lengths = [UInt8](repeating: 0xEE, count: weights.count)  // every entry must be written
        let size = weights.withUnsafeBufferPointer { w in
            lengths.withUnsafeMutableBufferPointer { HuffmanLengths.build(weights: w, limit: limit, into: $0) }
        }
        #expect(size == plainSize(weights, lengths), "\(weights)")
        return lengths
    }

    /// What the code sends, from the lengths: each used token's weight times its code
    /// and extra bits (tokens 256 and up are run tokens), and one past the last used
    /// value and run token.
    static func plainSize(_ weights: [UInt32], _ lengths: [UInt8]) -> HuffmanLengths.Size {
        var size = HuffmanLengths.Size(bits: 0, valueTokensListed: 0, runTokensListed: 0)
        for t in weights.indices where weights[t] > 0 {
            let extra = t < 256 ? ResidualToken.extraBits(t) : t - 256
            size.bits += Int(weights[t]) * (Int(lengths[t]) + extra)
            if t < 256 { size.valueTokensListed = t + 1 } else { size.runTokensListed = t - 256 + 1 }
        }
        return size
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

    /// The hardest tables whole, at every count and limit: Fibonacci weights up to
    /// `UInt32.max` (the deepest trees, and the most halving rounds) and every weight
    /// `UInt32.max` (276 equal ones need lengths of 9).
    @Test func fibonacciAndLargestEqualWeightsAtEveryCount() {
        var fibonacci: [UInt32] = [1, 1]
        while let last = fibonacci.last, UInt64(last) + UInt64(fibonacci[fibonacci.count - 2]) <= UInt64(UInt32.max) {
            fibonacci.append(last + fibonacci[fibonacci.count - 2])
        }
        for limit in 9...11 {
            for count in 0...HuffmanCode.symbolCount {
                for weights in [(0..<count).map { fibonacci[$0 % fibonacci.count] },
                                [UInt32](repeating: .max, count: count)] {
                    let lengths = Self.build(weights, limit: limit)
                    #expect(lengths == Self.plainBuild(weights, limit: limit), "limit \(limit), \(count) weights")
                    #expect(lengths.allSatisfy { $0 <= limit }, "limit \(limit), \(count) weights")
                }
            }
        }
    }
}
