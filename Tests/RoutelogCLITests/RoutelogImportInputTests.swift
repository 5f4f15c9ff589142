import Foundation
import Testing
import RouteLog

/// What `import` and `migrate` accept as input files, and how `import` reports many
/// routes. A FIFO given as FILE once blocked the command for ever while it held the
/// store's writer lock, and `/dev/stdin` was opened twice (the format check took the
/// first bytes); a file of a million routes printed megabytes of ids on one line.
@Suite struct RoutelogImportInputTests {
    static let walk = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/gpx/gpxgo__visnjan.gpx")

    @Test func aFIFOOrADeviceIsRefusedBeforeTheStoreIsOpened() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let before = try CLI.run(["ls", store.path, "--json"]).stdout
        let fifo = dir.path("walk.gpx").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let imported = try CLI.run(["import", store.path, Self.walk.path, fifo])
        #expect(imported.status == 1)
        #expect(imported.stderr == "routelog: this is a FIFO (named pipe), not a regular file, and reading it could wait "
            + "for ever (\(fifo)): give '-' and redirect it into routelog (routelog import STORE - < FILE); "
            + "nothing was imported\n")
        let device = try CLI.run(["import", store.path, "/dev/null"])
        #expect(device.status == 1 && device.stderr.hasPrefix("routelog: this is a device, not a regular file"), "\(device.stderr)")
        let migrated = try CLI.run(["migrate", store.path, fifo])
        #expect(migrated.status == 1)
        #expect(migrated.stderr.hasPrefix("routelog: this is a FIFO (named pipe), not a regular file"), "\(migrated.stderr)")
        #expect(migrated.stderr.hasSuffix(": copy the archive into a regular file and migrate that; nothing was imported\n"))
        #expect(try CLI.run(["ls", store.path, "--json"]).stdout == before, "nothing was imported")
    }

    @Test func aSymbolicLinkToARegularFileIsImported() throws {
        let dir = ScratchDirectory()
        let link = dir.path("link.gpx")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: Self.walk)
        let result = try CLI.run(["import", dir.path("s.routelog").path, link.path, "--create"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("\(link.path): 1 route, 413 points (ids 1)"), "\(result.stdout)")
    }

    @Test func manyNewIdsAreShownByTheFirstAndLastAndListedInFullInJSON() throws {
        let dir = ScratchDirectory()
        var text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
        for track in 0..<12 {
            text += "<trk><trkseg><trkpt lat=\"47.\(100 + track)\" lon=\"8.5\"/><trkpt lat=\"47.\(100 + track)\" lon=\"8.6\"/></trkseg></trk>\n"
        }
        let file = dir.path("twelve.gpx")
        try Data((text + "</gpx>\n").utf8).write(to: file)
        let result = try CLI.run(["import", dir.path("s.routelog").path, file.path, "--create"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("\(file.path): 12 routes, 24 points (ids 1, 2, 3 ... 11, 12)\n"), "\(result.stdout)")
        let json = try CLI.run(["import", dir.path("j.routelog").path, file.path, "--create", "--json"])
        let files = try #require(parseJSON(json.stdout)["files"] as? [[String: Any]])
        #expect(files.first?["routes"] as? [Int] == Array(1...12))
        let few = try CLI.run(["import", dir.path("few.routelog").path, Self.walk.path, "--create"])
        #expect(few.stdout.contains(": 1 route, 413 points (ids 1)"), "a few ids are all listed: \(few.stdout)")
    }
}
