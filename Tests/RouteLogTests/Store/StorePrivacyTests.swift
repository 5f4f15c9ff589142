import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// Location history is personal: every file and the directory are the owner's only,
/// whatever the process's umask, including files made later by a roll, a compaction
/// and an index rebuild.
@Suite struct StorePrivacyTests {
    @Test func everyFileIsTheOwnersOnlyEvenWithAPermissiveUmask() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let previous = umask(0)
        defer { umask(previous) }
        let store = try RouteStore(at: url, options: .init(segmentSizeLimit: 4 * 1024, compaction: .manual))
        for i in 0..<6 { try store.save(Fixtures.sampleWalk(seed: UInt64(i), points: 400)) }
        try store.delete(RouteID(2))
        try store.compact()
        try store.close()
        let index = try FileManager.default.contentsOfDirectory(atPath: url.path).first { $0.hasSuffix(".rlidx") }!
        try FileManager.default.removeItem(at: url.appendingPathComponent(index))
        let rebuilt = try RouteStore(at: url)
        #expect(rebuilt.state.withLock { $0.indexRebuilt })
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as! Int
        #expect(mode & 0o077 == 0, "the store directory has mode \(String(mode, radix: 8))")
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        #expect(names.contains("LOCK") && names.contains("MANIFEST") && names.count >= 5, "\(names)")
        for name in names {
            let mode = try FileManager.default.attributesOfItem(atPath: url.appendingPathComponent(name).path)[.posixPermissions] as! Int
            #expect(mode & 0o077 == 0, "\(name) has mode \(String(mode, radix: 8))")
        }
        try rebuilt.close()
    }
}
