import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import RouteLog
import RouteLogSamples

/// `routelog chart` and `routelog weeks`: totals as bars on a scale an outlier does not flatten.
@Suite struct RoutelogChartCommandTests {
    /// Ten weeks of walks from Monday 2026-01-05 (one a day, about 4 km), and in the
    /// fourth week one 900 km ride (the app's distance).
    static func makeStore(_ dir: ScratchDirectory) throws -> URL {
        let url = dir.path("s.routelog")
        let store = try RouteStore(at: url)
        var generator = WalkGenerator(seed: 7)
        let monday = Date(timeIntervalSince1970: 1_767_571_200)  // 2026-01-05T00:00:00Z
        for day in 0..<70 where day % 7 != 6 {
            try store.save(generator.walk(points: 600, start: monday.addingTimeInterval(Double(day) * 86_400 + 28_800)))
        }
        var ride = generator.walk(points: 600, start: monday.addingTimeInterval(22 * 86_400 + 50_000))
        ride.metadata.distance = 900_000
        try store.save(ride)
        try store.close()
        return url
    }

    /// The bars of each panel: (value, height, cut).
    final class Bars: NSObject, XMLParserDelegate {
        var panels: [String: [(value: Double, height: Double, cut: Bool)]] = [:]
        var cutLabels: [String] = []
        private var panel = "", inCutLabel = false
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes a: [String: String] = [:]) {
            if name == "g", let title = a["data-title"] { panel = title }
            if name == "rect", let kind = a["class"], kind.hasPrefix("bar") {
                panels[panel, default: []].append((Double(a["data-value"]!)!, Double(a["height"]!)!, kind == "bar cut"))
            }
            inCutLabel = name == "text" && a["class"] == "cut-value"
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { if inCutLabel { cutLabels.append(string) } }
    }

    static func bars(_ svg: String) throws -> Bars {
        let parser = XMLParser(data: Data(svg.utf8))
        let bars = Bars()
        parser.delegate = bars
        #expect(parser.parse())
        return bars
    }

    @Test func anOutlierWeekIsCutAndTheOthersKeepTheirHeight() throws {
        let dir = ScratchDirectory()
        let store = try Self.makeStore(dir)
        let output = dir.path("weeks.svg")
        let result = try CLI.run(["chart", store.path, "--by", "week", "-o", output.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "wrote 10 weeks to \(output.path)\n")
        let bars = try Self.bars(String(contentsOf: output, encoding: .utf8))
        let distance = try #require(bars.panels["Distance"])
        #expect(distance.count == 10)
        let cut = distance.filter(\.cut)
        #expect(cut.count == 1 && cut[0].value > 900, "the 900 km week is cut: \(cut)")
        #expect(bars.cutLabels.contains { $0.hasPrefix("9") && $0.hasSuffix(" km") }, "its value is written: \(bars.cutLabels)")
        let kept = distance.filter { !$0.cut }
        let tallestBar = kept.max { $0.height < $1.height }!
        let pixelsPerKilometre = tallestBar.height / tallestBar.value
        for bar in kept {
            #expect(abs(bar.height - bar.value * pixelsPerKilometre) < 0.15, "the other weeks share one linear scale: \(bar)")
        }
        let tallest = tallestBar.height
        #expect(tallest > 0.5 * 114, "the longest ordinary week fills over half the plot, not a sliver: \(tallest)")
        #expect(cut[0].height > tallest)
        #expect(bars.panels["Routes"]?.map(\.value) == [6, 6, 6, 7, 6, 6, 6, 6, 6, 6])
        #expect(bars.panels["Routes"]?.contains { $0.cut } == false)
    }

    @Test func monthsYearsStdoutAndMistakes() throws {
        let dir = ScratchDirectory()
        let store = try Self.makeStore(dir)
        let months = try CLI.run(["chart", store.path, "--by", "month", "-o", "-"])
        #expect(months.status == 0 && months.stdout.hasPrefix("<svg "))
        #expect(try Self.bars(months.stdout).panels["Distance"]?.count == 3, "January to March")
        let years = try CLI.run(["chart", store.path, "--by=year", "-o", "-", "--units", "mi"])
        #expect(try Self.bars(years.stdout).panels["Distance"]?.count == 1)
        #expect(years.stdout.contains(">mi</tspan>"))
        let last = try CLI.run(["chart", store.path, "-o", "-", "--last", "4"])
        #expect(try Self.bars(last.stdout).panels["Routes"]?.count == 4)
        for (arguments, message) in [(["--by", "day", "-o", "x.svg"], "routelog: bad period 'day' for --by: use week, month or year"),
                                     (["--by", "week"], "routelog: missing -o FILE.svg"),
                                     (["-o", "x.svg", "--last", "0"], "routelog: bad count '0' for --last")] {
            let result = try CLI.run(["chart", store.path] + arguments)
            #expect(result.status == 2 && result.stderr.hasPrefix(message), "\(result.stderr)")
        }
    }

    @Test func weeksMarksTheOutlierAndLimitsTheRows() throws {
        let dir = ScratchDirectory()
        let store = try Self.makeStore(dir)
        let weeks = try CLI.run(["weeks", store.path])
        let rows = weeks.stdout.split(separator: "\n").filter { $0.hasPrefix("2026-W") }
        #expect(rows.count == 10)
        let outlier = try #require(rows.first { $0.contains("2026-W05") })
        #expect(outlier.hasSuffix("████████████████████»"))
        #expect(rows.filter { $0.hasSuffix("»") }.count == 1)
        #expect(rows.contains { $0.hasSuffix("████████████████████") }, "the longest ordinary week is drawn full")
        let limited = try CLI.run(["weeks", store.path, "--limit", "3"])
        #expect(limited.stdout.split(separator: "\n").filter { $0.hasPrefix("2026-W") }.count == 3)
        #expect(limited.stdout.hasSuffix(weeks.stdout.split(separator: "\n").last! + "\n"), "the totals still count every route")
        let json = try parseJSON(CLI.run(["weeks", store.path, "--limit", "2", "--json"]).stdout)
        #expect((json["weeks"] as? [Any])?.count == 2)
    }
}
