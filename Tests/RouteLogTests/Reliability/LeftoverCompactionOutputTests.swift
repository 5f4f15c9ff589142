import Foundation
import Testing
@testable import RouteLog

/// A compaction's output that a crash before its switch leaves behind holds copies, and
/// the next open deletes it only while the live records it copied read back
/// (docs/recovery-and-compaction.md, "What is never destroyed"): the only whole copy of
/// a delete goes to `lost/`, and an edit made while the compaction copied does not send
/// the output there.
@Suite struct LeftoverCompactionOutputTests {
    static let options = DamageTheIndexCannotNameTests.options

    /// A compaction copies route A's delete into its output (A's RoutePut stays in the
    /// kept segment 1), then fails at its switch. Bit rot then hits the live delete:
    /// the index still vouches for it, so the open finds no damage, and the output holds
    /// the only whole copy of an acknowledged delete.
    @Test func anOutputHoldingTheOnlyWholeCopyOfADeleteGoesToLost() throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        let fileSystem = DamageTheIndexCannotNameTests.FailingManifestRename()
        let store = try RouteStore(at: url, options: Self.options, fileSystem: fileSystem)
        let a = try store.save(Fixtures.sampleWalk(seed: 1, points: 10))
        _ = try store.save(Fixtures.sampleWalk(seed: 2, points: 2000))
        _ = try store.save(Fixtures.sampleWalk(seed: 3, points: 2000))
        try store.withWriter { try $0.roll() }
        let b = try store.save(Fixtures.sampleWalk(seed: 4, points: 2000))
        let c = try store.save(Fixtures.sampleWalk(seed: 5, points: 2000))
        _ = try store.save(Fixtures.sampleWalk(seed: 6, points: 10))
        for id in [a, b, c] { try store.delete(id) }
        try store.withWriter { try $0.roll() }
        let deleteAt = try #require(store.state.withLock { $0.index.tombstones[a] }?.events.last?.location)
        #expect(deleteAt.segment != 1)
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: url.path))
        fileSystem.armed.withLock { $0 = true }
        #expect(throws: RouteLogError.self) { try store.compact() }
        try? store.close()
        let outputs = Set(try FileManager.default.contentsOfDirectory(atPath: url.path)).subtracting(before)
            .filter { $0.hasPrefix(FormatConstants.segmentPrefix) }
        #expect(!outputs.isEmpty, "the failed compaction left no output")
        let segment = url.appendingPathComponent(FormatConstants.segmentName(deleteAt.segment))
        var bytes = [UInt8](try Data(contentsOf: segment))
        bytes[Int(deleteAt.offset) + deleteAt.length / 2] ^= 0x10
        try Data(bytes).write(to: segment)

        let reopened = try RouteStore(at: url, options: Self.options)
        let lostFiles = try reopened.verify().lostFiles.map(\.name)
        try reopened.close()
        for output in outputs {
            #expect(lostFiles.contains { $0.hasPrefix(output) }, "\(output) holds the only whole copy of \(a)'s delete: \(lostFiles)")
        }
    }

    /// The real file system, except that once armed it runs `hook` right after the
    /// compaction creates its index (the copy done, the switch not yet), and then fails
    /// every rename onto MANIFEST (the process dies before the switch).
    final class EditBeforeTheSwitch: ForwardingFileSystem, @unchecked Sendable {
        let base: any FileSystem = PosixFileSystem.shared
        let armed = StateLock(false)
        let hook = StateLock<(@Sendable () -> Void)?>(nil)
        private let indexCreated = StateLock(false)
        func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef {
            let file = try base.open(path, flags: flags, mode: mode)
            if flags & O_CREAT != 0, path.contains("/" + FormatConstants.indexPrefix), armed.withLock({ $0 }) {
                indexCreated.withLock { $0 = true }
                hook.withLock { hook in
                    defer { hook = nil }
                    return hook
                }?()
            }
            return file
        }
        func rename(_ from: String, to: String) throws {
            if to.hasSuffix("/" + FormatConstants.manifestName), armed.withLock({ $0 }), indexCreated.withLock({ $0 }) {
                throw Errno(code: EIO)
            }
            try base.rename(from, to: to)
        }
    }

    /// A healthy store: while the compaction copies (saves go on), the app edits route A
    /// again; the process dies before the switch. The output holds A's older edit, and
    /// is deleted at the next open, with nothing in lost/.
    @Test func anEditWhileACompactionCopiedKeepsItsOutputOutOfLost() throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        let fileSystem = EditBeforeTheSwitch()
        let store = try RouteStore(at: url, options: Self.options, fileSystem: fileSystem)
        let a = try store.save(Fixtures.sampleWalk(seed: 1, points: 500))
        _ = try store.edit(a, RouteEdit(name: "E1"))
        try store.delete(try store.save(Fixtures.sampleWalk(seed: 2, points: 2000)))
        try store.withWriter { try $0.roll() }
        fileSystem.hook.withLock { $0 = { _ = try? store.edit(a, RouteEdit(name: "E2")) } }
        fileSystem.armed.withLock { $0 = true }
        #expect(throws: RouteLogError.self) { try store.compact() }
        #expect(fileSystem.hook.withLock { $0 == nil }, "the edit did not run")
        try? store.close()

        let reopened = try RouteStore(at: url, options: Self.options)
        #expect(try reopened.summary(a).name == "E2")
        #expect(try reopened.verify().isClean)
        try reopened.close()
        #expect(DamageTheIndexCannotNameTests.lostNames(url).isEmpty, "\(DamageTheIndexCannotNameTests.lostNames(url))")
    }

    /// A segment file a crash left before its header was written holds no record: empty,
    /// cut inside the header, or all zero bytes, it is deleted; one byte that is not zero
    /// and it goes to `lost/`, since nothing says what it held.
    @Test func aSegmentFileLeftWithoutItsHeaderIsDeletedUnlessItHoldsBytes() throws {
        let directory = TemporaryDirectory()
        let url = directory.store()
        let store = try RouteStore(at: url, options: Self.options)
        _ = try store.save(Fixtures.sampleWalk(seed: 1, points: 10))
        try store.close()
        let names = (20..<24).map(FormatConstants.segmentName)
        var someBytes = [UInt8](repeating: 0, count: 4096)
        someBytes[3000] = 1
        let contents: [[UInt8]] = [[], [UInt8](repeating: 0, count: 7), [UInt8](repeating: 0, count: 4096), someBytes]
        for (name, bytes) in zip(names, contents) { try Data(bytes).write(to: url.appendingPathComponent(name)) }
        let reopened = try RouteStore(at: url, options: Self.options)
        #expect(try reopened.verify().isClean)
        try reopened.close()
        for name in names { #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path), "\(name)") }
        let lost = DamageTheIndexCannotNameTests.lostNames(url).filter { $0 != LostAndFound.logName }
        #expect(lost == ["\(names[3])@0"], "\(lost)")
    }
}
