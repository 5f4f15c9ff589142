import Foundation
import Testing
import RouteLog

/// `--privacy-zone` on `dump`, `export` and `render`, on a real track.
@Suite struct RoutelogPrivacyZoneCommandTests {
    /// A store holding the real walk gpxgo__visnjan.gpx (route 1) and a walk elsewhere (route 2).
    static func makeStore(_ dir: ScratchDirectory) throws -> (URL, Route) {
        let url = dir.path("s.routelog")
        let gpx = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/gpx")
        let result = try CLI.run(["import", url.path, gpx.appendingPathComponent("gpxgo__visnjan.gpx").path,
                                  gpx.appendingPathComponent("georust__garmin-activity.gpx").path, "--create"])
        #expect(result.status == 0, "\(result.stderr)")
        return (url, try RouteStore(readOnlyAt: url).route(RouteID(1)))
    }

    static func zoneArgument(_ c: Coordinate, _ metres: Int) -> String { "\(c.latitude),\(c.longitude),\(metres)" }

    @Test func dumpStartsOutsideAZoneCentredAtTheFirstPoint() throws {
        let dir = ScratchDirectory()
        let (store, route) = try Self.makeStore(dir)
        let home = route.points[0].coordinate
        let zone = try PrivacyZone(center: home, radius: 300)
        let csv = try CLI.run(["dump", store.path, "1", "--privacy-zone", Self.zoneArgument(home, 300)])
        #expect(csv.status == 0, "\(csv.stderr)")
        let rows = csv.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let expected = try #require(PrivacyTrim(route, zones: [zone]).route)
        #expect(rows.count == expected.points.count && rows.count < route.points.count)
        for row in [rows.first!, rows.last!] {
            #expect(!zone.contains(Coordinate(latitude: Double(row[1])!, longitude: Double(row[2])!)))
        }
        let json = try parseJSON(CLI.run(["dump", store.path, "1", "--json", "--privacy-zone", Self.zoneArgument(home, 300)]).stdout)
        let summary = try #require(json["route"] as? [String: Any])
        #expect(summary["pointCount"] as? Int == expected.points.count)
        #expect(summary["calories"] is NSNull, "withheld")
        let start = try #require(summary["startCoordinate"] as? [String: Double])
        #expect(start["latitude"] == expected.points[0].latitude)
        #expect(abs((summary["distanceMetres"] as? Double ?? 0) - RouteMetrics.distance(of: expected.points)) < 0.01)
        // The same zone twice, or with one far away, changes nothing; the store is untouched.
        let twice = try CLI.run(["dump", store.path, "1", "--privacy-zone", Self.zoneArgument(home, 300), "--privacy-zone=-33.9,151.2,500"])
        #expect(twice.stdout == csv.stdout)
        #expect(try RouteStore(readOnlyAt: store).route(RouteID(1)) == route)
        let gpx = try CLI.run(["dump", store.path, "1", "--format", "gpx", "--privacy-zone", Self.zoneArgument(home, 300)])
        #expect(try GPXImporter.read(data: Data(gpx.stdout.utf8)).routes.first?.points.count == expected.points.count)
    }

    @Test func exportSkipsARouteWhollyInsideAndRenderShowsTheTrimmedTrack() throws {
        let dir = ScratchDirectory()
        let (store, route) = try Self.makeStore(dir)
        let everything = Self.zoneArgument(route.points[0].coordinate, 20_000)
        let out = dir.path("out")
        let export = try CLI.run(["export", store.path, out.path, "--privacy-zone", everything])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout == "wrote 1 gpx file into \(out.path)\nskipped 1 route lying wholly inside the privacy zones: 1\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["route-2.gpx"])
        let json = try parseJSON(CLI.run(["export", store.path, out.path, "--json", "--privacy-zone", everything]).stdout)
        #expect(json["skippedRoutes"] as? [Int] == [1])
        let refused = try CLI.run(["render", store.path, "1", "-o", "-", "--privacy-zone", everything])
        #expect(refused.status == 1)
        #expect(refused.stderr == "routelog: every point of route 1 lies inside a privacy zone (\(store.path)): nothing is left to show; give smaller zones, or none\n")
        let home = Self.zoneArgument(route.points[0].coordinate, 300)
        let picture = try CLI.run(["render", store.path, "1", "-o", "-", "--privacy-zone", home])
        let full = try CLI.run(["render", store.path, "1", "-o", "-"])
        #expect(picture.status == 0 && picture.stdout != full.stdout)
        #expect(!picture.stdout.contains("kcal"))
    }

    @Test(arguments: ["45,9", "45,9,0", "45,9,-5", "91,9,100", "45,181,100", "a,b,c", "45,9,100,3", "45,9,1e6"])
    func aBadZoneIsAUsageError(_ zone: String) throws {
        let dir = ScratchDirectory()
        let result = try CLI.run(["dump", dir.path("s.routelog").path, "1", "--privacy-zone", zone])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("routelog: bad privacy zone '\(zone)' for --privacy-zone: give LAT,LON,METRES"), "\(result.stderr)")
    }
}
