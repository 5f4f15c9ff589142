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
}
