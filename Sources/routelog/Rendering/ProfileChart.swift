import Foundation

/// A chart of one value over the route's distance, as drawn under the map: a title and
/// a caption, a filled area (altitude) or a line (speed), round ticks on both axes.
struct ProfileChart {
    var title: String
    /// Right of the title: "min 120 m · max 340 m".
    var caption: String
    /// One value per bin of distance, from the start to `length`; nil leaves a gap.
    var values: [Double?]
    /// The route's length in the distance unit, and the unit's symbol.
    var length: Double
    var unit: String
    /// The vertical axis' unit ("m", "km/h"), shown after the title.
    var valueUnit: String
    var colour: String
    var filled: Bool
    /// Values above this are drawn at the top (a GPS spike must not flatten the rest).
    var ceiling: Double?
    /// The smallest range the vertical axis shows, so that noise is not drawn as hills.
    var minimumRange: Double
    var startsAtZero: Bool

    static let height = 150.0

    private func r(_ value: Double) -> String { SVGText.number(value) }

    func svg(x: Double, y: Double, width: Double) -> String {
        let known = values.compactMap { $0 }
        guard !known.isEmpty, length > 0 else { return "" }
        var lo = startsAtZero ? 0 : known.min()!, hi = min(known.max()!, ceiling ?? .infinity)
        if hi - lo < minimumRange {
            let middle = startsAtZero ? minimumRange / 2 : (hi + lo) / 2
            lo = startsAtZero ? 0 : middle - minimumRange / 2
            hi = middle + minimumRange / 2
        }
        let step = SVGText.niceAbove((hi - lo) / 3)
        lo = (lo / step).rounded(.down) * step
        hi = max(lo + step, (hi / step).rounded(.up) * step)
        let plot = (x: x + 48, y: y + 28, width: width - 56, height: Self.height - 28 - 22)
        func px(_ i: Int) -> Double { plot.x + (Double(i) + 0.5) / Double(values.count) * plot.width }
        func py(_ v: Double) -> Double { plot.y + plot.height - (min(v, hi) - lo) / (hi - lo) * plot.height }

        var text = "<g class=\"chart\">\n"
        text += "<text x=\"\(r(x + 4))\" y=\"\(r(y + 14))\" font-size=\"14\" font-weight=\"700\" fill=\"#1f2328\">\(SVGText.escape(title))"
        text += "<tspan font-size=\"12\" font-weight=\"400\" fill=\"#59636e\" dx=\"6\">\(SVGText.escape(valueUnit))</tspan></text>"
        text += "<text x=\"\(r(x + width - 4))\" y=\"\(r(y + 14))\" font-size=\"12\" fill=\"#59636e\" text-anchor=\"end\">\(SVGText.escape(caption))</text>\n"
        // Horizontal grid lines and their values.
        var tick = lo
        while tick <= hi + step / 2 {
            let ty = py(tick)
            text += "<path d=\"M\(r(plot.x)) \(r(ty))H\(r(plot.x + plot.width))\" stroke=\"#e3e7df\" stroke-width=\"1\"/>"
            text += "<text x=\"\(r(plot.x - 6))\" y=\"\(r(ty + 4))\" font-size=\"11\" fill=\"#59636e\" text-anchor=\"end\">\(SVGText.trimmed(tick))</text>\n"
            tick += step
        }
        // Distance ticks: about six, of a round length.
        let xStep = SVGText.niceAbove(length / 6)
        var mark = 0.0
        while mark <= length + xStep * 1e-9 {
            let tx = plot.x + mark / length * plot.width
            let label = SVGText.trimmed(mark) + (mark == 0 ? "" : " \(unit)")
            let anchor = tx > plot.x + plot.width - 20 ? "end" : mark == 0 ? "start" : "middle"
            text += "<text x=\"\(r(tx))\" y=\"\(r(plot.y + plot.height + 16))\" font-size=\"11\" fill=\"#59636e\" text-anchor=\"\(anchor)\">\(label)</text>"
            mark += xStep
        }
        text += "\n"
        // The values, one run per stretch without gaps.
        var runs: [[(Double, Double)]] = [[]]
        for (i, value) in values.enumerated() {
            if let value { runs[runs.count - 1].append((px(i), py(value))) } else if !runs[runs.count - 1].isEmpty { runs.append([]) }
        }
        for run in runs where !run.isEmpty {
            let line = run.map { "\(r($0.0)),\(r($0.1))" }.joined(separator: " ")
            if filled {
                let base = r(plot.y + plot.height)
                text += "<polygon points=\"\(r(run[0].0)),\(base) \(line) \(r(run[run.count - 1].0)),\(base)\" fill=\"\(colour)\" fill-opacity=\"0.25\"/>"
            }
            text += "<polyline points=\"\(line)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\" stroke-linejoin=\"round\"/>\n"
        }
        text += "<path d=\"M\(r(plot.x)) \(r(plot.y + plot.height))H\(r(plot.x + plot.width))\" stroke=\"#8c959f\" stroke-width=\"1\"/>\n"
        return text + "</g>\n"
    }
}
