import Foundation
import RouteLog

/// An SVG picture of one route, like an app's detail screen: a title line with the
/// date, distance, duration and average pace above a map of the track with start and
/// end marks, a pin at every kilometre (or mile), a scale bar and a north arrow.
struct RouteSVG {
    let summary: RouteSummary
    let route: Route
    let units: DistanceUnit

    static let width = 800.0, height = 660.0
    private static let mapFrame = (x: 20.0, y: 112.0, width: 760.0, height: 528.0)
    private static let track = "#1a66d9"
    private static let font = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', 'DejaVu Sans', Arial, sans-serif"

    func render() -> String {
        let projection = MapProjection(fitting: summary.boundingBox, into: Self.mapFrame)
        let f = Self.mapFrame
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(Self.width))" height="\(Int(Self.height))" viewBox="0 0 \(Int(Self.width)) \(Int(Self.height))" font-family="\(Self.font)">
        <title>\(escape(title)): \(escape(subtitle))</title>
        <rect width="100%" height="100%" fill="#ffffff"/>

        """
        svg += header()
        svg += "<clipPath id=\"map\"><rect x=\"\(f.x)\" y=\"\(f.y)\" width=\"\(f.width)\" height=\"\(f.height)\" rx=\"12\"/></clipPath>\n"
        svg += "<g clip-path=\"url(#map)\">\n<rect x=\"\(f.x)\" y=\"\(f.y)\" width=\"\(f.width)\" height=\"\(f.height)\" fill=\"#eef1ea\"/>\n"
        svg += grid(projection)
        svg += trackLines(projection)
        // Start and finish go over the pins (a pin's number stands clear above its
        // point), and their labels over everything.
        let pins = pins(projection)
        let marks = endMarks(projection, avoiding: pins.boxes)
        svg += pins.svg
        svg += marks.discs
        svg += marks.labels
        svg += "</g>\n"
        svg += "<rect x=\"\(f.x)\" y=\"\(f.y)\" width=\"\(f.width)\" height=\"\(f.height)\" rx=\"12\" fill=\"none\" stroke=\"#d0d7cc\"/>\n"
        svg += scaleBar(projection)
        svg += northArrow()
        svg += "</svg>\n"
        return svg
    }

    // MARK: Title

    private var title: String { summary.name ?? "Route \(summary.id)" }

    private var subtitle: String {
        [Formatting.day(summary.startDate) + " " + Formatting.time(summary.startDate),
         Formatting.distance(summary.distance, units), Formatting.duration(summary.duration),
         Formatting.pace(seconds: summary.duration, metres: summary.distance, units)].joined(separator: " · ")
    }

    private func header() -> String {
        // A long name is cut so that it never runs into the date.
        let shown = title.count > 38 ? title.prefix(37) + "…" : title
        var text = "<text x=\"24\" y=\"40\" font-size=\"24\" font-weight=\"700\" fill=\"#1f2328\">\(escape(String(shown)))</text>\n"
        text += "<text x=\"776\" y=\"40\" font-size=\"15\" fill=\"#59636e\" text-anchor=\"end\">\(escape(Formatting.day(summary.startDate) + " " + Formatting.time(summary.startDate)))</text>\n"
        let tiles = [
            (String(format: "%.2f", summary.distance / units.metres), units.symbol, "Distance"),
            (Formatting.duration(summary.duration), "", "Duration"),
            (Formatting.pace(seconds: summary.duration, metres: summary.distance, units).split(separator: " ").first.map(String.init) ?? "-",
             "/" + units.symbol, "Average pace"),
            (Formatting.calories(summary.calories), "kcal", "Calories"),
        ]
        for (i, tile) in tiles.enumerated() {
            let x = 24 + Double(i) * 190
            text += "<text x=\"\(x)\" y=\"78\" font-size=\"22\" font-weight=\"600\" fill=\"#1f2328\">\(escape(tile.0))"
            if !tile.1.isEmpty { text += "<tspan font-size=\"14\" font-weight=\"400\" fill=\"#59636e\" dx=\"4\">\(escape(tile.1))</tspan>" }
            text += "</text>\n<text x=\"\(x)\" y=\"98\" font-size=\"12\" fill=\"#59636e\">\(tile.2)</text>\n"
        }
        return text
    }

    // MARK: Map

    /// Faint lines every "nice" ground distance, like a map's graticule.
    private func grid(_ projection: MapProjection) -> String {
        let step = Self.niceLength(maximumPixels: 110, pixelsPerUnit: projection.pixelsPerMetre * units.metres) * units.metres
        let spacing = step * projection.pixelsPerMetre
        guard spacing >= 20 else { return "" }
        let f = Self.mapFrame
        var path = ""
        var x = f.x + (f.width / 2).truncatingRemainder(dividingBy: spacing)
        while x < f.x + f.width { path += "M\(r(x)) \(r(f.y))V\(r(f.y + f.height))"; x += spacing }
        var y = f.y + (f.height / 2).truncatingRemainder(dividingBy: spacing)
        while y < f.y + f.height { path += "M\(r(f.x)) \(r(y))H\(r(f.x + f.width))"; y += spacing }
        return "<path d=\"\(path)\" stroke=\"#dde3d7\" stroke-width=\"1\" fill=\"none\"/>\n"
    }

    /// The track as one polyline per recording segment, drawn over a white casing;
    /// points closer than a pixel to the last one drawn are skipped.
    private func trackLines(_ projection: MapProjection) -> String {
        var segments: [[(x: Double, y: Double)]] = []
        let starts = Set(route.segmentStarts)
        for (i, point) in route.points.enumerated() {
            let p = projection.point(point.coordinate)
            if i == 0 || starts.contains(i) { segments.append([p]); continue }
            let last = segments[segments.count - 1].last!
            if hypot(p.x - last.x, p.y - last.y) >= 1 || i == route.points.count - 1 { segments[segments.count - 1].append(p) }
        }
        var text = ""
        for (stroke, width) in [("#ffffff", 9.0), (Self.track, 4.5)] {
            for segment in segments {
                let points = segment.map { "\(r($0.x)),\(r($0.y))" }.joined(separator: " ")
                text += "<polyline points=\"\(points)\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"\(width)\" stroke-linejoin=\"round\" stroke-linecap=\"round\"/>\n"
            }
        }
        return text
    }

    /// A numbered pin at every whole kilometre (or mile): where the app's split says,
    /// or measured along the track when the route has no splits of that unit.
    /// A rectangle on the picture, for keeping labels off pins and marks.
    struct Box {
        var minX, minY, maxX, maxY: Double
        func overlaps(_ other: Box) -> Bool {
            minX < other.maxX && other.minX < maxX && minY < other.maxY && other.minY < maxY
        }
    }

    private func pins(_ projection: MapProjection) -> (svg: String, boxes: [Box]) {
        // Pins that would overlap (a route that passes the same place twice) share one
        // pin labelled with every number: "3·7".
        var clusters: [(x: Double, y: Double, numbers: [Int])] = []
        for (number, coordinate) in pinPositions() {
            let p = projection.point(coordinate)
            if let i = clusters.firstIndex(where: { hypot($0.x - p.x, $0.y - p.y) < 22 }) {
                clusters[i].numbers.append(number)
            } else {
                clusters.append((p.x, p.y, [number]))
            }
        }
        // A pin stands above its point, unless its head would hide the start or the
        // finish: then it hangs below.
        let marks = [projection.point(summary.startCoordinate), projection.point(summary.endCoordinate)]
        var text = ""
        var boxes: [Box] = []
        for cluster in clusters {
            let label = cluster.numbers.map(String.init).joined(separator: "·")
            let width = max(20, Double(label.count) * 7 + 8)
            let hidesAMark = marks.contains { abs($0.x - cluster.x) < width / 2 + 12 && abs($0.y - (cluster.y - 19)) < 22 }
            boxes.append(Box(minX: cluster.x - width / 2, minY: cluster.y + (hidesAMark ? 0 : -29),
                             maxX: cluster.x + width / 2, maxY: cluster.y + (hidesAMark ? 29 : 0)))
            let flip = hidesAMark ? " scale(1,-1)" : ""
            text += "<g transform=\"translate(\(r(cluster.x)),\(r(cluster.y)))\(flip)\">"
            text += "<path d=\"M0 0L-5 -9.5H5Z\" fill=\"\(Self.track)\"/>"
            text += "<rect x=\"\(r(-width / 2))\" y=\"-29\" width=\"\(r(width))\" height=\"20\" rx=\"10\" fill=\"#ffffff\" stroke=\"\(Self.track)\" stroke-width=\"2\"/>"
            // The number is never drawn upside down.
            text += "<text \(hidesAMark ? "y=\"23\" transform=\"scale(1,-1)\"" : "y=\"-15\"") font-size=\"11\" font-weight=\"700\" fill=\"\(Self.track)\" text-anchor=\"middle\">\(label)</text></g>\n"
        }
        return (text, boxes)
    }

    func pinPositions() -> [(Int, Coordinate)] {
        let points = route.points
        let splits = route.splits.filter { $0.unit == units.split && points.indices.contains($0.pointIndex) }
            .sorted { $0.pointIndex < $1.pointIndex }
        if !splits.isEmpty {
            return splits.enumerated().map { ($0.offset + 1, points[$0.element.pointIndex].coordinate) }
        }
        var result: [(Int, Coordinate)] = []
        let starts = Set(route.segmentStarts)
        var travelled = 0.0
        var next = units.metres
        for i in points.indices.dropFirst() where !starts.contains(i) {
            let a = points[i - 1].coordinate, b = points[i].coordinate
            let step = RouteMetrics.distance(of: [points[i - 1], points[i]])
            while step > 0, travelled + step >= next {
                let t = (next - travelled) / step
                result.append((result.count + 1, Coordinate(latitude: a.latitude + t * (b.latitude - a.latitude),
                                                             longitude: a.longitude + t * (b.longitude - a.longitude))))
                next += units.metres
            }
            travelled += step
        }
        return result
    }

    /// Start (green) and finish (a chequered flag on a dark disc), labelled.
    private func endMarks(_ projection: MapProjection, avoiding pins: [Box]) -> (discs: String, labels: String) {
        let start = projection.point(summary.startCoordinate), end = projection.point(summary.endCoordinate)
        var text = "<g transform=\"translate(\(r(end.x)),\(r(end.y)))\">"
        text += "<circle r=\"10\" fill=\"#24292f\" stroke=\"#ffffff\" stroke-width=\"3\"/>"
        text += "<path d=\"M-4 -4h4v4h-4zM0 0h4v4h-4z\" fill=\"#ffffff\"/></g>\n"
        text += "<g transform=\"translate(\(r(start.x)),\(r(start.y)))\">"
        text += "<circle r=\"9\" fill=\"#2da44e\" stroke=\"#ffffff\" stroke-width=\"3\"/>"
        text += "<path d=\"M-2.5 -4.5L4.5 0L-2.5 4.5Z\" fill=\"#ffffff\"/></g>\n"
        // Each label goes under its mark, or right, left or above: the first place
        // clear of the pins, both marks and the label already placed.
        var taken = pins + [start, end].map { Box(minX: $0.x - 13, minY: $0.y - 13, maxX: $0.x + 13, maxY: $0.y + 13) }
        var labels = ""
        for (name, p) in [("Start", start), ("Finish", end)] {
            let w = Double(name.count) * 7.5
            let places: [(x: Double, y: Double, anchor: String, box: Box)] = [
                (p.x, p.y + 27, "middle", Box(minX: p.x - w / 2, minY: p.y + 15, maxX: p.x + w / 2, maxY: p.y + 31)),
                (p.x + 15, p.y + 4, "start", Box(minX: p.x + 15, minY: p.y - 8, maxX: p.x + 15 + w, maxY: p.y + 8)),
                (p.x - 15, p.y + 4, "end", Box(minX: p.x - 15 - w, minY: p.y - 8, maxX: p.x - 15, maxY: p.y + 8)),
                (p.x, p.y - 17, "middle", Box(minX: p.x - w / 2, minY: p.y - 29, maxX: p.x + w / 2, maxY: p.y - 13)),
            ]
            let own = Box(minX: p.x - 13, minY: p.y - 13, maxX: p.x + 13, maxY: p.y + 13)
            let others = taken.filter { !($0.minX == own.minX && $0.minY == own.minY) }
            let place = places.first { place in !others.contains { $0.overlaps(place.box) } } ?? places[0]
            taken.append(place.box)
            labels += label(name, at: (place.x, place.y), anchor: place.anchor)
        }
        return (text, labels)
    }

    private func label(_ text: String, at p: (x: Double, y: Double), anchor: String) -> String {
        "<text x=\"\(r(p.x))\" y=\"\(r(p.y))\" text-anchor=\"\(anchor)\" font-size=\"12\" font-weight=\"600\" fill=\"#1f2328\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">\(text)</text>\n"
    }

    /// A bar of a round length (1, 2 or 5 times a power of ten, or a fraction of a mile),
    /// in alternating black and white halves, at the map's lower left.
    private func scaleBar(_ projection: MapProjection) -> String {
        let (length, caption) = scaleLength(projection)
        let pixels = length * projection.pixelsPerMetre
        let x = Self.mapFrame.x + 16, y = Self.mapFrame.y + Self.mapFrame.height - 20
        var text = "<g>"
        text += "<rect x=\"\(r(x - 6))\" y=\"\(r(y - 24))\" width=\"\(r(pixels + 12))\" height=\"36\" rx=\"4\" fill=\"#ffffff\" fill-opacity=\"0.85\"/>"
        text += "<rect x=\"\(r(x))\" y=\"\(r(y))\" width=\"\(r(pixels / 2))\" height=\"5\" fill=\"#1f2328\"/>"
        text += "<rect x=\"\(r(x + pixels / 2))\" y=\"\(r(y))\" width=\"\(r(pixels / 2))\" height=\"5\" fill=\"#ffffff\" stroke=\"#1f2328\" stroke-width=\"1\"/>"
        text += "<text x=\"\(r(x))\" y=\"\(r(y - 8))\" font-size=\"12\" fill=\"#1f2328\">0</text>"
        text += "<text x=\"\(r(x + pixels))\" y=\"\(r(y - 8))\" font-size=\"12\" fill=\"#1f2328\" text-anchor=\"end\">\(caption)</text>"
        return text + "</g>\n"
    }

    /// The scale bar's ground length in metres and its caption, at most 180 pixels long.
    func scaleLength(_ projection: MapProjection) -> (Double, String) {
        let maximum = 180.0
        if units == .kilometres {
            let metres = Self.niceLength(maximumPixels: maximum, pixelsPerUnit: projection.pixelsPerMetre)
            return (metres, metres >= 1000 ? "\(Self.trimmed(metres / 1000)) km" : "\(Self.trimmed(metres)) m")
        }
        let miles = Self.niceLength(maximumPixels: maximum, pixelsPerUnit: projection.pixelsPerMetre * 1609.344)
        if miles >= 0.1 { return (miles * 1609.344, "\(Self.trimmed(miles)) mi") }
        let feet = Self.niceLength(maximumPixels: maximum, pixelsPerUnit: projection.pixelsPerMetre * 0.3048)
        return (feet * 0.3048, "\(Self.trimmed(feet)) ft")
    }

    /// The largest 1, 2 or 5 times a power of ten whose length is at most `maximumPixels`.
    static func niceLength(maximumPixels: Double, pixelsPerUnit: Double) -> Double {
        let raw = maximumPixels / pixelsPerUnit
        let power = pow(10, floor(log10(raw)))
        return [5.0, 2, 1].map { $0 * power }.first { $0 <= raw } ?? power
    }

    static func trimmed(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%g", value)
    }

    private func northArrow() -> String {
        let x = Self.mapFrame.x + Self.mapFrame.width - 30, y = Self.mapFrame.y + 34
        return "<g transform=\"translate(\(r(x)),\(r(y)))\"><circle r=\"17\" fill=\"#ffffff\" fill-opacity=\"0.85\"/>"
            + "<path d=\"M0 -12L6 6L0 2L-6 6Z\" fill=\"#1f2328\"/>"
            + "<text y=\"-0\" dy=\"15\" font-size=\"9\" font-weight=\"700\" text-anchor=\"middle\" fill=\"#1f2328\">N</text></g>\n"
    }

    // MARK: Text

    private func r(_ value: Double) -> String { String(format: "%.1f", value) }

    private func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }
}
