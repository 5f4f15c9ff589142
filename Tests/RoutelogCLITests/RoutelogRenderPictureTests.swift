import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// `render`: a well-formed SVG with the track, the marks, a pin per unit and a scale bar.
@Suite struct RoutelogRenderPictureTests {
    /// Counts elements by name and collects text.
    final class SVGCensus: NSObject, XMLParserDelegate {
        var elements: [String: Int] = [:]
        /// Each element's own text, followed by "|".
        var text = "|"
        private var current = ""
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            elements[name, default: 0] += 1
            flush()
        }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) { flush() }
        func parser(_ parser: XMLParser, foundCharacters string: String) { current += string }
        private func flush() {
            if !current.isEmpty { text += current + "|" }
            current = ""
        }
    }

    func census(_ url: URL) throws -> SVGCensus {
        let parser = XMLParser(data: try Data(contentsOf: url))
        let census = SVGCensus()
        parser.delegate = census
        #expect(parser.parse(), "the SVG must be well-formed XML: \(String(describing: parser.parserError))")
        return census
    }

    @Test func kilometrePinsTitleAndScale() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let output = dir.path("route.svg")
        let result = try CLI.run(["render", store.path, "3", "-o", output.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "wrote route 3 to \(output.path)\n")
        // The pins stand where the app's kilometre splits say.
        let splits = try parseJSON(CLI.run(["show", store.path, "3", "--json"]).stdout)["splits"] as! [[String: Any]]
        let kilometres = splits.filter { $0["unit"] as? String == "km" }.count
        let svg = try census(output)
        #expect(kilometres >= 3)
        let text = try String(contentsOf: output, encoding: .utf8)
        // One group per pin, at every kilometre of this short walk.
        #expect(text.components(separatedBy: "<g class=\"pin\"").count - 1 == kilometres, "\(svg.elements)")
        #expect(text.components(separatedBy: "stroke-width=\"4.5\"").count - 1 == 1, "one track line over one casing")
        #expect(text.contains(">Elevation<") && text.contains(">Speed<"), "the walk has altitudes and times")
        for k in 1...kilometres { #expect(svg.text.contains("|\(k)|")) }
        #expect(svg.text.contains("Sunday \"long\" one"))
        #expect(svg.text.contains("Sun 2026-01-11 20:15"))
        #expect(svg.text.contains("Start") && svg.text.contains("Finish"))
        #expect(svg.text.contains(" m|") || svg.text.contains(" km|"), "a scale bar caption")
    }

    @Test func milePinsAndStdout() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let result = try CLI.run(["render", store.path, "3", "-o", "-", "--units", "mi"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("<svg "))
        #expect(result.stdout.contains(">mi</tspan>"))
        #expect(result.stdout.contains("/mi</tspan>"))
    }

    @Test func aTinyRouteStillRenders() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let output = dir.path("tiny.svg")
        #expect(try CLI.run(["render", store.path, "5", "-o", output.path]).status == 0)
        let svg = try census(output)
        #expect(svg.elements["polyline"]! >= 2)
        #expect(!svg.text.contains("nan") && !svg.text.contains("inf"))
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(!text.contains("nan") && !text.contains("inf"))
    }

    @Test func anUnwritableOutputIsOneLine() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let output = dir.path("no/such/dir/x.svg")
        let result = try CLI.run(["render", store.path, "3", "-o", output.path])
        #expect(result.status == 1)
        #expect(result.stderr == "routelog: cannot write the picture (\(output.path)): check that the directory exists and is writable\n")
    }
}
