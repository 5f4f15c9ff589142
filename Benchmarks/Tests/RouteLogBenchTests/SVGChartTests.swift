import Foundation
import Testing
@testable import routelog_bench
#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite struct SVGChartTests {
    /// Counts elements while parsing; parsing fails on any malformed XML.
    final class ElementCounter: NSObject, XMLParserDelegate {
        var counts: [String: Int] = [:]
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            counts[name, default: 0] += 1
        }
    }

    @Test func chartIsWellFormedXMLWithOneLinePerEngine() throws {
        let chart = SVGChart(title: "Save <latency> & more", subtitle: "test", series: [
            .init(name: "A & B", color: "#000000", p50: [(100, 1e-3), (1_000, 1.1e-3), (100_000, 1.2e-3)],
                  p99: [(100, 2e-3), (1_000, 2e-3), (100_000, 3e-3)]),
            .init(name: "C", color: "#ff0000", p50: [(100, 0.5), (1_000, 4)], p99: [(100, 0.6), (1_000, 5)]),
        ])
        let svg = chart.render()
        let parser = XMLParser(data: Data(svg.utf8))
        let counter = ElementCounter()
        parser.delegate = counter
        #expect(parser.parse(), "parse error: \(String(describing: parser.parserError))")
        #expect(counter.counts["svg"] == 1)
        // Two polylines (p50 and p99) per series, one marker per p50 point.
        #expect(counter.counts["polyline"] == 4)
        #expect(counter.counts["circle"] == 5)
        #expect(svg.contains("A &amp; B"))
    }

    @Test func decadeLabels() {
        #expect(SVGChart.countLabel(2) == "100")
        #expect(SVGChart.countLabel(5) == "100k")
        #expect(SVGChart.timeLabel(-3) == "1 ms")
        #expect(SVGChart.timeLabel(-5) == "10 µs")
        #expect(SVGChart.timeLabel(0) == "1 s")
    }
}
