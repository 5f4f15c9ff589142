import Foundation
import RouteLog

/// The map of ``RouteSVG``: grid, track, scale bar, north arrow, and where the pins go.
extension RouteSVG {
    func r(_ value: Double) -> String { SVGText.number(value) }

    /// Faint lines every "nice" ground distance, like a map's graticule.
    func grid(_ projection: MapProjection) -> String {
        let step = Self.niceLength(maximumPixels: 110, pixelsPerUnit: projection.pixelsPerMetre * units.metres) * units.metres
        let spacing = step * projection.pixelsPerMetre
        guard spacing >= 20 else { return "" }
        let f = projection.frame
        var path = ""
        var x = f.x + (f.width / 2).truncatingRemainder(dividingBy: spacing)
        while x < f.x + f.width { path += "M\(r(x)) \(r(f.y))V\(r(f.y + f.height))"; x += spacing }
        var y = f.y + (f.height / 2).truncatingRemainder(dividingBy: spacing)
        while y < f.y + f.height { path += "M\(r(f.x)) \(r(y))H\(r(f.x + f.width))"; y += spacing }
        return "<path d=\"\(path)\" stroke=\"#dde3d7\" stroke-width=\"1\" fill=\"none\"/>\n"
    }

    /// The track as one polyline per recording segment, drawn over a white casing;
    /// points closer than a pixel to the last one drawn are skipped.
    func trackLines(_ projection: MapProjection) -> String {
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

    /// Every whole kilometre (or mile) of the route, numbered from 1: where the app's
    /// split says, or measured along the track when the route has no splits of that unit.
    /// ``PinLayout`` picks the ones it draws.
    func pinPositions() -> [(Int, Coordinate)] { pins().positions }

    /// ``pinPositions()``, and the smallest spacing whose pins are all there. A measured
    /// route of more than ``PinLayout/consideredPins`` units (a track hopping round the
    /// globe) gets only the pins of the spacings with no more than that many: one a
    /// kilometre would cost memory and time with the distance, for spacings whose
    /// thousands of pins ``PinLayout`` never draws.
    func pins() -> (positions: [(Int, Coordinate)], smallestSpacing: Int) {
        let points = route.points
        let splits = route.splits.filter { $0.unit == units.split && points.indices.contains($0.pointIndex) }
            .sorted { $0.pointIndex < $1.pointIndex }
        if !splits.isEmpty {
            return (splits.enumerated().map { ($0.offset + 1, points[$0.element.pointIndex].coordinate) }, 1)
        }
        let starts = Set(route.segmentStarts)
        var total = 0.0
        for i in points.indices.dropFirst() where !starts.contains(i) {
            total += Geodesic.distance(points[i - 1].coordinate, points[i].coordinate)
        }
        let wholeUnits = total / self.units.metres
        guard let smallest = PinLayout.spacings.first(where: { wholeUnits / Double($0) <= Double(PinLayout.consideredPins) }) else {
            return ([], PinLayout.spacings.last! + 1)
        }
        let spacings = PinLayout.spacings.filter { $0 >= smallest }
        // The next number after `number` that one of the kept spacings labels.
        func following(_ number: Int) -> Int { spacings.map { ($0 + number) / $0 * $0 }.min()! }
        var result: [(Int, Coordinate)] = []
        var travelled = 0.0
        var number = smallest
        var next = smallest == 1 ? self.units.metres : Double(number) * self.units.metres
        for i in points.indices.dropFirst() where !starts.contains(i) {
            let a = points[i - 1].coordinate, b = points[i].coordinate
            let step = Geodesic.distance(a, b)
            while step > 0, travelled + step >= next {
                let t = (next - travelled) / step
                result.append((number, Coordinate(latitude: a.latitude + t * (b.latitude - a.latitude),
                                                  longitude: a.longitude + t * (b.longitude - a.longitude))))
                // Every unit, as always, when every spacing is kept.
                if smallest == 1 {
                    number += 1
                    next += self.units.metres
                } else {
                    number = following(number)
                    next = Double(number) * self.units.metres
                }
            }
            travelled += step
        }
        return (result, smallest)
    }

    /// A bar of a round length in alternating black and white halves in its corner of
    /// the map, captioned with the pins' spacing when there are pins.
    func scaleBar(_ projection: MapProjection, pinSpacing: Int, corners: MapCorners) -> String {
        let (length, caption) = scaleLength(projection)
        let pixels = length * projection.pixelsPerMetre
        let note = pinSpacing > 0 ? "pins every \(pinSpacing) \(units.symbol)" : ""
        let boxWidth = max(pixels, SVGText.width(note, size: 11)) + 12
        let area = corners.scaleBox
        let left = corners.scaleOnRight ? area.maxX - boxWidth : area.minX
        let x = left + 6, y = area.maxY - 16
        var text = "<g class=\"scale\">"
        text += "<rect x=\"\(r(left))\" y=\"\(r(y - 24 - (note.isEmpty ? 0 : 14)))\" width=\"\(r(boxWidth))\" height=\"\(note.isEmpty ? 36 : 50)\" rx=\"4\" fill=\"#ffffff\" fill-opacity=\"0.85\"/>"
        if !note.isEmpty {
            text += "<text x=\"\(r(x))\" y=\"\(r(y - 26))\" font-size=\"11\" fill=\"#59636e\">\(note)</text>"
        }
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
            return (metres, metres >= 1000 ? "\(SVGText.trimmed(metres / 1000)) km" : "\(SVGText.trimmed(metres)) m")
        }
        let miles = Self.niceLength(maximumPixels: maximum, pixelsPerUnit: projection.pixelsPerMetre * 1609.344)
        if miles >= 0.1 { return (miles * 1609.344, "\(SVGText.trimmed(miles)) mi") }
        let feet = Self.niceLength(maximumPixels: maximum, pixelsPerUnit: projection.pixelsPerMetre * 0.3048)
        return (feet * 0.3048, "\(SVGText.trimmed(feet)) ft")
    }

    /// The largest 1, 2 or 5 times a power of ten whose length is at most `maximumPixels`.
    static func niceLength(maximumPixels: Double, pixelsPerUnit: Double) -> Double {
        SVGText.niceBelow(maximumPixels / pixelsPerUnit)
    }

    func northArrow(_ corners: MapCorners) -> String {
        let x = (corners.arrowBox.minX + corners.arrowBox.maxX) / 2, y = (corners.arrowBox.minY + corners.arrowBox.maxY) / 2
        return "<g transform=\"translate(\(r(x)),\(r(y)))\"><circle r=\"17\" fill=\"#ffffff\" fill-opacity=\"0.85\"/>"
            + "<path d=\"M0 -12L6 6L0 2L-6 6Z\" fill=\"#1f2328\"/>"
            + "<text y=\"-0\" dy=\"15\" font-size=\"9\" font-weight=\"700\" text-anchor=\"middle\" fill=\"#1f2328\">N</text></g>\n"
    }
}
