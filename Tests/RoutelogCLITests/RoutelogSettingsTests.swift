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

    /// The same zone given twice (or given again later) is kept once.
    @Test func theSameZoneTwiceIsKeptOnce() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let twice = try CLI.run(["settings", store.path, "--privacy-zone", "45.5,9.2,100", "--privacy-zone", "45.50,9.2,100.0",
                                 "--privacy-zone", "45.6,9.2,100"])
        #expect(twice.status == 0, "\(twice.stderr)")
        #expect(twice.stdout == "privacy zones:\n  45.5,9.2,100\n  45.6,9.2,100\n")
        let again = try CLI.run(["settings", store.path, "--privacy-zone", "45.5,9.2,100"])
        #expect(again.stdout == twice.stdout)
        #expect(try RouteStore(readOnlyAt: store).settings().privacyZones.count == 2)
    }

    /// More zones than a store keeps: a usage error (exit 2) before anything is opened
    /// or changed, on every command that takes --privacy-zone.
    @Test func moreThan64ZonesAreAUsageError() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let zones = (0..<65).flatMap { ["--privacy-zone", "45.\($0 + 100),9.2,100"] }
        for command in [["settings", store.path], ["dump", store.path, "1"], ["render", store.path, "1", "-o", "-"],
                        ["export", store.path, dir.path("out").path]] {
            let result = try CLI.run(command + zones)
            #expect(result.status == 2, "\(command[0]): \(result.stderr)")
            #expect(result.stderr.hasPrefix("routelog: 65 privacy zones given; at most 64 are allowed"), "\(command[0]): \(result.stderr)")
        }
        #expect(try RouteStore(readOnlyAt: store).settings() == StoreSettings())
        #expect(!FileManager.default.fileExists(atPath: dir.path("out").path))
        // 64 distinct zones are kept; one more, given apart, is refused the same way.
        let sixtyFour = try CLI.run(["settings", store.path] + zones.dropLast(2) + ["--privacy-zone", "45.100,9.2,100"])
        #expect(sixtyFour.status == 0, "\(sixtyFour.stderr)")
        #expect(try RouteStore(readOnlyAt: store).settings().privacyZones.count == 64)
        let more = try CLI.run(["settings", store.path, "--privacy-zone", "1,1,1"])
        #expect(more.status == 2)
        #expect(more.stderr.hasPrefix("routelog: the store would keep 65 privacy zones; at most 64 are allowed"), "\(more.stderr)")
        #expect(try RouteStore(readOnlyAt: store).settings().privacyZones.count == 64)
    }
}
