/// Percentiles of a sample, by linear interpolation between the closest ranks
/// (the method spreadsheets and NumPy use by default): p50 of [1, 2, 3, 4] is 2.5.
struct Percentiles: Sendable {
    let sorted: [Double]

    init(_ samples: [Double]) {
        sorted = samples.filter { !$0.isNaN }.sorted()
    }

    var count: Int { sorted.count }

    /// The `p`th percentile, `p` in 0...100; NaN for an empty sample.
    func value(at p: Double) -> Double {
        guard let first = sorted.first else { return .nan }
        guard sorted.count > 1 else { return first }
        let rank = Swift.min(Swift.max(p, 0), 100) / 100 * Double(sorted.count - 1)
        let low = Int(rank.rounded(.down))
        let high = Swift.min(low + 1, sorted.count - 1)
        let fraction = rank - Double(low)
        return sorted[low] + (sorted[high] - sorted[low]) * fraction
    }

    var mean: Double { sorted.isEmpty ? .nan : sorted.reduce(0, +) / Double(sorted.count) }
    var max: Double { sorted.last ?? .nan }
}
