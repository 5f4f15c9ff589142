import Foundation
import Testing

/// `export` of a store with a damaged route writes every other route, names the one it
/// left out on stderr with the file and offset of the damage, and exits 1: a script
/// does not take the export for the whole store, and one damaged route does not cost
/// the others their files.
@Suite struct RoutelogExportDamageTests {
    static func damaged(_ dir: ScratchDirectory) throws -> (url: URL, segment: URL, offset: Int64) {
        let made = try FixtureStore.make(at: dir.path("damaged.routelog"))
        let segment = made.url.appendingPathComponent("seg-00000001.rlseg")
        var bytes = try Data(contentsOf: segment)
        let offset = made.recordOffsets[.init(2)]!
        bytes[Int(offset) + 200] ^= 0x40
        try bytes.write(to: segment)
        return (made.url, segment, offset)
    }

    @Test(arguments: ["gpx", "csv"]) func aTextExportWritesTheOthersAndNamesTheDamagedRoute(format: String) throws {
        let dir = ScratchDirectory()
        let store = try Self.damaged(dir)
        let out = dir.path("out")
        let result = try CLI.run(["export", store.url.path, out.path, "--format", format])
        #expect(result.status == 1)
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(files == ["route-1", "route-3", "route-5"].map { "\($0).\(format)" })
        #expect(result.stdout.contains("wrote 3 \(format) files"))
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.hasPrefix("routelog: route 2 was left out of the export: it could not be read (route 2's record fails its checksum) (\(store.segment.path) at offset \(store.offset))"),
                "\(result.stderr)")

        let json = try CLI.run(["export", store.url.path, dir.path("json").path, "--format", format, "--json"])
        #expect(json.status == 1)
        let report = try parseJSON(json.stdout)
        #expect((report["files"] as? [String])?.count == 3)
        let unreadable = try #require(report["unreadableRoutes"] as? [[String: Any]])
        #expect(unreadable.count == 1)
        #expect(unreadable.first?["id"] as? Int == 2)
        #expect(unreadable.first?["offset"] as? Int == Int(store.offset))
        #expect(unreadable.first?["file"] as? String == store.segment.path)
    }

    /// A file it cannot write stops the export; the routes found unreadable before it
    /// are still named, and the error says how many files were written.
    @Test func aWriteErrorStillNamesTheDamagedRoute() throws {
        let dir = ScratchDirectory()
        let store = try Self.damaged(dir)
        let first = try CLI.run(["export", store.url.path, dir.path("first").path, "--json"])
        let files = try #require(try parseJSON(first.stdout)["files"] as? [String]).map { URL(fileURLWithPath: $0).lastPathComponent }
        let last = try #require(files.last)
        let out = dir.path("out")
        // A non-empty directory where the last file goes: the export cannot replace it.
        try FileManager.default.createDirectory(at: out.appendingPathComponent(last).appendingPathComponent("kept"),
                                                withIntermediateDirectories: true)
        let result = try CLI.run(["export", store.url.path, out.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("routelog: route 2 was left out of the export: it could not be read"), "\(result.stderr)")
        #expect(result.stderr.contains("\(files.count - 1) file(s) were written into the directory before it"), "\(result.stderr)")
        #expect(result.stderr.contains(out.appendingPathComponent(last).path), "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(last).appendingPathComponent("kept").path))
    }

    @Test func aParquetExportWritesTheOthersAndNamesTheDamagedRoute() throws {
        let dir = ScratchDirectory()
        let store = try Self.damaged(dir)
        let out = dir.path("out")
        let result = try CLI.run(["export", store.url.path, out.path, "--format", "parquet", "--json"])
        #expect(result.status == 1)
        let report = try parseJSON(result.stdout)
        #expect(report["routes"] as? Int == 3)
        let unreadable = try #require(report["unreadableRoutes"] as? [[String: Any]])
        #expect(unreadable.map { $0["id"] as? Int } == [2])
        #expect(result.stderr.contains("route 2 was left out of the export"))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("points.parquet").path))
        // A whole store exports with status 0 and an empty list.
        let clean = try FixtureStore.make(at: dir.path("clean.routelog"))
        let whole = try CLI.run(["export", clean.url.path, dir.path("whole").path, "--format", "parquet", "--json"])
        #expect(whole.status == 0)
        #expect((try parseJSON(whole.stdout)["unreadableRoutes"] as? [Any])?.isEmpty == true)
    }
}
