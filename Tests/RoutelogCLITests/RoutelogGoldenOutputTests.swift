import Foundation
import Testing

/// `--json` (and a few tables) on the fixture store, compared with files under Golden/.
/// The fixture is made the same way every time and the CLI runs with TZ=UTC.
@Suite struct RoutelogGoldenOutputTests {
    static let goldenRuns: [(String, [String])] = [
        ("inspect.json", ["inspect", "STORE", "--json"]),
        ("ls.json", ["ls", "STORE", "--json"]),
        ("ls-range.json", ["ls", "STORE", "--from", "2026-01-06", "--to", "2026-01-11", "--json"]),
        ("weeks.json", ["weeks", "STORE", "--json"]),
        ("show-1.json", ["show", "STORE", "1", "--json"]),
        ("dump-5.json", ["dump", "STORE", "5", "--format", "json"]),
        ("dump-5.csv", ["dump", "STORE", "5"]),
        ("verify.json", ["verify", "STORE", "--json"]),
        ("ls.txt", ["ls", "STORE"]),
        ("ls-mi.txt", ["ls", "STORE", "--units", "mi"]),
        ("weeks.txt", ["weeks", "STORE"]),
        ("show-1.txt", ["show", "STORE", "1"]),
    ]

    @Test(arguments: goldenRuns)
    func outputMatchesGolden(_ name: String, _ arguments: [String]) throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("fixture.routelog")).url
        let result = try CLI.run(arguments.map { $0 == "STORE" ? store.path : $0 })
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        try Golden.check(name, result.stdout)
    }

    @Test func localDatesFollowTheTimeZone() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("fixture.routelog")).url
        // Route 3 starts on Sunday 2026-01-11 at 20:15 UTC: Monday 05:15 in Tokyo, so
        // in Tokyo it belongs to the next week; JSON dates stay in UTC.
        let tokyo = try parseJSON(CLI.run(["weeks", store.path, "--json"], timeZone: "Asia/Tokyo").stdout)
        let weeks = tokyo["weeks"] as! [[String: Any]]
        #expect(weeks.map { $0["weekStartDay"] as! String } == ["2026-01-12", "2026-01-05"])
        #expect(weeks.map { $0["routeCount"] as! Int } == [2, 2])
        #expect(weeks[0]["weekStart"] as? String == "2026-01-11T15:00:00.000Z")
        let ls = try CLI.run(["ls", store.path], timeZone: "Asia/Tokyo").stdout
        #expect(ls.contains("Mon 2026-01-12  05:15"))
    }

    @Test func aSummaryHasTheSameFieldsUnderEveryCommand() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("fixture.routelog")).url
        let ls = try parseJSON(CLI.run(["ls", store.path, "--json"]).stdout)
        let fromList = (ls["routes"] as! [[String: Any]]).first { $0["id"] as? Int == 5 }!
        let fromShow = try parseJSON(CLI.run(["show", store.path, "5", "--json"]).stdout)["route"] as! [String: Any]
        let fromDump = try parseJSON(CLI.run(["dump", store.path, "5", "--json"]).stdout)["route"] as! [String: Any]
        let fromSet = try parseJSON(CLI.run(["set", store.path, "5", "--name", "Tiny", "--json"]).stdout)["route"] as! [String: Any]
        for other in [fromShow, fromDump, fromSet] {
            #expect(NSDictionary(dictionary: other).isEqual(to: fromList))
        }
        #expect(Array(fromList.keys).sorted() == ["activity", "averageSpeedMetresPerSecond", "boundingBox", "calories",
                                                  "distanceMetres", "durationSeconds", "endCoordinate", "endDate", "id", "name",
                                                  "pointCount", "startCoordinate", "startDate", "stats"])
    }
}
