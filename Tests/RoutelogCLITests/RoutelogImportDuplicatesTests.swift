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
}
