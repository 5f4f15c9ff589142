import Foundation
import Testing
@testable import RouteLog

/// `RouteStore(existingAt:)`: opens a store for writing but never creates one.
@Suite struct RouteStoreExistingTests {
    @Test func opensAnExistingStore() throws {
        let dir = TemporaryDirectory()
        let id = try RouteStore(at: dir.store()).save(Fixtures.sampleWalk(points: 10))
        let store = try RouteStore(at: dir.store(), options: .init(mode: .mustExist))
        #expect(try store.count == 1)
        try store.edit(id, RouteEdit(name: "Edited"))
        #expect(try store.summary(id).name == "Edited")
    }

    @Test func neverCreatesAStore() throws {
        let dir = TemporaryDirectory()
        let missing = dir.store("missing.routelog")
        #expect(throws: RouteLogError(.notFound, "there is no RouteLog store here", path: missing.path)) {
            try RouteStore(at: missing, options: .init(mode: .mustExist))
        }
        #expect(!FileManager.default.fileExists(atPath: missing.path))

        let empty = dir.store("empty.routelog")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(throws: RouteLogError(.notFound, "there is no RouteLog store here (no MANIFEST)", path: empty.path)) {
            try RouteStore(at: empty, options: .init(mode: .mustExist))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty.path).isEmpty)

        let file = dir.url.appendingPathComponent("notes.txt")
        try Data("x".utf8).write(to: file)
        do {
            _ = try RouteStore(at: file, options: .init(mode: .mustExist))
            Issue.record("a file opened as a store")
        } catch let error as RouteLogError {
            #expect(error.code == .invalidArgument)
        }
    }

    @Test func aHeldStoreIsLockedNotMissing() throws {
        let dir = TemporaryDirectory()
        let writer = try RouteStore(at: dir.store())
        do {
            _ = try RouteStore(at: dir.store(), options: .init(mode: .mustExist))
            Issue.record("a second writer opened the store")
        } catch let error as RouteLogError {
            #expect(error.code == .locked)
            #expect(error.pid == getpid())
        }
        try writer.close()
    }
}
