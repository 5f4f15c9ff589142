import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// Another user's store (a 0700 directory) cannot even be looked into: that is a
/// permission error, with its advice, never "there is no RouteLog store here", which
/// would send its owner looking for a store that is there. Tests run as root, where
/// permissions stop nothing, so the refusal is the file system's (a double that gives
/// EACCES for the names it hides, as stat and open do in such a directory).
@Suite struct StoreKeptFromThisUserTests {
    struct Hidden: ForwardingFileSystem {
        let base: any FileSystem = PosixFileSystem.shared
        let name: String

        func hides(_ path: String) -> Bool { URL(fileURLWithPath: path).lastPathComponent == name }
        func isDirectory(_ path: String) -> Bool? { hides(path) ? nil : base.isDirectory(path) }
        func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef {
            if hides(path) { throw Errno(code: EACCES) }
            return try base.open(path, flags: flags, mode: mode)
        }
    }

    static func store(_ dir: TemporaryDirectory) throws -> URL {
        let url = dir.store()
        let store = try RouteStore(at: url)
        try store.save(Fixtures.sampleWalk(points: 20))
        try store.close()
        return url
    }

    @Test(arguments: [FormatConstants.manifestName, "store.routelog"], [RouteStore.OpenMode.readOnly, .mustExist])
    func aStoreThisUserMayNotLookIntoIsAPermissionError(hidden: String, mode: RouteStore.OpenMode) throws {
        let dir = TemporaryDirectory()
        let url = try Self.store(dir)
        let error = try #require(throws: RouteLogError.self) {
            try RouteStore(at: url, options: .init(mode: mode), fileSystem: Hidden(name: hidden))
        }
        #expect(error.code == .io)
        #expect(error.errno == EACCES)
        #expect(error.message.contains("check the permissions"), "\(error.message)")
        #expect(!error.message.contains("no RouteLog store"))
        #expect(FileManager.default.fileExists(atPath: url.appendingPathComponent(FormatConstants.manifestName).path))
    }

    /// A store that is not there is still said to be missing.
    @Test(arguments: [RouteStore.OpenMode.readOnly, .mustExist])
    func aMissingStoreIsStillNotFound(mode: RouteStore.OpenMode) throws {
        let dir = TemporaryDirectory()
        let missing = dir.store("missing.routelog")
        let error = try #require(throws: RouteLogError.self) {
            try RouteStore(at: missing, options: .init(mode: mode), fileSystem: Hidden(name: "other"))
        }
        #expect(error.code == .notFound)
        #expect(error.message.contains("there is no RouteLog store here"))
        let empty = dir.store("empty.routelog")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: false)
        let noManifest = try #require(throws: RouteLogError.self) {
            try RouteStore(at: empty, options: .init(mode: mode), fileSystem: Hidden(name: "other"))
        }
        #expect(noManifest.code == .notFound)
        #expect(noManifest.message.contains("no MANIFEST"))
    }
}
