import Foundation
import Testing
@testable import RouteLog

/// Backup destinations whose path cannot be resolved for a reason other than a link:
/// the error says what is wrong with the path, not that a link leads nowhere.
@Suite(.timeLimit(.minutes(2))) struct BackupDestinationPathTests {
    /// A name longer than any the file system takes (ENAMETOOLONG): refused, and the
    /// message says the path is too long rather than blaming a symbolic link.
    @Test func aDestinationWithANameTooLongSaysSo() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        var routes = RandomRoutes(seed: 45)
        try store.save(routes.next())
        let long = dir.url.appendingPathComponent(String(repeating: "a", count: 300))
        #expect {
            try store.backup(to: long)
        } throws: { error in
            let error = error as? RouteLogError
            return error?.code == .invalidArgument && error?.message.contains("too long") == true
                && error?.message.contains("symbolic link") == false
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted() == [dir.store().lastPathComponent])
    }

    /// A symbolic link is refused however its path ends: "link/." and "link/./" name
    /// the link as "link" does, and nothing is written where it points.
    @Test func aSymbolicLinkIsRefusedWithATrailingDot() throws {
        let (dir, store, real, link) = try BackupTests.storeBesideALink(seed: 46)
        let fm = FileManager.default
        for target in [link.path, link.path + "/.", link.path + "/./", link.path + "//.//."] {
            #expect {
                try store.backup(to: URL(fileURLWithPath: target))
            } throws: { error in
                (error as? RouteLogError)?.message.contains("is a symbolic link") == true
            }
            #expect(try fm.contentsOfDirectory(atPath: real.path).isEmpty, "\(target)")
        }
        withExtendedLifetime(dir) {}  // the folder is removed when `dir` goes
    }
}
