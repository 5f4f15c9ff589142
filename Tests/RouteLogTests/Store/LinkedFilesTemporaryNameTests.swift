import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// The temporary name a writer's open copies a shared last segment or index under
/// (LinkedFiles) is looked at again before anything there is unlinked or put in place:
/// a file renamed to it meanwhile is kept in `lost/`, never deleted, and never taken as
/// the store's file. Where the file system cannot swap two names, the shared file whose
/// other names went meanwhile is not renamed over (which would delete it).
@Suite struct LinkedFilesTemporaryNameTests {
    typealias Shared = LinkedFilesSwapTests.Shared

    /// All the files under `store` (its own and `lost/`'s) whose bytes hold `bytes`.
    static func files(in store: URL, holding bytes: Data) throws -> [String] {
        var found: [String] = []
        for directory in [store, store.appendingPathComponent(LostAndFound.directoryName)] {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { continue }
            for name in names where (try? Data(contentsOf: directory.appendingPathComponent(name)))?.range(of: bytes) != nil {
                found.append(directory.lastPathComponent + "/" + name)
            }
        }
        return found
    }

    /// A file system on `base` that has `act` run once, right after the copy of `shared`
    /// is synced under its temporary name, with the path of the file the copy is for.
    static func actingAfterTheCopy(of shared: Shared, in store: URL, base: any FileSystem = PosixFileSystem.shared,
                                   _ act: @escaping @Sendable (String) -> Void) throws -> InterceptingFileSystem {
        let target = store.appendingPathComponent(try shared.name(in: store)).path
        let fs = InterceptingFileSystem(base: base)
        let fired = StateLock(false)
        fs.observe { operation in
            guard case .syncAll(let file) = operation, file.path == target + FormatConstants.temporarySuffix,
                  !fired.withLock({ let was = $0; $0 = true; return was }) else { return }
            act(target)
        }
        return fs
    }

    /// Renames a new file holding `bytes` to `path`, replacing what is there.
    static func plant(_ bytes: Data, at path: String) {
        let aside = path + ".planted"
        _ = FileManager.default.createFile(atPath: aside, contents: bytes)
        _ = Glibc.rename(aside, path)
    }

    /// A file renamed to the temporary name once the copy is synced, before the swap,
    /// is not swapped into the store's name (the store would lose the file's routes to
    /// it, and a new index would replace it), and is kept in `lost/`.
    @Test(arguments: Shared.allCases)
    func aFileRenamedToTheTemporaryNameBeforeTheSwapIsNeitherTakenNorDeleted(_ shared: Shared) throws {
        let dir = TemporaryDirectory()
        let (a, b) = try HardLinkedStoreTests.linkedPair(in: dir)
        let planted = Data("a file someone renamed to the copy's name meanwhile".utf8)
        let fs = try Self.actingAfterTheCopy(of: shared, in: b) { path in
            Self.plant(planted, at: path + FormatConstants.temporarySuffix)
        }
        // The open may refuse (nothing changed) or go on; either way the next one works.
        if let writer = try? RouteStore(at: b, options: .init(compaction: .manual), fileSystem: fs) { try writer.close() }
        let writer = try RouteStore(at: b, options: .init(compaction: .manual))
        _ = try writer.save(HardLinkedStoreTests.route(300))
        try writer.close()
        let holding = try Self.files(in: b, holding: planted)
        #expect(holding.count == 1 && holding.allSatisfy { $0.hasPrefix(LostAndFound.directoryName + "/") },
                "\(shared): the planted file is at \(holding)")
        #expect(try HardLinkedStoreTests.contents(b) == HardLinkedStoreTests.expected([1: 1, 2: 2, 3: 3, 4: 300]))
        #expect(try HardLinkedStoreTests.contents(a) == HardLinkedStoreTests.expected([1: 1, 2: 2, 3: 3]))
    }

    /// Where the file system cannot swap, the copy is renamed over the name only while
    /// the shared file has another name: one whose other names went meanwhile (with
    /// bytes written after the copy) would have its last name, and its bytes, taken.
    @Test(arguments: Shared.allCases)
    func withoutASwapTheSharedFileLeftWithThisNameAloneIsNotRenamedOver(_ shared: Shared) throws {
        let dir = TemporaryDirectory()
        let (a, b) = try HardLinkedStoreTests.linkedPair(in: dir)
        let written = Data("bytes the other store wrote after the copy".utf8)
        let other = a.appendingPathComponent(try shared.name(in: a)).path
        let fs = try Self.actingAfterTheCopy(of: shared, in: b, base: LinkedFilesSwapTests.NoExchange()) { _ in
            LinkedFilesSwapTests.appendThenUnlink(written, other)
        }
        if let writer = try? RouteStore(at: b, options: .init(compaction: .manual), fileSystem: fs) { try writer.close() }
        #expect(!FileManager.default.fileExists(atPath: other), "the hook did not run")
        #expect(try Self.files(in: b, holding: written).count >= 1, "\(shared): the shared file was deleted")
        #expect(try HardLinkedStoreTests.contents(b) == HardLinkedStoreTests.expected([1: 1, 2: 2, 3: 3]))
    }

    /// A copy a crash cut short (a prefix of the file) is removed at the next open, but
    /// only while its name still leads to it: a file renamed to the name once the
    /// leftover was compared is kept in `lost/`.
    @Test(arguments: Shared.allCases)
    func aFileRenamedOverALeftoverCopyOnceComparedIsKept(_ shared: Shared) throws {
        let dir = TemporaryDirectory()
        let (a, b) = try HardLinkedStoreTests.linkedPair(in: dir)
        let target = b.appendingPathComponent(try shared.name(in: b)).path
        let temporary = target + FormatConstants.temporarySuffix
        let whole = try Data(contentsOf: URL(fileURLWithPath: target))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: temporary))
        let planted = Data("a file renamed over the leftover copy once it was compared".utf8)
        let fs = InterceptingFileSystem()
        let fired = StateLock(false)
        fs.observe { operation in
            guard case .read(let file, _, _) = operation, file.path == temporary,
                  !fired.withLock({ let was = $0; $0 = true; return was }) else { return }
            Self.plant(planted, at: temporary)
        }
        if let writer = try? RouteStore(at: b, options: .init(compaction: .manual), fileSystem: fs) { try writer.close() }
        #expect(fired.withLock { $0 }, "the hook did not run")
        #expect(try Self.files(in: b, holding: planted).count == 1, "\(shared): the planted file was deleted")
        #expect(try HardLinkedStoreTests.contents(b) == HardLinkedStoreTests.expected([1: 1, 2: 2, 3: 3]))
        #expect(try HardLinkedStoreTests.contents(a) == HardLinkedStoreTests.expected([1: 1, 2: 2, 3: 3]))
    }
}
