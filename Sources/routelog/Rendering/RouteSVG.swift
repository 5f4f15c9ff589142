import Foundation
import RouteLog

/// An SVG picture of one route, like an app's detail screen: the name and date, the
/// figures that are known (distance, duration, pace, climb, calories), a map of the
/// track with start and finish marks, distance pins, a scale bar and a north arrow,
/// and, when the route has them, its elevation and its speed over the distance.
///
/// The card is 800 pixels wide; the map's height follows the route's shape (from
/// ``minimumMapHeight`` for a wide route to ``maximumMapHeight`` for a tall one), so
/// that the track fills the map in either orientation.
struct RouteSVG {
    let summary: RouteSummary
    let route: Route
    let units: DistanceUnit
    /// The calories to show; nil leaves the tile out (unknown, or withheld).
    var calories: Double?

    init(summary: RouteSummary, route: Route, units: DistanceUnit, calories: Double? = nil) {
        self.summary = summary
        self.route = route
        self.units = units
        self.calories = calories.flatMap { $0 > 0 ? $0 : nil }
    }

    static let width = 800.0
    static let minimumMapHeight = 360.0, maximumMapHeight = 1000.0
    static let track = "#1a66d9"
    private static let mapTop = 112.0

    /// The map's frame on the card.
    var mapFrame: (x: Double, y: Double, width: Double, height: Double) {
        let width = Self.width - 40
        let aspect = MapProjection.aspect(of: summary.boundingBox)
        // The projection keeps 8 % of margin on each side, whatever the frame.
        let height = min(Self.maximumMapHeight, max(Self.minimumMapHeight, width * aspect))
        return (20, Self.mapTop, width, height.rounded())
    }

    var profile: RouteProfile { RouteProfile(route) }

    /// The card's height: the map and the charts the route has.
    func height(_ profile: RouteProfile) -> Double {
        let f = mapFrame
        return f.y + f.height + Double(charts(profile).count) * (ProfileChart.height + 16) + 20
    }

    func render() -> String {
        let profile = self.profile
        let f = mapFrame
        let projection = MapProjection(fitting: summary.boundingBox, into: f)
        let height = self.height(profile)
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(Self.width))" height="\(Int(height))" viewBox="0 0 \(Int(Self.width)) \(Int(height))" font-family="\(SVGText.font)">
        <title>\(SVGText.escape(title)): \(SVGText.escape(tiles(profile).map { $0.value + ($0.unit.isEmpty ? "" : " " + $0.unit) }.joined(separator: " · ")))</title>
        <rect width="100%" height="100%" fill="#ffffff"/>

