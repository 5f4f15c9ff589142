import Foundation
import Testing

/// `set`, `delete` and `compact` through the CLI, checked with the reading commands.
@Suite struct RoutelogEditCommandTests {
    func weeks(_ store: URL) throws -> [String: [String: Any]] {
        let weeks = try parseJSON(CLI.run(["weeks", store.path, "--json"]).stdout)["weeks"] as! [[String: Any]]
        return Dictionary(uniqueKeysWithValues: weeks.map { ($0["weekStartDay"] as! String, $0) })
    }

    func summary(_ store: URL, _ id: Int) throws -> [String: Any] {
        try parseJSON(CLI.run(["show", store.path, "\(id)", "--json"]).stdout)["route"] as! [String: Any]
    }

    @Test func shiftingBySevenDaysMovesARouteToTheNextWeek() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let before = try weeks(store)
        #expect(before["2026-01-05"]?["routeCount"] as? Int == 3)
        #expect(before["2026-01-12"]?["routeCount"] as? Int == 1)

        let result = try CLI.run(["set", store.path, "2", "--shift", "7d"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Wed 2026-01-07 18:00:00  Wed 2026-01-14 18:00:00"), "\(result.stdout)")
        let after = try weeks(store)
        #expect(after["2026-01-05"]?["routeCount"] as? Int == 2)
        #expect(after["2026-01-12"]?["routeCount"] as? Int == 2)
        let moved = (before["2026-01-05"]!["distanceMetres"] as! Double) - (after["2026-01-05"]!["distanceMetres"] as! Double)
        #expect(abs(moved - (try summary(store, 2)["distanceMetres"] as! Double)) < 0.02)

        // And back, with the --flag=value form and a negative duration.
        #expect(try CLI.run(["set", store.path, "2", "--shift=-7d"]).status == 0)
        #expect(try summary(store, 2)["startDate"] as? String == "2026-01-07T18:00:00.002Z")
    }

    @Test func startNameCaloriesAndDistance() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let result = try CLI.run(["set", store.path, "1", "--start", "2026-02-01T09:00:00+01:00", "--name", "Renamed",
                                  "--calories", "321", "--distance", "4200", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let route = try parseJSON(result.stdout)["route"] as! [String: Any]
        #expect(route["startDate"] as? String == "2026-02-01T08:00:00.000Z")
        #expect(route["name"] as? String == "Renamed")
        #expect(route["calories"] as? Double == 321)
        #expect(route["distanceMetres"] as? Double == 4200)
        #expect(try summary(store, 1)["name"] as? String == "Renamed")
        // A day without a time is local midnight (TZ=UTC here).
        #expect(try CLI.run(["set", store.path, "1", "--start", "2026-03-01"]).status == 0)
        #expect(try summary(store, 1)["startDate"] as? String == "2026-03-01T00:00:00.000Z")
        // An empty name removes it.
        #expect(try CLI.run(["set", store.path, "1", "--name", ""]).status == 0)
        #expect(try summary(store, 1)["name"] is NSNull)
        // The library's own checks come back as one line, exit 1.
        let far = try CLI.run(["set", store.path, "1", "--start", "2300-01-01"])
        #expect(far.status == 1)
        #expect(far.stderr.hasPrefix("routelog: the edit would move the route to"))
    }

    @Test func deleteThenCompactReclaimsTheSpace() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let deleted = try CLI.run(["delete", store.path, "1", "3", "1", "--json"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect((try parseJSON(deleted.stdout)["deleted"] as! [[String: Any]]).map { $0["id"] as! Int } == [1, 3])
        let ids = (try parseJSON(CLI.run(["ls", store.path, "--json"]).stdout)["routes"] as! [[String: Any]]).map { $0["id"] as! Int }
        #expect(ids == [2, 5])
        let inspect = try parseJSON(CLI.run(["inspect", store.path, "--json"]).stdout)
        #expect(inspect["deletedRoutes"] as? Int == 3)
        #expect((inspect["deadBytes"] as! Int) > 0)

        let compact = try CLI.run(["compact", store.path, "--json"])
        #expect(compact.status == 0, "\(compact.stderr)")
        #expect(compact.stderr.isEmpty)
        let report = try parseJSON(compact.stdout)
        #expect(report["recordsMoved"] as? Int == 2)
        #expect((report["bytesReclaimed"] as! Int) > 0)
        let after = try parseJSON(CLI.run(["inspect", store.path, "--json"]).stdout)
        #expect(after["deadBytes"] as? Int == 0)
        #expect(after["liveRoutes"] as? Int == 2)
        #expect(try CLI.run(["verify", store.path]).status == 0)
        let human = try CLI.run(["compact", store.path])
        #expect(human.stdout.contains("reclaimed"))
    }
}
