import Foundation
import Testing
import RouteLog

/// `routelog backup STORE DEST`: a consistent copy, incremental on a second run,
/// refused for destinations it must not touch, with the usual exit codes.
@Suite struct RoutelogBackupCommandTests {
    @Test func aBackupIsTheStoreAndASecondRunKeepsItsSegments() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let destination = dir.path("backup.routelog")
        let first = try CLI.run(["backup", store.path, destination.path])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("backed up 4 routes into \(destination.path)\n1 segment copied ("))
        #expect(first.stdout.hasSuffix("0 segments kept from the earlier backup; verified clean\n"))
        let original = try RouteStore(readOnlyAt: store), copy = try RouteStore(readOnlyAt: destination)
        #expect(try copy.summaries() == original.summaries())
        for summary in try original.summaries() { #expect(try copy.route(summary.id) == original.route(summary.id)) }
        #expect(try copy.verify().isClean)
        let second = try CLI.run(["backup", store.path, destination.path, "--json"])
        #expect(second.status == 0)
        let report = try parseJSON(second.stdout)
        #expect(report["routes"] as? Int == 4)
        #expect(report["segmentsCopied"] as? Int == 0 && report["segmentsKept"] as? Int == 1)
        #expect(report["verified"] as? Bool == true)
    }

    /// The store is opened read-only: an app holding it for writing does not stop a backup.
    @Test func aBackupWorksWhileAnAppHoldsTheStore() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let holder = try WriterHolder(store: store)
        defer { holder.stop() }
        let result = try CLI.run(["backup", store.path, dir.path("b.routelog").path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try RouteStore(readOnlyAt: dir.path("b.routelog")).count == 4)
    }

    @Test func destinationsItMustNotTouchAreRefusedWithTheUsualExitCodes() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        let file = dir.path("notes.txt")
        try Data("keep".utf8).write(to: file)
        let onFile = try CLI.run(["backup", store.path, file.path])
        #expect(onFile.status == 1)
        #expect(onFile.stderrLines.count == 1 && onFile.stderrLines[0].hasPrefix("routelog: "))
        #expect(try Data(contentsOf: file) == Data("keep".utf8))
        #expect(try CLI.run(["backup", store.path, store.path]).status == 1)
        // A destination that an app holds for writing: exit code 3, as for a held store.
        let held = dir.path("held.routelog")
        #expect(try CLI.run(["backup", store.path, held.path]).status == 0)
        let holder = try WriterHolder(store: held)
        defer { holder.stop() }
        let locked = try CLI.run(["backup", store.path, held.path])
        #expect(locked.status == 3, "\(locked.stderr)")
        #expect(try CLI.run(["backup", dir.path("missing.routelog").path, dir.path("b2").path]).status == 1)
        #expect(!FileManager.default.fileExists(atPath: dir.path("b2").path))
        #expect(try CLI.run(["backup", store.path]).status == 2)
        #expect(try CLI.run(["help", "backup"]).stdout.hasPrefix("usage: routelog backup STORE DEST [--json]"))
    }

    /// DEST inside the store, or reaching the store through a symbolic link or `..`:
    /// refused before anything is written, the store's directory left as it was.
    @Test func aDestinationInsideTheStoreIsRefusedByRealPath() throws {
        let dir = ScratchDirectory()
        let store = try FixtureStore.make(at: dir.path("s.routelog")).url
        try FileManager.default.createDirectory(at: store.appendingPathComponent("attic"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: dir.path("to-store").path, withDestinationPath: store.path)
        try FileManager.default.createSymbolicLink(atPath: dir.path("to-attic").path, withDestinationPath: store.appendingPathComponent("attic").path)
        let names = try FileManager.default.contentsOfDirectory(atPath: store.path).sorted()
        for destination in [store.appendingPathComponent("backup").path, store.path + "/attic", store.path + "/attic/deeper/b",
                            dir.path("to-store").path, dir.path("to-store").path + "/b", dir.path("to-attic").path,
                            dir.path("to-attic").path + "/../b", store.path + "/attic/..", dir.path("to-attic").path + "/.."] {
            let result = try CLI.run(["backup", store.path, destination])
            #expect(result.status == 1, "\(destination): \(result.stderr)")
            #expect(result.stderr.hasPrefix("routelog: the backup destination is "), "\(destination): \(result.stderr)")
            #expect(result.stderr.contains("the store") && result.stderr.contains("give a path outside the store's directory"),
                    "\(destination): \(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: store.path).sorted() == names, "\(destination)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("attic").path).isEmpty)
        }
        // Beside the store, through `..`, is fine.
        let beside = try CLI.run(["backup", store.path, store.path + "/attic/../../b.routelog"])
        #expect(beside.status == 0, "\(beside.stderr)")
        #expect(try RouteStore(readOnlyAt: dir.path("b.routelog")).count == 4)
    }
}