        """
        svg += header(profile)
        svg += "<clipPath id=\"map\"><rect x=\"\(r(f.x))\" y=\"\(r(f.y))\" width=\"\(r(f.width))\" height=\"\(r(f.height))\" rx=\"12\"/></clipPath>\n"
        svg += "<g clip-path=\"url(#map)\">\n<rect x=\"\(r(f.x))\" y=\"\(r(f.y))\" width=\"\(r(f.width))\" height=\"\(r(f.height))\" fill=\"#eef1ea\"/>\n"
        svg += grid(projection)
        svg += trackLines(projection)
        let corners = self.corners(projection)
        let pins = self.pins()
        let layout = PinLayout(positions: pins.positions, projection: projection, start: summary.startCoordinate,
                               finish: summary.endCoordinate, reserved: [corners.scaleBox, corners.arrowBox],
                               smallestSpacing: pins.smallestSpacing)
        svg += layout.pinsSVG(colour: Self.track)
        svg += layout.marksSVG()
        svg += layout.labelsSVG()
        svg += "</g>\n"
        svg += "<rect x=\"\(r(f.x))\" y=\"\(r(f.y))\" width=\"\(r(f.width))\" height=\"\(r(f.height))\" rx=\"12\" fill=\"none\" stroke=\"#d0d7cc\"/>\n"
        svg += scaleBar(projection, pinSpacing: layout.pins.isEmpty ? 0 : layout.spacing, corners: corners)
        svg += northArrow(corners)
        var y = f.y + f.height + 16
        for chart in charts(profile) {
            svg += chart.svg(x: f.x, y: y, width: f.width)
            y += ProfileChart.height + 16
        }
        svg += "</svg>\n"
        return svg
    }

    /// Where the scale bar (at its widest) and the north arrow go: no label goes there.
    func corners(_ projection: MapProjection) -> MapCorners {
        let step = max(1, route.points.count / 2000)
        let track = stride(from: 0, to: route.points.count, by: step).map { projection.point(route.points[$0].coordinate) }
        return MapCorners(frame: projection.frame, track: track,
                          marks: [projection.point(summary.startCoordinate), projection.point(summary.endCoordinate)])
    }

    // MARK: Title and figures

    private var title: String { summary.name ?? "Route \(summary.id)" }

    /// The figures shown above the map: only those that are known.
    func tiles(_ profile: RouteProfile) -> [(value: String, unit: String, caption: String)] {
        var tiles = [(String(format: "%.2f", summary.distance / units.metres), units.symbol, "Distance")]
        if summary.duration > 0 {
            tiles.append((Formatting.duration(summary.duration), "", "Duration"))
            let pace = Formatting.pace(seconds: summary.duration, metres: summary.distance, units)
            if pace != "-" { tiles.append((String(pace.split(separator: " ")[0]), "/" + units.symbol, "Average pace")) }
        }
        if profile.hasAltitude {
            let gain = profile.elevationGain
            tiles.append(units == .kilometres ? (Formatting.whole(gain), "m", "Climb")
                                              : (Formatting.whole(gain / 0.3048), "ft", "Climb"))
        }
        if let calories { tiles.append((Formatting.calories(calories), "kcal", "Calories")) }
        return tiles
    }

    private func header(_ profile: RouteProfile) -> String {
        // A long name is cut so that it never runs into the date.
        let shown = title.count > 38 ? title.prefix(37) + "…" : title
        var text = "<text x=\"24\" y=\"40\" font-size=\"24\" font-weight=\"700\" fill=\"#1f2328\">\(SVGText.escape(String(shown)))</text>\n"
        text += "<text x=\"776\" y=\"40\" font-size=\"15\" fill=\"#59636e\" text-anchor=\"end\">\(SVGText.escape(Formatting.day(summary.startDate) + " " + Formatting.time(summary.startDate)))</text>\n"
        for (i, tile) in tiles(profile).enumerated() {
            let x = 24 + Double(i) * 152
            text += "<text x=\"\(x)\" y=\"78\" font-size=\"22\" font-weight=\"600\" fill=\"#1f2328\">\(SVGText.escape(tile.value))"
            if !tile.unit.isEmpty { text += "<tspan font-size=\"14\" font-weight=\"400\" fill=\"#59636e\" dx=\"4\">\(SVGText.escape(tile.unit))</tspan>" }
            text += "</text>\n<text x=\"\(x)\" y=\"98\" font-size=\"12\" fill=\"#59636e\">\(tile.caption)</text>\n"
        }
        return text
    }

    /// Elevation when the route has altitudes, speed when its time advances.
    func charts(_ profile: RouteProfile) -> [ProfileChart] {
        // About two points a bin for the altitude and four for the speed, so that a short
        // route's bins are not mostly empty.
        let bins = min(160, max(8, route.points.count / 2)), speedBins = min(160, max(4, route.points.count / 4))
        var charts: [ProfileChart] = []
        let length = profile.total / units.metres
        if profile.hasAltitude {
            let feet = units == .miles
            let values = profile.altitudes(bins: bins).map { $0.map { feet ? $0 / 0.3048 : $0 } }
            let known = values.compactMap { $0 }
            let u = feet ? "ft" : "m"
            let caption = "lowest \(Formatting.whole(known.min()!)) \(u) · highest \(Formatting.whole(known.max()!)) \(u)"
            charts.append(ProfileChart(title: "Elevation", caption: caption, values: values, length: length, unit: units.symbol,
                                       valueUnit: u, colour: "#2da44e", filled: true, ceiling: nil,
                                       minimumRange: feet ? 60 : 20, startsAtZero: false))
        }
        if profile.hasTime {
            let perHour = 3600 / units.metres
            let values = profile.speeds(bins: speedBins).map { $0.map { $0 * perHour } }
            let known = values.compactMap { $0 }.sorted()
            guard !known.isEmpty else { return charts }
            // The 98th percentile: one GPS jump must not squash the whole line.
            let high = known[min(known.count - 1, Int(Double(known.count) * 0.98))]
            // Over the time spent moving: a pause or a gap between recordings is no speed.
            let moving = RouteMetrics.movingTime(of: route.points, segmentStarts: route.segmentStarts)
            let average = moving > 0 ? profile.total / moving * perHour : 0
            let speedUnit = units == .kilometres ? "km/h" : "mph"
            charts.append(ProfileChart(title: "Speed", caption: String(format: "moving average %.1f ", average) + speedUnit,
                                       values: values, length: length, unit: units.symbol, valueUnit: speedUnit,
                                       colour: Self.track, filled: false, ceiling: high * 1.1, minimumRange: 2, startsAtZero: true))
        }
        return charts
    }
}
