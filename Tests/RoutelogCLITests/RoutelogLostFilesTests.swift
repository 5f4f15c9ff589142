import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `verify` and `inspect` say what the store's `lost/` keeps (bytes a writer moved out of
/// the log instead of deleting them), in text and in `--json`; nothing when it keeps
/// nothing.
@Suite struct RoutelogLostFilesTests {
    @Test func verifyAndInspectNameWhatLostKeeps() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("fixture.routelog")).url
        let before = try CLI.run(["verify", store.path])
        #expect(before.status == 0)
        #expect(!before.stdout.contains("lost/"), "\(before.stdout)")
        #expect(try CLI.run(["inspect", store.path]).stdout.contains("nothing kept aside"))

        // What a writer leaves there after cutting a torn tail: the bytes, and LOG's line.
        let lost = store.appendingPathComponent("lost")
        try FileManager.default.createDirectory(at: lost, withIntermediateDirectories: false)
        try Data(repeating: 0xAB, count: 1_234).write(to: lost.appendingPathComponent("seg-00000001.rlseg@4096"))
        try Data("2026-12-05T12:00:00Z seg-00000001.rlseg offset 4096 length 1234: a torn tail cut at open\n".utf8)
            .write(to: lost.appendingPathComponent("LOG"))

        let verify = try CLI.run(["verify", store.path])
        #expect(verify.status == 0, "kept bytes are not damage: \(verify.stdout)")
        #expect(verify.stdout.contains("note: 1 file (1.2 KiB) kept aside in lost/"), "\(verify.stdout)")
        let report = try parseJSON(CLI.run(["verify", store.path, "--json"]).stdout)
        let files = try #require(report["lostFiles"] as? [[String: Any]])
        #expect(files.map { $0["name"] as? String } == ["seg-00000001.rlseg@4096"])
        #expect(files.first?["bytes"] as? Int == 1_234)
        #expect((files.first?["note"] as? String)?.contains("a torn tail") == true)
        #expect(report["lostFilesNotListed"] is NSNull)

        let inspect = try CLI.run(["inspect", store.path])
        #expect(inspect.stdout.contains("1 file (1.2 KiB) kept aside in lost/"), "\(inspect.stdout)")
        let stats = try parseJSON(CLI.run(["inspect", store.path, "--json"]).stdout)
        #expect((stats["lostFiles"] as? [[String: Any]])?.map { $0["name"] as? String } == ["seg-00000001.rlseg@4096"])
    }

    /// A file in `lost/` this user may not read (root's alone, the command run as
    /// another user) still shows its size: it is looked up by name, not opened.
    @Test func aLostFileThisUserMayNotReadShowsItsSize() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("fixture.routelog")).url
        let lost = store.appendingPathComponent("lost")
        try FileManager.default.createDirectory(at: lost, withIntermediateDirectories: false)
        let kept = lost.appendingPathComponent("seg-00000001.rlseg@4096")
        try Data(repeating: 0xAB, count: 1_234).write(to: kept)
        let names = try FileManager.default.contentsOfDirectory(atPath: store.path)
        for path in [dir.url.path, store.path, lost.path] { chmod(path, 0o755) }
        for name in names where name != "lost" { chmod(store.appendingPathComponent(name).path, 0o644) }
        chmod(kept.path, getuid() == 0 ? 0o600 : 0)
        let inspect = try CLI.run(["inspect", store.path, "--json"], asOtherUser: true)
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let files = try #require(try parseJSON(inspect.stdout)["lostFiles"] as? [[String: Any]])
        #expect(files.map { $0["name"] as? String } == ["seg-00000001.rlseg@4096"])
        #expect(files.first?["bytes"] as? Int == 1_234, "\(files)")
    }
}
