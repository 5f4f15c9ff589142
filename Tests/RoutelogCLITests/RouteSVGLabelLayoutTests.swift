import Foundation
import Testing
import RouteLog
@testable import routelog

/// Route pictures at any length and in either orientation, checked geometrically: the
/// SVG is parsed and no label (pin or Start/Finish) may touch another label or a mark.
@Suite struct RouteSVGLabelLayoutTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var kilometres: Double
        var bearing: Double
        var testDescription: String { name }
    }

    static let generated: [Case] = [
        Case(name: "1 km north", kilometres: 1, bearing: 0),
        Case(name: "12.8 km east", kilometres: 12.8, bearing: 90),
        Case(name: "318 km north-east", kilometres: 318, bearing: 45),
        Case(name: "1597 km east, wide", kilometres: 1597, bearing: 95),
        Case(name: "1597 km north, tall", kilometres: 1597, bearing: 2),
        Case(name: "60 km south-west", kilometres: 60, bearing: 225),
    ]

    /// Every pair of labels, and every label against every mark, apart.
    static func checkNoOverlaps(_ svg: String, _ name: String, checkScaleAgainstMarks: Bool = true) -> SVGBoxes {
        let boxes = SVGBoxes.read(svg)
        let labels = boxes.items("pin") + boxes.items("label")
        let marks = boxes.items("mark")
        #expect(marks.count == 2, "\(name): start and finish")
        for (i, a) in labels.enumerated() {
            for b in labels[(i + 1)...] {
                #expect(!a.box.overlaps(b.box), "\(name): '\(a.text)' overlaps '\(b.text)'")
            }
            for mark in marks {
                #expect(!a.box.overlaps(mark.box), "\(name): '\(a.text)' covers a mark")
            }
        }
        // The scale bar keeps off the labels, and off the marks when a corner is free.
        for part in boxes.items("scale") {
            #expect(!labels.contains { $0.box.overlaps(part.box) }, "\(name): a label under the scale bar")
            if checkScaleAgainstMarks { #expect(!marks.contains { $0.box.overlaps(part.box) }, "\(name): the scale bar covers a mark") }
        }
        return boxes
    }

    @Test(arguments: generated)
    func labelsNeverOverlapAndPinsAreSpacedByLength(_ c: Case) throws {
        let (summary, route) = PictureRoutes.generated(kilometres: c.kilometres, bearing: c.bearing)
        let picture = RouteSVG(summary: summary, route: route, units: .kilometres)
        let svg = picture.render()
        let boxes = Self.checkNoOverlaps(svg, c.name)
        let pins = boxes.items("pin").map(\.text)
        let numbers = pins.flatMap { $0.split(separator: "·").compactMap { Int($0) } }
        let spacing = svg.range(of: "pins every ").flatMap { Int(svg[$0.upperBound...].prefix { $0.isNumber }) }
        #expect(spacing.map { PinLayout.spacings.contains($0) } ?? (c.kilometres < 1.01), "\(c.name): spacing \(String(describing: spacing))")
        if let spacing {
            #expect(numbers.allSatisfy { $0 % spacing == 0 }, "\(c.name): \(pins)")
            #expect(numbers.count <= PinLayout.maximumPins)
            #expect(Double(numbers.count) >= c.kilometres / Double(spacing) - 3, "\(c.name): \(numbers.count) pins every \(spacing) km")
        }
        // The longer the route, the wider the spacing: never a strip of numbers.
        if c.kilometres >= 300 { #expect((spacing ?? 0) >= 20, "\(c.name)") }
        if c.kilometres <= 13 { #expect((spacing ?? 1) <= 1, "\(c.name)") }
    }

    @Test(arguments: generated)
    func theMapFillsTheCardInEitherOrientation(_ c: Case) throws {
        let (summary, route) = PictureRoutes.generated(kilometres: c.kilometres, bearing: c.bearing)
        let picture = RouteSVG(summary: summary, route: route, units: .kilometres)
        let f = picture.mapFrame
        let projection = MapProjection(fitting: summary.boundingBox, into: f)
        let projected = route.points.map { projection.point($0.coordinate) }
        let spanX = projected.map(\.x).max()! - projected.map(\.x).min()!
        let spanY = projected.map(\.y).max()! - projected.map(\.y).min()!
        let fillX = spanX / f.width, fillY = spanY / f.height
        // The long side fills the frame less its margins, and the short side too unless
        // the card reached its limit (a very thin route).
        #expect(max(fillX, fillY) > 0.8, "\(c.name): fills \(fillX) x \(fillY)")
        if f.height > RouteSVG.minimumMapHeight && f.height < RouteSVG.maximumMapHeight {
            #expect(min(fillX, fillY) > 0.8, "\(c.name): fills \(fillX) x \(fillY) of a \(f.width)x\(f.height) map")
        }
        if spanY > spanX * 1.5 { #expect(f.height > f.width, "\(c.name): a tall route gets a tall map") }
        if spanX > spanY * 2 { #expect(f.height < f.width * 0.6, "\(c.name): a wide route gets a low map") }
    }

    @Test func realTracksOfEveryLength() throws {
        let tracks = [("gpxgo__visnjan.gpx", 0), ("commons-dost__1651066759000.gpx", 0), ("dougfales__big.gpx", 0),
                      ("gpsbabel__dg100.gpx", 0), ("gpxpy__cerknicko-jezero.gpx", 0), ("dougfales__tracks.gpx", 1)]
        var drawn = 0
        for (file, index) in tracks {
            guard let (summary, route) = try PictureRoutes.real(file, route: index) else {
                print("note: \(file) is absent (../shared/data/gpx); its picture is not checked")
                continue
            }
            for units in [DistanceUnit.kilometres, .miles] {
                _ = Self.checkNoOverlaps(RouteSVG(summary: summary, route: route, units: units).render(), "\(file) in \(units)")
            }
            drawn += 1
        }
        #expect(drawn >= 5)
    }

    @Test func loopsThatPassTheSamePlaceShareALabel() throws {
        // Out and back along the same line: the pins of the way back stand on those of the way out.
        let (_, out) = PictureRoutes.generated(kilometres: 6, bearing: 0, wiggle: 0)
        var back = out.points.reversed().dropFirst().map { $0 }
        for i in back.indices { back[i].timestamp = out.points.last!.timestamp.addingTimeInterval(Double(i + 1) * 20) }
        let (summary, route) = PictureRoutes.summarize(Route(points: out.points + back))
        let svg = RouteSVG(summary: summary, route: route, units: .kilometres).render()
        let boxes = Self.checkNoOverlaps(svg, "out and back")
        #expect(boxes.items("pin").contains { $0.text.contains("·") }, "\(boxes.items("pin").map(\.text))")
    }

    @Test func unknownFiguresAreLeftOutAndKnownOnesShown() throws {
        let (summary, route) = PictureRoutes.generated(kilometres: 5, bearing: 30)
        let bare = RouteSVG(summary: summary, route: route, units: .kilometres).render()
        #expect(!bare.contains("kcal"), "no calories: no tile")
        #expect(bare.contains(">Elevation<") && bare.contains(">Speed<"))
        let withCalories = RouteSVG(summary: summary, route: route, units: .kilometres, calories: 312).render()
        #expect(withCalories.contains(">312<tspan") && withCalories.contains(">Calories<"))
        // No altitude, no time: no climb, no elevation, no duration, no pace, no speed.
        let flat = Route(points: route.points.map { TrackPoint(latitude: $0.latitude, longitude: $0.longitude, timestamp: route.points[0].timestamp) })
        let (flatSummary, _) = PictureRoutes.summarize(flat)
        let untimed = RouteSVG(summary: flatSummary, route: flat, units: .kilometres).render()
        for absent in [">Elevation<", ">Speed<", ">Duration<", ">Average pace<", ">Climb<", "kcal", "0:00"] {
            #expect(!untimed.contains(absent), "an untimed route without altitude shows no \(absent)")
        }
        #expect(untimed.contains(">Distance<"))
        #expect(SVGBoxes.read(untimed).height < SVGBoxes.read(bare).height, "no charts: a shorter card")
    }

    @Test func barScalesCutOutliersAndKeepTheRest() {
        let weeks = [30.0, 35, 28, 41, 33, 1597, 37, 29, 31, 36, 0]
        let scale = BarScale(weeks)
        #expect(scale.top == 41)
        #expect(scale.isCut(1597) && !scale.isCut(41))
        #expect(scale.fraction(41) == 1 && abs(scale.fraction(20.5) - 0.5) < 1e-12)
        #expect(BarScale([10, 9, 8, 7, 6]).top == 10, "no jump: nothing cut")
        #expect(BarScale([100, 1]).top == 100, "too few values to call one an outlier")
        #expect(BarScale([]).top == 0 && BarScale([]).fraction(5) == 0)
        #expect(scale.ticks.first == 0 && scale.ticks.last! >= 41 && scale.ticks.count <= 6)
    }
}
