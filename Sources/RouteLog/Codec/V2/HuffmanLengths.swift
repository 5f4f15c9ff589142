/// Code lengths of a minimum-redundancy (Huffman) code, no longer than a limit.
///
/// Lengths come from Moffat and Katajainen's in-place algorithm over the weights
/// sorted ascending ("In-place calculation of minimum-redundancy codes", 1995). When a
/// length passes the limit, the weights are halved (rounding up, so none becomes 0) and
/// the code rebuilt: flatter weights make a shallower tree, and with at most 276
/// tokens every length fits in 9 bits once the weights are equal.
enum HuffmanLengths {
    /// Writes into `lengths[t]` the code length of token `t` (0 for tokens with weight
    /// 0). A single used token gets length 1.
    static func build(weights: UnsafeBufferPointer<UInt32>, limit: Int, into lengths: UnsafeMutableBufferPointer<UInt8>) {
        precondition(weights.count <= lengths.count && limit >= 9)
        lengths.update(repeating: 0)
        // Shaped for speed: every column of every save builds one or two codes, and
        // arrays for the keys and depths of each were a third of the build's time.
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: max(1, weights.count)) { keyStorage in
            // Sort keys: weight in the high bits, token in the low 16, so ties order by token.
            var n = 0
            for t in 0..<weights.count where weights[t] > 0 {
                keyStorage[n] = UInt64(weights[t]) << 16 | UInt64(t)
                n += 1
            }
            guard n > 1 else {
                if n == 1 { lengths[Int(keyStorage[0] & 0xFFFF)] = 1 }
                return
            }
            var keys = UnsafeMutableBufferPointer(rebasing: keyStorage[0..<n])
            withUnsafeTemporaryAllocation(of: Int.self, capacity: n) { depths in
                while true {
                    keys.sort()
                    for i in 0..<n { depths[i] = Int(keys[i] >> 16) }
                    minimumRedundancy(depths)
                    if depths[0] <= limit {  // the lightest token has the longest code
                        for i in 0..<n { lengths[Int(keys[i] & 0xFFFF)] = UInt8(depths[i]) }
                        return
                    }
                    for i in 0..<n { keys[i] = (((keys[i] >> 16) + 1) >> 1) << 16 | (keys[i] & 0xFFFF) }
                }
            }
        }
    }

    /// Replaces ascending weights `a` by their code lengths (see the buffer's version).
    static func minimumRedundancy(_ a: inout [Int]) {
        a.withUnsafeMutableBufferPointer { minimumRedundancy($0) }
    }

    /// Replaces ascending weights `a` by their code lengths (Moffat and Katajainen):
    /// pass 1 pairs weights into internal nodes, storing parent indices; pass 2 turns
    /// parents into internal depths; pass 3 gives each leaf its depth.
    static func minimumRedundancy(_ a: UnsafeMutableBufferPointer<Int>) {
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
}
