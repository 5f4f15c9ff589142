import Foundation
import Testing
import RouteLog
@testable import routelog

/// Names and file names are data: `ls`, `show`, `inspect`, `import` and error lines
/// print them quoted (as git quotes odd paths), so CR LF cannot break a table, ESC and
/// CSI cannot drive the terminal and a bidi override cannot reorder what is shown.
/// JSON output keeps the exact text.
@Suite struct RoutelogOutputEscapingTests {
    static let hostileNames = ["Walk\r\nHome", "\u{1B}]0;owned\u{07}\u{1B}[2J", "\u{9B}31mred", "evil\u{202E}gpj.exe", "plain \\ name"]

    @Test func quotingLeavesOrdinaryTextAloneAndEscapesTheRest() {
        #expect(TerminalText.quoted("Morning walk") == "Morning walk")
        #expect(TerminalText.quoted("Sunday \"long\" one") == "Sunday \"long\" one")
        #expect(TerminalText.quoted("C:\\walks") == "C:\\walks")
        #expect(TerminalText.quoted("Zürich 🚶‍♀️ 散歩") == "Zürich 🚶‍♀️ 散歩")
        #expect(TerminalText.quoted("Walk\r\nHome") == "\"Walk\\r\\nHome\"")
        #expect(TerminalText.quoted("\u{1B}[31mred\\") == "\"\\u{1B}[31mred\\\\\"")
        #expect(TerminalText.quoted("\u{9B}2J") == "\"\\u{9B}2J\"")
        #expect(TerminalText.quoted("evil\u{202E}gpj.exe") == "\"evil\\u{202E}gpj.exe\"")
        #expect(TerminalText.quoted("tab\there") == "\"tab\\there\"")
        // A name that looks quoted is quoted itself, so it cannot pass for an escaped one.
        #expect(TerminalText.quoted("\"A\\nB\"") == "\"\\\"A\\\\nB\\\"\"")
    }

    /// Human output may hold line feeds between lines, and nothing else a terminal obeys.
    static func expectSafe(_ output: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let bad = output.unicodeScalars.filter { $0 != "\n" && TerminalText.needsEscape($0) }
        #expect(bad.isEmpty, "raw \(bad.map { "U+" + String($0.value, radix: 16, uppercase: true) }) in \(output.debugDescription)",
                sourceLocation: sourceLocation)
    }

    func makeStore(_ scratch: ScratchDirectory) throws -> URL {
        let url = scratch.path("names.routelog")
        let store = try RouteStore(at: url)
        for (i, name) in Self.hostileNames.enumerated() {
            let start = Date(timeIntervalSince1970: 1_767_600_000 + Double(i) * 86_400)
            let points = (0..<20).map { TrackPoint(latitude: 45 + Double($0) * 1e-4, longitude: 9, timestamp: start.addingTimeInterval(Double($0))) }
            _ = try store.save(Route(points: points, metadata: RouteMetadata(name: name)))
        }
        try store.close()
        return url
    }

    @Test func lsShowAndInspectQuoteNamesAndFileNames() throws {
        let scratch = ScratchDirectory()
        let store = try makeStore(scratch)
        let ls = try CLI.run(["ls", store.path])
        #expect(ls.status == 0)
        Self.expectSafe(ls.stdout)
        let lines = ls.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 1 + Self.hostileNames.count + 3, "header, a row a route, blank, totals, end: \(lines)")
        #expect(ls.stdout.contains("\"Walk\\r\\nHome\"") && ls.stdout.contains("\"evil\\u{202E}gpj.exe\""))
        #expect(ls.stdout.contains("\"\\u{1B}]0;owned\\u{7}\\u{1B}[2J\"") && ls.stdout.contains("\"\\u{9B}31mred\""))
        #expect(ls.stdout.contains("plain \\ name"))
        for id in 1...Self.hostileNames.count {
            let show = try CLI.run(["show", store.path, "\(id)"])
            #expect(show.status == 0)
            Self.expectSafe(show.stdout)
        }
        // A file planted in the store, named to clear the screen and reverse the line.
        _ = FileManager.default.createFile(atPath: store.appendingPathComponent("x\u{1B}[2J\u{202E}txt.\u{9B}").path, contents: Data())
        let inspect = try CLI.run(["inspect", store.path])
        Self.expectSafe(inspect.stdout)
        #expect(inspect.stdout.contains("\"x\\u{1B}[2J\\u{202E}txt.\\u{9B}\""))
    }

    @Test func jsonKeepsTheExactNames() throws {
        let scratch = ScratchDirectory()
        let store = try makeStore(scratch)
        let ls = try CLI.run(["ls", store.path, "--json"])
        let routes = try #require(try parseJSON(ls.stdout)["routes"] as? [[String: Any]])
        #expect(routes.compactMap { $0["name"] as? String } == Self.hostileNames)
    }

    @Test func importQuotesFileNamesInItsLinesAndItsErrors() throws {
        let scratch = ScratchDirectory()
        let good = scratch.path("walk\u{1B}[31m\r.gpx"), bad = scratch.path("bad\u{202E}xpg.gpx")
        try Data(("<?xml version=\"1.0\"?><gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk>"
                  + "<trkseg><trkpt lat=\"1\" lon=\"1\"/></trkseg></trk></gpx>").utf8).write(to: good)
        try Data("<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><name>\u{9B}2J</name><trkseg><trkpt lat=\"0x1p4\" lon=\"1\"/>".utf8)
            .write(to: bad)
        let result = try CLI.run(["import", scratch.path("s.routelog").path, good.path, bad.path, "--create"])
        #expect(result.status == 1)
        Self.expectSafe(result.stdout)
        Self.expectSafe(result.stderr)
        #expect(result.stdout.contains("walk\\u{1B}[31m\\r.gpx\": 1 route"))
        #expect(result.stderr.contains("bad\\u{202E}xpg.gpx") && result.stderr.contains("lat=\"0x1p4\" is not a latitude"))
    }
}
