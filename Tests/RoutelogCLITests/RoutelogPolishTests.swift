import Foundation
import Testing
import RouteLog

/// Errors that name the real problem, `ls` ordering, import from standard input.
@Suite struct RoutelogPolishTests {
    static let gpx = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/gpx")

    /// `routelog: what (path): what to do`, with the path only in its parentheses.
    static func checkShape(_ line: String, path: String, _ context: String) {
        #expect(line.hasPrefix("routelog: "), "\(context): \(line)")
        let parts = line.components(separatedBy: " (\(path)): ")
        #expect(parts.count == 2, "\(context): the path stands once, in parentheses before the advice: \(line)")
        #expect(!parts[0].contains(path) && !(parts.last ?? "").contains(path), "\(context): \(line)")
    }

    @Test func aMissingInputFileIsNamedAsAFileNotAsAStore() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let before = try CLI.run(["ls", store.path, "--json"]).stdout
        let missing = dir.path("walk.gpx").path
        for arguments in [["import", store.path, missing], ["import", store.path, Self.gpx.appendingPathComponent("gpxgo__visnjan.gpx").path, missing],
                          ["migrate", store.path, missing]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 1)
            #expect(result.stderr == "routelog: there is no such file (\(missing)): check the path; nothing was imported\n", "\(arguments)")
            Self.checkShape(result.stderrLines[0], path: missing, arguments[0])
        }
        #expect(try CLI.run(["ls", store.path, "--json"]).stdout == before, "nothing was imported")
        let directory = try CLI.run(["import", store.path, dir.url.path])
        #expect(directory.stderr.hasPrefix("routelog: this is a directory, not a file (\(dir.url.path)): give the files inside it"))
    }

    @Test func importingIntoAStoreThatDoesNotExistSuggestsCreate() throws {
        let dir = ScratchDirectory()
        let store = dir.path("typo.routelog").path
        let result = try CLI.run(["import", store, Self.gpx.appendingPathComponent("gpxgo__visnjan.gpx").path])
        #expect(result.status == 1)
        #expect(result.stderr == "routelog: there is no RouteLog store here (\(store)): check the path, or add --create to make a new store there\n")
        Self.checkShape(result.stderrLines[0], path: store, "import")
        #expect(!FileManager.default.fileExists(atPath: store))
        let migrate = try CLI.run(["migrate", store, CLI.packageRoot.appendingPathComponent("Tests/Fixtures/legacy-archive.plist").path])
        #expect(migrate.stderr.contains("add --create"))
        let empty = dir.path("empty.routelog")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let intoEmpty = try CLI.run(["import", empty.path, Self.gpx.appendingPathComponent("gpxgo__visnjan.gpx").path])
        #expect(intoEmpty.stderr == "routelog: there is no RouteLog store here (\(empty.path)): check the path, or add --create to make a new store there\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty.path).isEmpty, "nothing is created without --create")
    }

    @Test func everyFailureLineHasTheSameShape() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let cases: [([String], String)] = [
            (["ls", dir.path("none.routelog").path], dir.path("none.routelog").path),
            (["show", store.path, "99"], store.path),
            (["render", store.path, "1", "-o", dir.path("no/dir/x.svg").path], dir.path("no/dir/x.svg").path),
            (["dump", store.path, "1", "--privacy-zone", "45,9,100000"], store.path),
        ]
        for (arguments, path) in cases {
            let result = try CLI.run(arguments)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            Self.checkShape(result.stderrLines.first ?? "", path: path, arguments.joined(separator: " "))
        }
    }

    @Test func importReadsStandardInput() throws {
        let dir = ScratchDirectory()
        let store = dir.path("s.routelog").path
        let data = try Data(contentsOf: Self.gpx.appendingPathComponent("gpxgo__visnjan.gpx"))
        let result = try CLI.run(["import", store, "-", "--create", "--json"], input: data)
        #expect(result.status == 0, "\(result.stderr)")
        let files = try #require(parseJSON(result.stdout)["files"] as? [[String: Any]])
        #expect(files.count == 1 && files[0]["file"] as? String == "standard input" && files[0]["points"] as? Int == 413)
        let again = try CLI.run(["import", store, "-"], input: Data("<gpx><trk>".utf8))
        #expect(again.status == 1)
        #expect(again.stderr.contains("(standard input): "), "\(again.stderr)")
        #expect(try RouteStore(readOnlyAt: URL(fileURLWithPath: store)).summaries().count == 1)
        let twice = try CLI.run(["import", store, "-", "-"], input: data)
        #expect(twice.status == 2 && twice.stderr.hasPrefix("routelog: '-' (standard input) is given more than once"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
            .filter { $0.hasPrefix("routelog-stdin-") }
        #expect(leftovers.isEmpty, "the copy of standard input is removed: \(leftovers)")
    }

    @Test func lsSortsReversesAndLimits() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        func ids(_ options: [String]) throws -> [Int] {
            let json = try parseJSON(CLI.run(["ls", store.path, "--json"] + options).stdout)
            return (json["routes"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
        }
        let all = try parseJSON(CLI.run(["ls", store.path, "--json"]).stdout)["routes"] as! [[String: Any]]
        func byKey(_ key: String) -> [Int] {
            all.sorted { ($0[key] as! Double) < ($1[key] as! Double) }.map { $0["id"] as! Int }
        }
        #expect(try ids([]) == [1, 2, 3, 5])
        #expect(try ids(["--reverse"]) == [5, 3, 2, 1])
        #expect(try ids(["--sort", "distance"]) == byKey("distanceMetres"))
        #expect(try ids(["--sort", "duration", "--reverse"]) == byKey("durationSeconds").reversed())
        #expect(try ids(["--sort", "name"]) == [1, 3, 5, 2], "Morning walk, Sunday \"long\" one, Tiny, then the unnamed")
        #expect(try ids(["--sort", "distance", "--reverse", "--limit", "2"]) == Array(byKey("distanceMetres").reversed().prefix(2)))
        let text = try CLI.run(["ls", store.path, "--limit", "1"]).stdout
        #expect(text.split(separator: "\n").count == 3, "header, one route, totals: \(text)")
        #expect(text.hasSuffix("1 route, " + text.split(separator: "\n").last!.dropFirst("1 route, ".count) + "\n"))
        for (options, message) in [(["--sort", "pace"], "routelog: bad sort key 'pace' for --sort: use date, distance, duration or name"),
                                   (["--limit", "-1"], "routelog: bad count '-1' for --limit"),
                                   (["--limit", "x"], "routelog: bad count 'x' for --limit")] {
            let result = try CLI.run(["ls", store.path] + options)
            #expect(result.status == 2 && result.stderr.hasPrefix(message), "\(result.stderr)")
        }
    }
}
