import Synchronization

/// The odd multipliers of the route tables' hashes (RowSlots), one for each table:
/// unknown outside the process, so that ids chosen to collide (a forged index) cannot
/// make the probes long, yet without a system call for each table, where every save
/// makes a table (its writer's scratch index of the ids it touches).
///
/// A secret drawn once for the process, and a count of the tables made: each
/// multiplier is the count's mix (splitmix64's finalizer, a bijection of 64-bit
/// values) with the secret, so no two tables of a process share one and none can be
/// told without the secret.
enum HashMultipliers {
    private static let secret: UInt64 = RandomBytes.value()
    private static let made = Atomic<UInt64>(0)

    static func next() -> UInt64 {
        let n = made.add(1, ordering: .relaxed).newValue
        return mix(secret &+ n &* 0x9E37_79B9_7F4A_7C15) | 1
    }

    static func mix(_ x: UInt64) -> UInt64 {
        var z = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
