import Foundation
import Testing
import RouteLog

/// `routelog import`, `export`, `migrate`, and `dump --format gpx|geojson`.
@Suite struct RoutelogInterchangeCommandsTests {
    static let gpxDirectory = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/gpx")
    static let archive = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/legacy-archive.plist")

    @Test func importReportsEachFileAndABadFileChangesNothing() throws {
        let dir = ScratchDirectory()
        let store = dir.path("s.routelog")
        let bad = dir.path("bad.gpx")
        try Data("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n<trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\">"
            .utf8).write(to: bad)
        let result = try CLI.run(["import", store.path, Self.gpxDirectory.appendingPathComponent("gpxgo__visnjan.gpx").path,
                                  bad.path, Self.gpxDirectory.appendingPathComponent("dougfales__waypoints.gpx").path, "--create"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("gpxgo__visnjan.gpx: 1 route, 413 points (ids 1)"))
        #expect(result.stdout.contains("18 waypoint(s) skipped"))
        #expect(result.stderrLines.count == 1)
        #expect(result.stderrLines.first?.hasPrefix("routelog: Malformed GPX at line 4, column ") == true)
        let reader = try RouteStore(readOnlyAt: store)
        #expect(try reader.summaries().map(\.pointCount) == [413])
    }

    @Test func importWithoutCreateRefusesAMissingStore() throws {
        let dir = ScratchDirectory()
        let result = try CLI.run(["import", dir.path("typo.routelog").path,
                                  Self.gpxDirectory.appendingPathComponent("gpxgo__visnjan.gpx").path])
        #expect(result.status == 1)
        #expect(!FileManager.default.fileExists(atPath: dir.path("typo.routelog").path))
    }

    @Test func dumpAsGPXAndGeoJSONAndExportEveryRoute() throws {
        let dir = ScratchDirectory()
        let store = dir.path("s.routelog")
        let files = ["georust__garmin_with_extensions.gpx", "gpxpy__cerknicko-jezero.gpx"].map {
            Self.gpxDirectory.appendingPathComponent($0).path
        }
        #expect(try CLI.run(["import", store.path] + files + ["--create", "--json"]).status == 0)
        let gpx = try CLI.run(["dump", store.path, "1", "--format", "gpx"])
        #expect(gpx.status == 0)
        let reread = try #require(GPXImporter.read(data: Data(gpx.stdout.utf8)).routes.first)
        let stored = try RouteStore(readOnlyAt: store).route(RouteID(1))
        #expect(RouteCodec.quantize(reread).points == stored.points)
        let geojson = try CLI.run(["dump", store.path, "1", "--format", "geojson"])
        let feature = try #require(try JSONSerialization.jsonObject(with: Data(geojson.stdout.utf8)) as? [String: Any])
        #expect((feature["geometry"] as? [String: Any])?["type"] as? String == "MultiLineString")

        let out = dir.path("out")
        let export = try CLI.run(["export", store.path, out.path, "--format", "geojson"])
        #expect(export.status == 0)
        #expect(export.stdout == "wrote 8 geojson files into \(out.path)\n")
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(names == (1...8).map { "route-\($0).geojson" }.sorted())
        #expect(try CLI.run(["export", store.path, out.path, "--format", "kml"]).status == 2)
    }

    @Test func migrateTwiceAddsNothingTheSecondTime() throws {
        let dir = ScratchDirectory()
        let store = dir.path("s.routelog")
        let first = try CLI.run(["migrate", store.path, Self.archive.path, "--create"])
        #expect(first.status == 0)
        #expect(first.stdout.hasPrefix("2 route(s) and 1799 point(s) migrated of 4 route(s) found\n"))
        #expect(first.stdout.contains("skipped route 3: no locations"))
        let second = try CLI.run(["migrate", store.path, Self.archive.path, "--json"])
        #expect(second.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any])
        #expect(json["routesMigrated"] as? Int == 0 && json["routesAlreadyPresent"] as? Int == 3)
        let garbage = dir.path("garbage")
        try Data("nope".utf8).write(to: garbage)
        let refused = try CLI.run(["migrate", store.path, garbage.path])
        #expect(refused.status == 1 && refused.stderr.contains("not an NSKeyedArchiver archive"))
        #expect(try RouteStore(readOnlyAt: store).summaries().count == 2)
    }

    @Test func dumpCSVAndTheLibraryCSVAreTheSameText() throws {
        let dir = ScratchDirectory()
        let store = dir.path("s.routelog")
        let files = ["georust__garmin-activity.gpx", "georust__garmin_with_extensions.gpx"].map {
            Self.gpxDirectory.appendingPathComponent($0).path
        }
        #expect(try CLI.run(["import", store.path] + files + ["--create"]).status == 0)
        let reader = try RouteStore(readOnlyAt: store)
        for id in [RouteID(1), RouteID(2)] {
            let dumped = try CLI.run(["dump", store.path, id.description, "--format", "csv"])
            let library = String(decoding: try RouteExporter.data(for: id, in: reader, format: .csv), as: UTF8.self)
            #expect(dumped.stdout == library)
        }
    }
}
