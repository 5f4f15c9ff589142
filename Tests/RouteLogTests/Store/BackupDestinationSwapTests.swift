import Foundation
import Testing
@testable import RouteLog

/// An attacker who may change the folder a backup goes into swaps the destination for
/// a symbolic link to another store while the backup writes: after its checks, in the
/// middle of a file operation (the moment a check cannot close). Whatever call the swap
/// comes in, the other store keeps every file and every byte, and the backup stops
/// with an error that names the destination. The swap is made from inside the call, so
/// a writer that went by path would already be writing into the other store.
@Suite struct BackupDestinationSwapTests {
    /// The calls the swap comes in: the destination's lock file made (before the
    /// backup holds the directory), the first file the backup makes there, the first
    /// rename there (a segment switched in), the new manifest's temporary file made
    /// (a writer going by path would then replace the other store's manifest), and the
    /// manifest's rename (the backup's switch, after which files the manifest does not
    /// name are removed).
    enum Moment: String, CaseIterable {
        case lockCreation, firstCreation, firstRename, manifestCreation, manifestRename
    }

    /// Every file of the directory and its bytes.
    static func contents(_ url: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: url.path) {
            files[name] = try Data(contentsOf: url.appendingPathComponent(name))
        }
        return files
    }

    @Test(arguments: Moment.allCases)
    func aDestinationSwappedForALinkToAnotherStoreLeavesThatStoreWhole(moment: Moment) throws {
        let dir = TemporaryDirectory()
        var routes = RandomRoutes(seed: 515)
        let victimURL = dir.store("victim.routelog")
        let victim = try RouteStore(at: victimURL, options: .init(segmentSizeLimit: 8 << 10))
        try victim.save((0..<12).map { _ in routes.next() })
        let victimRoutes = try victim.summaries().map(\.uuid)
        try victim.close()
        let before = try Self.contents(victimURL)
        #expect(before.count > 3)

        let fs = HookedFileSystem()
        let store = try RouteStore(at: dir.store("main.routelog"), options: .init(segmentSizeLimit: 8 << 10), fileSystem: fs)
        defer { try? store.close() }
        try store.save((0..<12).map { _ in routes.next() })
        let destination = dir.url.appendingPathComponent("backup.routelog")
        let moved = dir.url.appendingPathComponent("backup-moved.routelog")
        let swapped = StateLock(false)
        fs.before { call, path in
            let name = (path as NSString).lastPathComponent
            let inDestination = path.hasPrefix(destination.path + "/") || path.hasPrefix("/proc/self/fd/")
            let now: Bool
            switch moment {
            case .lockCreation: now = call == "create" && inDestination && name == FormatConstants.lockName
            case .firstCreation: now = call == "create" && inDestination && name != FormatConstants.lockName
            case .firstRename: now = call == "rename" && inDestination
            case .manifestCreation:
                now = call == "create" && inDestination && name == FormatConstants.manifestName + FormatConstants.temporarySuffix
            case .manifestRename: now = call == "rename" && inDestination && name == FormatConstants.manifestName
            }
            guard now, swapped.withLock({ done in defer { done = true }; return !done }) else { return }
            // What an attacker does between a check and a call: the checked directory
            // is renamed away and a link to the other store takes its name.
            try? FileManager.default.moveItem(at: destination, to: moved)
            try? FileManager.default.createSymbolicLink(at: destination, withDestinationURL: victimURL)
        }
        defer { fs.before(nil) }
        #expect {
            try store.backup(to: destination)
        } throws: { error in
            guard let error = error as? RouteLogError else { return false }
            // Before the directory is held, the lock meets the other store's files:
            // refused one way or another, but refused.
            if moment == .lockCreation { return true }
            return error.code == .io && error.message.contains("moved or replaced") && error.path == destination.path
                && !error.message.contains("/proc/self/fd/")
        }
        #expect(swapped.withLock { $0 }, "the swap happened")
        #expect(try Self.contents(victimURL) == before, "the other store's files are unchanged")
        let reopened = try RouteStore(at: victimURL, options: .init(mode: .readOnly))
        #expect(try reopened.summaries().map(\.uuid) == victimRoutes)
        try reopened.close()
        // The source store goes on.
        try store.save(routes.next())
    }

    /// A folder on the way swapped, after the destination's path was checked and before
    /// the directory is held, so that the path leads into the store's own `lost/`
    /// directory: the checks that follow look at the held directory, find it inside the
    /// store, and refuse it. Nothing in `lost/` is touched.
    @Test func aParentSwappedBeforeTheHoldIntoTheStoreIsRefused() throws {
        let dir = TemporaryDirectory()
        var routes = RandomRoutes(seed: 616)
        let storeURL = dir.store("main.routelog")
        let fs = AttackFileSystem()  // hooks isDirectory too, the last look by path
        let store = try RouteStore(at: storeURL, options: .init(), fileSystem: fs)
        defer { try? store.close() }
        try store.save((0..<6).map { _ in routes.next() })
        // What the store moved aside once: kept for whoever looks.
        let lost = storeURL.appendingPathComponent(LostAndFound.directoryName)
        try FileManager.default.createDirectory(at: lost, withIntermediateDirectories: true)
        try Data([1, 2, 3, 4]).write(to: lost.appendingPathComponent(FormatConstants.segmentName(99)))
        let lostBefore = try Self.contents(lost)
        let parent = dir.url.appendingPathComponent("parent")
        let destination = parent.appendingPathComponent(LostAndFound.directoryName)
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        let swapped = StateLock(false)
        fs.hook.withLock {
            $0 = { call, path in
                guard call == "isDirectory", path == destination.path,
                      swapped.withLock({ done in defer { done = true }; return !done }) else { return }
                try? FileManager.default.moveItem(at: parent, to: dir.url.appendingPathComponent("parent-away"))
                try? FileManager.default.createSymbolicLink(at: parent, withDestinationURL: storeURL)
            }
        }
        defer { fs.hook.withLock { $0 = nil } }
        #expect {
            try store.backup(to: destination)
        } throws: { error in
            (error as? RouteLogError)?.code == .invalidArgument && "\(error)".contains("inside it")
        }
        #expect(swapped.withLock { $0 }, "the swap happened")
        #expect(try Self.contents(lost) == lostBefore)
        #expect(try store.count == 6)
    }
}
