import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// A writer's open puts its copy of a shared last segment or index in place by swapping
/// it with the file at the name (LinkedFiles), never by a rename over the name: a file
/// put at the name after the writer looked at the link count, or the shared file once
/// its other names are gone, is kept in `lost/`, not deleted. Each case acts right after
/// the copy is synced, before it is put in place.
@Suite struct LinkedFilesSwapTests {
    enum Shared: String, CaseIterable, Sendable {
        case segment, index

        var suffix: String { self == .segment ? FormatConstants.segmentSuffix : FormatConstants.indexSuffix }

        /// The store's file of this kind (the last segment; the one index).
        func name(in store: URL) throws -> String {
            let names = try FileManager.default.contentsOfDirectory(atPath: store.path).filter { $0.hasSuffix(suffix) }.sorted()
            return try #require(names.last)
        }
    }

    /// Has `act` run once, right after the copy of `shared` is synced under its
    /// temporary name, with the path of the file the copy is for.
    /// What the other store's writer may do once the copy is made: append `bytes` to its
    /// name of the shared file, then let that name go (the file keeps this store's alone).
    static func appendThenUnlink(_ bytes: Data, _ path: String) {
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        handle.seekToEndOfFile()
        handle.write(bytes)
        handle.closeFile()
        _ = Glibc.unlink(path)
    }

    static func actingAfterTheCopy(of shared: Shared, in store: URL, _ act: @escaping @Sendable (String) -> Void) throws
        -> InterceptingFileSystem {
        let target = store.appendingPathComponent(try shared.name(in: store)).path
        let fs = InterceptingFileSystem()
        let fired = StateLock(false)
        fs.observe { operation in
            guard case .syncAll(let file) = operation, file.path == target + FormatConstants.temporarySuffix,
                  !fired.withLock({ let was = $0; $0 = true; return was }) else { return }
            act(target)
        }
        return fs
    }

    /// The files in the store's `lost/` whose bytes hold `bytes`.
    static func lostFiles(in store: URL, holding bytes: Data) throws -> [String] {
        let lost = store.appendingPathComponent(LostAndFound.directoryName)
        guard FileManager.default.fileExists(atPath: lost.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: lost.path).filter { name in
            (try? Data(contentsOf: lost.appendingPathComponent(name)))?.range(of: bytes) != nil
        }
    }

    /// A file renamed over the name after the link count was looked at is kept in
    /// `lost/`; the copy takes the name, and the original store is untouched.
    @Test(arguments: Shared.allCases)
    func aFileRenamedToTheNameDuringTheCopyIsKept(_ shared: Shared) throws {
        let dir = TemporaryDirectory()
        let (a, b) = try HardLinkedStoreTests.linkedPair(in: dir)
        let planted = Data("a file someone put at the name meanwhile".utf8)
        let fs = try Self.actingAfterTheCopy(of: shared, in: b) { path in
            let aside = path + ".planted"
            _ = FileManager.default.createFile(atPath: aside, contents: planted)
            _ = Glibc.rename(aside, path)
        }
        let writer = try RouteStore(at: b, options: .init(compaction: .manual), fileSystem: fs)
        _ = try writer.save(HardLinkedStoreTests.route(300))
        try writer.close()
        #expect(try Self.lostFiles(in: b, holding: planted).count == 1, "\(shared): the file put at the name was deleted")
        #expect(try HardLinkedStoreTests.contents(b) == HardLinkedStoreTests.expected([1: 1, 2: 2, 3: 3, 4: 300]))
        #expect(try HardLinkedStoreTests.contents(a) == HardLinkedStoreTests.expected([1: 1, 2: 2, 3: 3]))
    }

    /// The shared file whose other names went meanwhile (with bytes written after the
    /// copy) is kept in `lost/`: with no other name, unlinking this one would delete it.
    @Test(arguments: Shared.allCases)
    func theSharedFileLeftWithThisNameAloneIsKept(_ shared: Shared) throws {
        let dir = TemporaryDirectory()
        let (a, b) = try HardLinkedStoreTests.linkedPair(in: dir)
        let written = Data("bytes the other store wrote after the copy".utf8)
        let other = a.appendingPathComponent(try shared.name(in: a)).path
        let fs = try Self.actingAfterTheCopy(of: shared, in: b) { _ in Self.appendThenUnlink(written, other) }
        let writer = try RouteStore(at: b, options: .init(compaction: .manual), fileSystem: fs)
        try writer.close()
        #expect(!FileManager.default.fileExists(atPath: other), "the hook did not run")
        #expect(try Self.lostFiles(in: b, holding: written).count == 1, "\(shared): the shared file was deleted")
        #expect(try HardLinkedStoreTests.contents(b) == HardLinkedStoreTests.expected([1: 1, 2: 2, 3: 3]))
    }

    /// Nothing acting meanwhile: the shared file loses this store's name alone (no copy
    /// of it in `lost/`, no `.tmp` left), and the other store's name still leads to it.
    @Test(arguments: Shared.allCases)
    func theSharedFileLosesThisStoresNameAlone(_ shared: Shared) throws {
        let dir = TemporaryDirectory()
        let (a, b) = try HardLinkedStoreTests.linkedPair(in: dir)
        let name = try shared.name(in: a)
        let before = try FileManager.default.attributesOfItem(atPath: a.appendingPathComponent(name).path)[.systemFileNumber] as? Int
        let writer = try RouteStore(at: b, options: .init(compaction: .manual), fileSystem: InterceptingFileSystem())
        try writer.close()
        let after = try FileManager.default.attributesOfItem(atPath: a.appendingPathComponent(name).path)
        #expect(after[.systemFileNumber] as? Int == before)
        #expect(after[.referenceCount] as? Int == 1)
        let lost = LostAndFound(files: LogFiles(directory: b.path, fileSystem: PosixFileSystem.shared)).listing().entries
        #expect(lost.isEmpty, "\(lost)")
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: b.path).contains { $0.hasSuffix(FormatConstants.temporarySuffix) }))
    }

    /// A file system that cannot swap two names.
    struct NoExchange: ForwardingFileSystem {
        let base: any FileSystem = PosixFileSystem.shared
        func exchange(_ a: String, with b: String) throws { throw Errno(code: ENOTSUP) }
    }

    /// Where the file system cannot swap, the copy is renamed over the name once the
    /// name is seen to lead to the shared file still; each store keeps its own routes.
    @Test func aFileSystemThatCannotSwapGetsCopiesAllTheSame() throws {
        let dir = TemporaryDirectory()
        let (a, b) = try HardLinkedStoreTests.linkedPair(in: dir)
        let writer = try RouteStore(at: b, options: .init(compaction: .manual), fileSystem: NoExchange())
        _ = try writer.save(HardLinkedStoreTests.route(300))
        try writer.close()
        let writerA = try RouteStore(at: a, options: .init(compaction: .manual))
        _ = try writerA.save(HardLinkedStoreTests.route(100))
        try writerA.close()
        #expect(try HardLinkedStoreTests.contents(b) == HardLinkedStoreTests.expected([1: 1, 2: 2, 3: 3, 4: 300]))
        #expect(try HardLinkedStoreTests.contents(a) == HardLinkedStoreTests.expected([1: 1, 2: 2, 3: 3, 4: 100]))
    }
}
