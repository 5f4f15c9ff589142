import Foundation

/// Save latency against routes stored, log scale on both axes, one line per engine:
/// the durable p50 as a solid line with points, the durable p99 dashed.
struct SVGChart {
    struct Series {
        var name: String
        var color: String
        var p50: [(x: Double, y: Double)]
        var p99: [(x: Double, y: Double)]
    }

    var title: String
    var subtitle: String
    var series: [Series]
    var width = 800.0
    var height = 480.0

    static let palette = ["#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#7f7f7f", "#ff7f0e"]

    init(results: BenchmarkResults) {
        title = "Durable save latency against routes stored"
        subtitle = "\(results.routePoints)-point walks; solid p50, dashed p99; \(results.machine.date), "
            + "\(results.machine.processors) cores, \(results.machine.fileSystem)"
        series = results.engines.enumerated().map { i, engine in
            let points = engine.checkpoints.compactMap { c in c.durable.map { (Double(c.checkpoint), $0) } }
            return Series(name: EngineKind(rawValue: engine.engine)?.title ?? engine.engine,
                          color: Self.palette[i % Self.palette.count],
                          p50: points.map { (x: $0.0, y: $0.1.p50) },
                          p99: points.map { (x: $0.0, y: $0.1.p99) })
        }
    }

    init(title: String, subtitle: String, series: [Series]) {
        self.title = title
        self.subtitle = subtitle
        self.series = series
    }

    func render() -> String {
        let left = 78.0, right = 230.0, top = 56.0, bottom = 56.0
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let xs = series.flatMap { $0.p50.map(\.x) + $0.p99.map(\.x) }.filter { $0 > 0 }
        let ys = series.flatMap { $0.p50.map(\.y) + $0.p99.map(\.y) }.filter { $0 > 0 }
        let xLow = floor(log10(xs.min() ?? 10)), xHigh = max(ceil(log10(xs.max() ?? 100_000)), xLow + 1)
        let yLow = floor(log10(ys.min() ?? 1e-4)), yHigh = max(ceil(log10(ys.max() ?? 1)), yLow + 1)
        func px(_ x: Double) -> Double { left + (log10(x) - xLow) / (xHigh - xLow) * plotWidth }
        func py(_ y: Double) -> Double { top + plotHeight - (log10(y) - yLow) / (yHigh - yLow) * plotHeight }
        func f(_ v: Double) -> String { Format.decimal(v, 1) }

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="#ffffff"/>
            <text x="\(f(left))" y="22" font-size="16" font-weight="bold">\(Self.escape(title))</text>
            <text x="\(f(left))" y="40" fill="#555555">\(Self.escape(subtitle))</text>

            """
        // Grid and ticks at each decade.
        for e in Int(xLow)...Int(xHigh) {
            let x = px(pow(10, Double(e)))
            svg += "<line x1=\"\(f(x))\" y1=\"\(f(top))\" x2=\"\(f(x))\" y2=\"\(f(top + plotHeight))\" stroke=\"#e4e4e4\"/>\n"
            svg += "<text x=\"\(f(x))\" y=\"\(f(top + plotHeight + 18))\" text-anchor=\"middle\">\(Self.escape(Self.countLabel(e)))</text>\n"
        }
        for e in Int(yLow)...Int(yHigh) {
            let y = py(pow(10, Double(e)))
            svg += "<line x1=\"\(f(left))\" y1=\"\(f(y))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(y))\" stroke=\"#e4e4e4\"/>\n"
            svg += "<text x=\"\(f(left - 8))\" y=\"\(f(y + 4))\" text-anchor=\"end\">\(Self.escape(Self.timeLabel(e)))</text>\n"
        }
        svg += "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotWidth))\" height=\"\(f(plotHeight))\" fill=\"none\" stroke=\"#888888\"/>\n"
        svg += "<text x=\"\(f(left + plotWidth / 2))\" y=\"\(f(height - 14))\" text-anchor=\"middle\">routes stored (log scale)</text>\n"
        svg += "<text transform=\"translate(18 \(f(top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">save latency (log scale)</text>\n"

        for (i, s) in series.enumerated() {
            if s.p99.count > 1 {
                let path = s.p99.map { "\(f(px($0.x))),\(f(py($0.y)))" }.joined(separator: " ")
                svg += "<polyline points=\"\(path)\" fill=\"none\" stroke=\"\(s.color)\" stroke-width=\"1.2\" stroke-dasharray=\"5 4\" opacity=\"0.8\"/>\n"
            }
            if s.p50.count > 1 {
                let path = s.p50.map { "\(f(px($0.x))),\(f(py($0.y)))" }.joined(separator: " ")
                svg += "<polyline points=\"\(path)\" fill=\"none\" stroke=\"\(s.color)\" stroke-width=\"2.2\"/>\n"
            }
            for p in s.p50 {
                svg += "<circle cx=\"\(f(px(p.x)))\" cy=\"\(f(py(p.y)))\" r=\"3.5\" fill=\"\(s.color)\"/>\n"
            }
            let ly = top + 10 + Double(i) * 22
            let lx = left + plotWidth + 16
            svg += "<line x1=\"\(f(lx))\" y1=\"\(f(ly))\" x2=\"\(f(lx + 24))\" y2=\"\(f(ly))\" stroke=\"\(s.color)\" stroke-width=\"2.2\"/>\n"
            svg += "<text x=\"\(f(lx + 30))\" y=\"\(f(ly + 4))\">\(Self.escape(s.name))</text>\n"
        }
        svg += "</svg>\n"
        return svg
    }

    static func countLabel(_ exponent: Int) -> String {
        switch exponent {
        case ..<3: String(Int(pow(10, Double(exponent))))
        case 3..<6: "\(Int(pow(10, Double(exponent - 3))))k"
        default: "\(Int(pow(10, Double(exponent - 6))))M"
        }
    }

    static func timeLabel(_ exponent: Int) -> String {
        switch exponent {
        case ..<(-6): "1e\(exponent) s"
        case -6 ..< -3: "\(Int(pow(10, Double(exponent + 6)))) µs"
        case -3 ..< 0: "\(Int(pow(10, Double(exponent + 3)))) ms"
        default: "\(Int(pow(10, Double(exponent)))) s"
        }
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
