import Foundation
import Testing
import RouteLog

/// `routelog import` of a file whose routes the store holds adds nothing and says
/// which stored route each one is; `--allow-duplicates` imports them again.
@Suite struct RoutelogImportDuplicatesTests {
    @Test func aSecondImportAddsNothingUnlessAllowed() throws {
        let dir = ScratchDirectory()
        let store = dir.path("s.routelog")
        let gpx = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/gpx/commons-dost__1651066759000.gpx")
        let first = try CLI.run(["import", store.path, gpx.path, "--create"])
        #expect(first.status == 0, "\(first.stderr)")
        let second = try CLI.run(["import", store.path, gpx.path, "--json"])
        #expect(second.status == 0, "\(second.stderr)")
        let file = try #require((try parseJSON(second.stdout)["files"] as? [[String: Any]])?.first)
        #expect((file["routes"] as? [Any])?.isEmpty == true)
        let duplicates = try #require(file["duplicates"] as? [[String: Any]])
        #expect(duplicates.count == 1 && duplicates[0]["route"] as? Int == 1 && duplicates[0]["existing"] as? Int == 1)
        let text = try CLI.run(["import", store.path, gpx.path])
        #expect(text.stdout.contains("route 1 is already in the store as route 1: not imported again"), "\(text.stdout)")
        let forced = try CLI.run(["import", store.path, gpx.path, "--allow-duplicates"])
        #expect(forced.status == 0 && forced.stdout.contains("(ids 2)"), "\(forced.stdout)")
    }

    /// The summary counts the routes imported and those skipped apart, in text and JSON.
    @Test func theSummaryCountsImportedAndSkippedApart() throws {
        let dir = ScratchDirectory()
        let store = dir.path("s.routelog")
        let gpx = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/gpx")
        let dost = gpx.appendingPathComponent("commons-dost__1651066759000.gpx").path
        let visnjan = gpx.appendingPathComponent("gpxgo__visnjan.gpx").path
        #expect(try CLI.run(["import", store.path, dost, "--create"]).status == 0)
        // A file holding a stored route and a new one: one imported, one skipped.
        let both = dir.path("both.gpx")
        let a = try String(contentsOfFile: dost, encoding: .utf8), b = try String(contentsOfFile: visnjan, encoding: .utf8)
        func track(_ text: String) -> String {
            String(text[text.range(of: "<trk>")!.lowerBound..<text.range(of: "</trk>", options: .backwards)!.upperBound])
        }
        try Data(("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\" "
                  + "xmlns:gpxdata=\"http://www.cluetrust.com/XML/GPXDATA/1/0\">" + track(a) + track(b) + "</gpx>\n").utf8).write(to: both)
        let text = try CLI.run(["import", store.path, both.path])
        #expect(text.status == 0, "\(text.stderr)")
        let first = text.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first == "\(both.path): 1 route, 413 points (ids 2); skipped 1 route already stored", "\(text.stdout)")
        let again = try CLI.run(["import", store.path, both.path, visnjan, "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        let files = try #require(try parseJSON(again.stdout)["files"] as? [[String: Any]])
        #expect((files[0]["routes"] as? [Any])?.isEmpty == true)
        #expect(files[0]["points"] as? Int == 0)
        #expect(files[0]["skipped"] as? Int == 2)
        #expect(files[1]["points"] as? Int == 0 && files[1]["skipped"] as? Int == 1)
        let plain = try CLI.run(["import", store.path, visnjan])
        #expect(plain.stdout.hasPrefix("\(visnjan): 0 routes, 0 points; skipped 1 route already stored\n"), "\(plain.stdout)")
    }
}
