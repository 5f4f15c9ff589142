import Foundation
import Testing

/// Failures that are not usage errors: exit code 1, one clear line, nothing changed.
@Suite struct RoutelogFailureMessageTests {
    @Test func aMissingStoreIsNamedAndNeverCreated() throws {
        let dir = ScratchDirectory()
        let missing = dir.path("missing.routelog")
        for arguments in [["ls", missing.path], ["inspect", missing.path], ["set", missing.path, "1", "--name", "x"],
                          ["delete", missing.path, "1"], ["compact", missing.path]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr == "routelog: there is no RouteLog store here (\(missing.path)): check the path: a store is a directory holding a MANIFEST\n")
            #expect(!FileManager.default.fileExists(atPath: missing.path), "\(arguments[0]) must not create a store")
        }
    }

    @Test func aDirectoryOrFileThatIsNotAStore() throws {
        let dir = ScratchDirectory()
        let empty = dir.path("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        for command in ["ls", "compact"] {
            let result = try CLI.run([command, empty.path])
            #expect(result.status == 1)
            #expect(result.stderr.hasPrefix("routelog: there is no RouteLog store here (\(empty.path))"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: empty.path).isEmpty, "\(command) left files behind")
        }
        let file = dir.path("notes.txt")
        try Data("hello".utf8).write(to: file)
        let result = try CLI.run(["ls", file.path])
        #expect(result.status == 1)
        #expect(result.stderr == "routelog: this is a file, not a RouteLog store directory (\(file.path)): pass the store's directory\n")
    }

    @Test func anUnknownIdChangesNothing() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let show = try CLI.run(["show", store.path, "99"])
        #expect(show.status == 1)
        #expect(show.stderr.hasPrefix("routelog: no route with id 99 in this store (it may have been deleted) (\(store.path)): run 'routelog ls STORE' to list the ids"))
        let before = try CLI.run(["ls", store.path, "--json"]).stdout
        let delete = try CLI.run(["delete", store.path, "1", "99"])
        #expect(delete.status == 1)
        #expect(delete.stderr.contains("no route with id 99"))
        #expect(try CLI.run(["ls", store.path, "--json"]).stdout == before, "route 1 must survive a delete that names an unknown id")
        let deletedAlready = try CLI.run(["set", store.path, "4", "--name", "x"])
        #expect(deletedAlready.status == 1)
        #expect(deletedAlready.stderr.contains("no route with id 4"))
    }

    /// A damaged MANIFEST: the file and the offset of the damage, and what to do about
    /// it (restore a backup), never the advice for a damaged route.
    @Test func aDamagedManifestIsNamedWithItsOffsetAndTheWayBack() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let manifest = store.appendingPathComponent("MANIFEST")
        var bytes = [UInt8](try Data(contentsOf: manifest))
        bytes[40] ^= 0xFF
        try Data(bytes).write(to: manifest)
        for command in ["ls", "verify", "backup"] {
            let result = try CLI.run([command, store.path] + (command == "backup" ? [dir.path("b").path] : []))
            #expect(result.status == 1, "\(command)")
            #expect(result.stderrLines.count == 1, "\(command): \(result.stderr)")
            #expect(result.stderr.hasPrefix("routelog: the store's MANIFEST is damaged"), "\(command): \(result.stderr)")
            #expect(result.stderr.contains("(\(manifest.path) at offset 20)"), "\(command): \(result.stderr)")
            #expect(result.stderr.contains("'routelog backup'") && result.stderr.contains("'routelog verify"), "\(command): \(result.stderr)")
            #expect(!result.stderr.contains("every other route stays readable"), "\(command): \(result.stderr)")
        }
    }
}
