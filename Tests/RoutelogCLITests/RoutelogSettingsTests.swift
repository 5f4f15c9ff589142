import Foundation
import Testing
import RouteLog

/// `routelog settings STORE`: shows and changes the privacy zones kept in the store, and
/// `dump` applies them unless `--no-stored-zones`.
@Suite struct RoutelogSettingsTests {
    @Test func zonesAreAddedListedAppliedAndRemoved() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let empty = try CLI.run(["settings", store.path])
        #expect(empty.status == 0 && empty.stdout == "privacy zones: none\n", "\(empty.stderr)")
        let first = try RouteStore(at: store, options: .init(mode: .readOnly)).route(RouteID(1)).points[0].coordinate
        let zone = "\(first.latitude),\(first.longitude),150"
        let added = try CLI.run(["settings", store.path, "--privacy-zone", zone, "--json"])
        #expect(added.status == 0, "\(added.stderr)")
        let zones = try #require(try parseJSON(added.stdout)["privacyZones"] as? [[String: Any]])
        #expect(zones.count == 1 && zones[0]["radius"] as? Int == 150)

        let trimmed = try CLI.run(["dump", store.path, "1"])
        let whole = try CLI.run(["dump", store.path, "1", "--no-stored-zones"])
        #expect(whole.stdout.split(separator: "\n").count == 1501)
        #expect(trimmed.stdout.split(separator: "\n").count < 1501, "the kept zone trims the dump")

        let wrong = try CLI.run(["settings", store.path, "--remove-privacy-zone", "1,1,1"])
        #expect(wrong.status == 1 && wrong.stderr.contains("keeps no privacy zone 1,1,1"))
        let listed = try CLI.run(["settings", store.path])
        let shown = listed.stdout.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let removed = try CLI.run(["settings", store.path, "--remove-privacy-zone", shown])
        #expect(removed.status == 0 && removed.stdout == "privacy zones: none\n", "\(removed.stderr)")
    }

    @Test func aBadZoneIsAUsageErrorAndChangesNothing() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let bad = try CLI.run(["settings", store.path, "--privacy-zone", "95,0,10"])
        #expect(bad.status == 2 && bad.stderr.contains("bad privacy zone '95,0,10' for --privacy-zone"))
        #expect(try RouteStore(at: store, options: .init(mode: .readOnly)).settings() == StoreSettings())
    }
}
