import Foundation
import RouteLog

/// `routelog chart`'s picture: three bar charts over the same periods (distance,
/// duration, number of routes), each on a ``BarScale`` so that an outlier period is
/// drawn cut, with a break and its value, instead of flattening the others.
struct TotalsChartSVG {
    let totals: PeriodTotals
    let units: DistanceUnit

    static let width = 800.0
    static let panelHeight = 190.0
    private static let bar = "#1a66d9", cut = "#0b3d8c"

    private func r(_ value: Double) -> String { SVGText.number(value) }

    /// The three panels: a title, a unit, and one value per period.
    var panels: [(title: String, unit: String, values: [Double], format: (Double) -> String)] {
        let periods = totals.periods.map(\.totals)
        return [
            ("Distance", units.symbol, periods.map { $0.distance / units.metres }, { SVGText.trimmed(($0 * 10).rounded() / 10) }),
            ("Duration", "h", periods.map { $0.duration / 3600 }, { SVGText.trimmed(($0 * 10).rounded() / 10) }),
            ("Routes", "", periods.map { Double($0.routeCount) }, { String(Int($0)) }),
        ]
    }

    func render() -> String {
        let height = 80 + Double(panels.count) * (Self.panelHeight + 14) + 10
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(Self.width))" height="\(Int(height))" viewBox="0 0 \(Int(Self.width)) \(Int(height))" font-family="\(SVGText.font)">
        <title>\(SVGText.escape(title))</title>
        <rect width="100%" height="100%" fill="#ffffff"/>
        <text x="24" y="38" font-size="22" font-weight="700" fill="#1f2328">\(SVGText.escape(title))</text>
        <text x="24" y="62" font-size="13" fill="#59636e">\(SVGText.escape(subtitle))</text>

        """
        var y = 80.0
        for panel in panels {
            svg += self.panel(panel.title, unit: panel.unit, values: panel.values, format: panel.format, y: y)
            y += Self.panelHeight + 14
        }
        return svg + "</svg>\n"
    }

    var title: String {
        switch totals.period {
        case .week: return "Weekly totals"
        case .month: return "Monthly totals"
        case .year: return "Yearly totals"
        }
    }

    var subtitle: String {
        guard let first = totals.periods.first?.start, let last = totals.periods.last?.start else { return "no routes" }
        let sum = totals.periods.reduce(RouteTotals()) { var t = $0; t.routeCount += $1.totals.routeCount
            t.distance += $1.totals.distance; t.duration += $1.totals.duration; return t }
        return "\(totals.periods.count) \(totals.period.rawValue)s, \(totals.longLabel(first)) to \(totals.longLabel(last)): "
            + "\(sum.routeCount) routes, \(Formatting.distance(sum.distance, units)), \(Formatting.duration(sum.duration))"
    }

    private func panel(_ title: String, unit: String, values: [Double], format: (Double) -> String, y: Double) -> String {
        let scale = BarScale(values)
        // Room above the scale's top for the cut bars and their values.
        let plot = (x: 64.0, y: y + 52, width: Self.width - 64 - 24, height: Self.panelHeight - 52 - 24)
        let ticks = scale.ticks, top = ticks.last!
        var text = "<g class=\"panel\" data-title=\"\(title)\">\n"
        text += "<text x=\"24\" y=\"\(r(y + 16))\" font-size=\"15\" font-weight=\"700\" fill=\"#1f2328\">\(title)"
        if !unit.isEmpty { text += "<tspan font-size=\"12\" font-weight=\"400\" fill=\"#59636e\" dx=\"6\">\(unit)</tspan>" }
        text += "</text>\n"
        for value in ticks {
            let ty = plot.y + plot.height - value / top * plot.height
            text += "<path d=\"M\(r(plot.x)) \(r(ty))H\(r(plot.x + plot.width))\" stroke=\"#e3e7df\"/>"
            text += "<text x=\"\(r(plot.x - 6))\" y=\"\(r(ty + 4))\" font-size=\"11\" fill=\"#59636e\" text-anchor=\"end\">\(SVGText.trimmed(value))</text>\n"
        }
        let slot = plot.width / Double(max(1, values.count))
        let barWidth = max(1, slot * 0.78)
        for (i, value) in values.enumerated() where value > 0 {
            let x = plot.x + Double(i) * slot + (slot - barWidth) / 2
            let cut = scale.isCut(value)
            let h = cut ? plot.height + 14 : value / top * plot.height
            let by = plot.y + plot.height - h
            text += "<rect class=\"\(cut ? "bar cut" : "bar")\" data-value=\"\(value)\" x=\"\(r(x))\" y=\"\(r(by))\" width=\"\(r(barWidth))\" height=\"\(r(h))\" fill=\"\(cut ? Self.cut : Self.bar)\"/>"
            if cut {
                // A break across the bar where the scale stops, and the true value above.
                let breakY = plot.y - 4
                text += "<path d=\"M\(r(x - 2)) \(r(breakY + 3))L\(r(x + barWidth + 2)) \(r(breakY - 3))M\(r(x - 2)) \(r(breakY + 8))L\(r(x + barWidth + 2)) \(r(breakY + 2))\" stroke=\"#ffffff\" stroke-width=\"2.5\"/>"
                let anchor = x < plot.x + 40 ? "start" : x > plot.x + plot.width - 40 ? "end" : "middle"
                text += "<text class=\"cut-value\" x=\"\(r(x + barWidth / 2))\" y=\"\(r(by - 5))\" font-size=\"11\" font-weight=\"700\" fill=\"\(Self.cut)\" text-anchor=\"\(anchor)\">\(format(value))\(unit.isEmpty ? "" : " " + unit)</text>"
            }
            text += "\n"
        }
        text += axisLabels(plot: plot, slot: slot)
        text += "<path d=\"M\(r(plot.x)) \(r(plot.y + plot.height))H\(r(plot.x + plot.width))\" stroke=\"#8c959f\"/>\n"
        return text + "</g>\n"
    }

    /// Period labels under the bars, as many as fit without touching.
    private func axisLabels(plot: (x: Double, y: Double, width: Double, height: Double), slot: Double) -> String {
        let periods = totals.periods
        guard !periods.isEmpty else { return "" }
        let widest = periods.map { SVGText.width(totals.label($0.start), size: 11) }.max() ?? 20
        let every = max(1, Int(((widest + 10) / slot).rounded(.up)))
        var text = ""
        for (i, period) in periods.enumerated() where (periods.count - 1 - i) % every == 0 {
            let x = plot.x + (Double(i) + 0.5) * slot
            text += "<text x=\"\(r(x))\" y=\"\(r(plot.y + plot.height + 16))\" font-size=\"11\" fill=\"#59636e\" text-anchor=\"middle\">\(totals.label(period.start))</text>"
        }
        return text + "\n"
    }
}
