import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import RouteLog
@testable import routelog

/// Routes of any length and shape for the picture tests, and an SVG reader that finds
/// the labels and marks a person would see.
enum PictureRoutes {
    /// A route of about `kilometres`, a point every `step` metres at 5 m/s, heading along
    /// `bearing` degrees (0 north, 90 east) with a wiggle across it, and an altitude
    /// that climbs and falls.
    static func generated(kilometres: Double, bearing: Double, step: Double = 100, wiggle: Double = 0.1,
                          name: String? = nil, calories: Double? = nil) -> (RouteSummary, Route) {
        let count = Int(kilometres * 1000 / step) + 1
        let start = Date(timeIntervalSince1970: 1_767_600_000)
        let b = bearing * .pi / 180
        let points = (0..<count).map { i -> TrackPoint in
            let along = Double(i) * step
            let across = sin(along / 5000) * along * wiggle
            let north = along * cos(b) - across * sin(b), east = along * sin(b) + across * cos(b)
            let latitude = 45 + north / 111_132
            return TrackPoint(latitude: latitude, longitude: 9 + east / (111_320 * cos(latitude * .pi / 180)),
                              timestamp: start.addingTimeInterval(along / 5), altitude: 300 + 200 * sin(along / 20_000))
        }
        return summarize(Route(points: points, metadata: RouteMetadata(name: name, calories: calories)))
    }

    /// The route and a summary as the store would make it.
    static func summarize(_ route: Route, id: RouteID = RouteID(1)) -> (RouteSummary, Route) {
        (ExportedRoute.measuredSummary(route, id: id), route)
    }

    /// A real track of Tests/Fixtures/gpx (or ../shared/data/gpx), by file and route number.
    static func real(_ file: String, route index: Int = 0) throws -> (RouteSummary, Route)? {
        var url = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/gpx/\(file)")
        if !FileManager.default.fileExists(atPath: url.path) {
            url = CLI.packageRoot.appendingPathComponent("../shared/data/gpx/\(file)").standardizedFileURL
        }
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let routes = try GPXImporter.read(contentsOf: url).routes
        return summarize(RouteCodec.quantize(routes[index]))
    }
}

/// What the SVG draws, as boxes on the picture: each pin's pill, each mark's disc, each
/// label's pill and the scale bar's parts, read from the `<g class=...>` groups
/// (translate plus rect or circle).
final class SVGBoxes: NSObject, XMLParserDelegate {
    struct Item {
        var kind: String
        var box: Box
        var text = ""
    }

    private(set) var items: [Item] = []
    private(set) var texts: [String] = []
    private(set) var width = 0.0, height = 0.0
    private var group: (kind: String, x: Double, y: Double)?
    private var inText = false

    static func read(_ svg: String) -> SVGBoxes {
        let reader = SVGBoxes()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = reader
        precondition(parser.parse(), "the SVG must be well-formed: \(String(describing: parser.parserError))")
        return reader
    }

    func items(_ kind: String) -> [Item] { items.filter { $0.kind == kind } }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes a: [String: String] = [:]) {
        func number(_ key: String) -> Double { Double(a[key] ?? "") ?? 0 }
        switch name {
        case "svg":
            width = number("width")
            height = number("height")
        case "g":
            if let kind = a["class"], ["pin", "mark", "label"].contains(kind), let t = a["transform"] {
                let numbers = t.dropFirst("translate(".count).dropLast().split(separator: ",").compactMap { Double($0) }
                group = (kind, numbers[0], numbers[1])
            } else if a["class"] == "scale" {
                group = ("scale", 0, 0)
            }
        case "rect" where group != nil && group!.kind != "mark":
            let g = group!
            items.append(Item(kind: g.kind, box: Box(minX: g.x + number("x"), minY: g.y + number("y"),
                                                     maxX: g.x + number("x") + number("width"), maxY: g.y + number("y") + number("height"))))
        case "circle" where group?.kind == "mark":
            let g = group!, radius = number("r") + 1.5  // half the white stroke
            items.append(Item(kind: "mark", box: Box(around: (g.x, g.y), half: radius)))
        case "text":
            inText = true
            texts.append("")
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard inText else { return }
        texts[texts.count - 1] += string
        if let g = group, g.kind != "mark", !items.isEmpty { items[items.count - 1].text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "g" { group = nil }
        if name == "text" { inText = false }
    }
}
