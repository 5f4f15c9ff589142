import Foundation

/// The scale of a set of bars that one outlier does not flatten.
///
/// The positive values are sorted from the largest down. Among the largest tenth (at
/// least one value, and only when there are three or more), the lowest place where a
/// value is more than twice the next one is a break: the values above it are outliers.
/// The bars are scaled to the largest value that is not an outlier, and an outlier is
/// drawn at full length and marked as cut (a break and its value in a chart, `»` in a
/// table). Values without such a jump are all drawn to scale.
struct BarScale: Equatable {
    /// The value drawn at full length.
    let top: Double

    init(_ values: [Double]) {
        let positive = values.filter { $0 > 0 && $0.isFinite }.sorted(by: >)
        guard let largest = positive.first else { top = 0; return }
        guard positive.count >= 3 else { top = largest; return }
        var cut = 0
        for i in 0..<max(1, positive.count / 10) where positive[i] > 2 * positive[i + 1] {
            cut = i + 1
        }
        top = positive[cut]
    }

    /// The share of the full length `value` takes, 0...1.
    func fraction(_ value: Double) -> Double {
        guard top > 0, value > 0 else { return 0 }
        return min(1, value / top)
    }

    /// Whether `value` is an outlier drawn cut.
    func isCut(_ value: Double) -> Bool { value > top }

    /// Round grid values for an axis from 0 past ``top``: about four steps of 1, 2 or 5
    /// times a power of ten.
    var ticks: [Double] {
        guard top > 0 else { return [0, 1] }
        let step = SVGText.niceAbove(top / 4)
        let count = Int((top / step).rounded(.up))
        return (0...max(1, count)).map { Double($0) * step }
    }
}
