import Foundation
import RouteLog

/// Where the distance pins, the start and finish marks and their labels go on the map.
///
/// The pin spacing is the smallest of 1, 2, 5, 10, 20, 50, 100 (then 200, 500, 1000)
/// kilometres or miles at which every pin finds a place clear of every other label and
/// of both marks (one in eight may be left out where the track tangles, rather than
/// thin out every pin), and no more than ``maximumPins`` are drawn. A pin stands above its
/// point, or hangs below, or sits to the right or the left of it: the first of those
/// that is clear and inside the map. Pins at the same place (a route that passes it
/// twice) share one label, like `3·7`; a pin on a mark is left out (the mark says more).
/// When no spacing lets every pin fit (a route that loops over itself many times), the
/// widest one is used and a pin with no clear place is left out: labels never overlap.
struct PinLayout {
    /// The spacings tried, in the distance unit.
    static let spacings: [Int] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]
    static let maximumPins = 24
    /// Spacings with more pins than this along the route are not tried (nor measured,
    /// see ``RouteSVG/pins()``): at most 24 are drawn, so such a spacing is drawn only
    /// when nearly all of its pins sit on the start or finish mark.
    static let consideredPins = 10_000

    enum Side: CaseIterable { case above, below, right, left }

    struct Pin {
        var point: (x: Double, y: Double)
        var label: String
        var side: Side
        var box: Box
    }

    struct Label {
        var text: String
        var box: Box
    }

    /// The spacing used, in the distance unit (0 when the route is shorter than one).
    var spacing = 0
    var pins: [Pin] = []
    var start: (x: Double, y: Double)
    var finish: (x: Double, y: Double)
    /// "Start" and "Finish", each left out only when no place around its mark is clear.
    var labels: [Label] = []

    static let markHalf = 13.0
    static let pillHeight = 18.0
    static let pointer = 9.0

    /// Lays out the pins of `positions` (each whole unit's number and place, in order).
    /// `reserved` holds what else is drawn on the map (the scale bar, the north arrow);
    /// spacings below `smallestSpacing` are not tried (their pins are not all in `positions`).
    init(positions: [(Int, Coordinate)], projection: MapProjection, start startCoordinate: Coordinate,
         finish finishCoordinate: Coordinate, reserved: [Box] = [], smallestSpacing: Int = 1) {
        let f = projection.frame
        let frame = Box(minX: f.x + 2, minY: f.y + 2, maxX: f.x + f.width - 2, maxY: f.y + f.height - 2)
        start = projection.point(startCoordinate)
        finish = projection.point(finishCoordinate)
        var taken = [Box(around: start, half: Self.markHalf), Box(around: finish, half: Self.markHalf)] + reserved
        for (text, mark) in [("Start", start), ("Finish", finish)] {
            let width = SVGText.width(text, size: 12, bold: true) + 12
            let place = Self.places(at: mark, width: width, offset: Self.markHalf + 2)
                .first { place in place.1.isInside(frame) && !taken.contains { $0.overlaps(place.1, gap: 1) } }
            if let place {
                labels.append(Label(text: text, box: place.1))
                taken.append(place.1)
            }
        }
        let marks = [start, finish]
        let projected = positions.map { (number: $0.0, point: projection.point($0.1)) }
            .filter { p in !marks.contains { hypot($0.x - p.point.x, $0.y - p.point.y) < Self.markHalf + 2 } }
        var chosen: (spacing: Int, pins: [Pin])?
        for spacing in Self.spacings where spacing >= smallestSpacing {
            let picked = projected.filter { $0.number % spacing == 0 }
            guard picked.count <= Self.maximumPins else { continue }
            let (placed, missed) = Self.place(picked, marks: marks, frame: frame, taken: taken)
            chosen = (spacing, placed)
            // One label in eight may give way in a tangle rather than thin every pin out.
            if missed <= picked.count / 8 { break }
        }
        if let chosen {
            spacing = positions.isEmpty ? 0 : chosen.spacing
            pins = chosen.pins
        }
    }

    /// Places each pin (clustered by place) at its first clear side; returns the pins
    /// placed and how many clusters away from the marks found no place.
    private static func place(_ picked: [(number: Int, point: (x: Double, y: Double))], marks: [(x: Double, y: Double)],
                              frame: Box, taken initial: [Box]) -> ([Pin], Int) {
        var clusters: [(point: (x: Double, y: Double), numbers: [Int])] = []
        for p in picked {
            if let i = clusters.firstIndex(where: { hypot($0.point.x - p.point.x, $0.point.y - p.point.y) < 22 }) {
                clusters[i].numbers.append(p.number)
            } else {
                clusters.append((p.point, [p.number]))
            }
        }
        var taken = initial
        var pins: [Pin] = []
        var missed = 0
        for cluster in clusters {
            let label = cluster.numbers.map(String.init).joined(separator: "·")
            let width = max(22, SVGText.width(label, size: 11, bold: true) + 10)
            let side = Side.allCases.lazy.map { ($0, pinBox(at: cluster.point, side: $0, width: width)) }
                .first { candidate in candidate.1.isInside(frame) && !taken.contains { $0.overlaps(candidate.1, gap: 2) } }
            guard let side else {
                // Next to a mark the mark already tells where the route is: such a pin
                // may be left out without calling for a wider spacing.
                if !marks.contains(where: { hypot($0.x - cluster.point.x, $0.y - cluster.point.y) < 48 }) { missed += 1 }
                continue
            }
            taken.append(side.1)
            pins.append(Pin(point: cluster.point, label: label, side: side.0, box: side.1))
        }
        return (pins, missed)
    }

    /// The area a pin covers, pointer included.
    static func pinBox(at p: (x: Double, y: Double), side: Side, width: Double) -> Box {
        let h = pillHeight, t = pointer
        switch side {
        case .above: return Box(minX: p.x - width / 2, minY: p.y - t - h, maxX: p.x + width / 2, maxY: p.y)
        case .below: return Box(minX: p.x - width / 2, minY: p.y, maxX: p.x + width / 2, maxY: p.y + t + h)
        case .right: return Box(minX: p.x, minY: p.y - h / 2, maxX: p.x + t + width, maxY: p.y + h / 2)
        case .left: return Box(minX: p.x - t - width, minY: p.y - h / 2, maxX: p.x, maxY: p.y + h / 2)
        }
    }

    /// The places a mark's label may take, in order of preference: below, right, left, above.
    static func places(at p: (x: Double, y: Double), width: Double, offset: Double) -> [(Side, Box)] {
        let h = pillHeight
        return [
            (.below, Box(minX: p.x - width / 2, minY: p.y + offset, maxX: p.x + width / 2, maxY: p.y + offset + h)),
            (.right, Box(minX: p.x + offset, minY: p.y - h / 2, maxX: p.x + offset + width, maxY: p.y + h / 2)),
            (.left, Box(minX: p.x - offset - width, minY: p.y - h / 2, maxX: p.x - offset, maxY: p.y + h / 2)),
            (.above, Box(minX: p.x - width / 2, minY: p.y - offset - h, maxX: p.x + width / 2, maxY: p.y - offset)),
        ]
    }

    // MARK: Drawing

    private func r(_ value: Double) -> String { SVGText.number(value) }

    /// The pins, drawn over the track.
    func pinsSVG(colour: String) -> String {
        var text = ""
        for pin in pins {
            let b = pin.box, p = pin.point, t = Self.pointer
            let pill: Box
            let tip: String
            switch pin.side {
            case .above: pill = Box(minX: b.minX, minY: b.minY, maxX: b.maxX, maxY: b.maxY - t); tip = "M0 0L-4 \(-t)H4Z"
            case .below: pill = Box(minX: b.minX, minY: b.minY + t, maxX: b.maxX, maxY: b.maxY); tip = "M0 0L-4 \(t)H4Z"
            case .right: pill = Box(minX: b.minX + t, minY: b.minY, maxX: b.maxX, maxY: b.maxY); tip = "M0 0L\(t) -4V4Z"
            case .left: pill = Box(minX: b.minX, minY: b.minY, maxX: b.maxX - t, maxY: b.maxY); tip = "M0 0L\(-t) -4V4Z"
            }
            let x = pill.minX - p.x, y = pill.minY - p.y, w = pill.maxX - pill.minX, h = pill.maxY - pill.minY
            text += "<g class=\"pin\" transform=\"translate(\(r(p.x)),\(r(p.y)))\"><path d=\"\(tip)\" fill=\"\(colour)\"/>"
            text += "<rect x=\"\(r(x))\" y=\"\(r(y))\" width=\"\(r(w))\" height=\"\(r(h))\" rx=\"\(r(h / 2))\" fill=\"#ffffff\" stroke=\"\(colour)\" stroke-width=\"2\"/>"
            text += "<text x=\"\(r(x + w / 2))\" y=\"\(r(y + h / 2 + 4))\" font-size=\"11\" font-weight=\"700\" fill=\"\(colour)\" text-anchor=\"middle\">\(pin.label)</text></g>\n"
        }
        return text
    }

    /// Start (green, a play sign) and finish (dark, chequered).
    func marksSVG() -> String {
        var text = "<g class=\"mark\" transform=\"translate(\(r(finish.x)),\(r(finish.y)))\">"
        text += "<circle r=\"10\" fill=\"#24292f\" stroke=\"#ffffff\" stroke-width=\"3\"/>"
        text += "<path d=\"M-4 -4h4v4h-4zM0 0h4v4h-4z\" fill=\"#ffffff\"/></g>\n"
        text += "<g class=\"mark\" transform=\"translate(\(r(start.x)),\(r(start.y)))\">"
        text += "<circle r=\"9\" fill=\"#2da44e\" stroke=\"#ffffff\" stroke-width=\"3\"/>"
        text += "<path d=\"M-2.5 -4.5L4.5 0L-2.5 4.5Z\" fill=\"#ffffff\"/></g>\n"
        return text
    }

    /// "Start" and "Finish" on white pills.
    func labelsSVG() -> String {
        labels.map { label in
            let b = label.box, w = b.maxX - b.minX, h = b.maxY - b.minY
            return "<g class=\"label\" transform=\"translate(\(r(b.minX)),\(r(b.minY)))\">"
                + "<rect width=\"\(r(w))\" height=\"\(r(h))\" rx=\"4\" fill=\"#ffffff\" fill-opacity=\"0.92\"/>"
                + "<text x=\"\(r(w / 2))\" y=\"\(r(h / 2 + 4))\" text-anchor=\"middle\" font-size=\"12\" font-weight=\"600\" fill=\"#1f2328\">\(label.text)</text></g>\n"
        }.joined()
    }
}
