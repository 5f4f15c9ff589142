import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// A file system that calls a hook before every path call (isDirectory and listDirectory
/// included) and can fail the Nth call through a backup's held directory with EIO.
final class AttackFileSystem: ForwardingFileSystem, @unchecked Sendable {
    let base: any FileSystem = PosixFileSystem.shared
    let hook = StateLock<(@Sendable (String, String) -> Void)?>(nil)
    /// Fail the Nth call (1-based) whose path starts with /proc/self/fd/ (0: none).
    let failProcCall = StateLock(0)
    let procCalls = StateLock(0)
    private func call(_ name: String, _ path: String) throws {
        hook.withLock { $0 }?(name, path)
        if path.hasPrefix("/proc/self/fd/") {
            let n = procCalls.withLock { c -> Int in c += 1; return c }
            if failProcCall.withLock({ $0 }) == n { throw Errno(code: EIO) }
        }
    }
    func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef {
        try call(flags & O_CREAT != 0 ? "create" : "open", path)
        return try base.open(path, flags: flags, mode: mode)
    }
    func pwrite(_ file: FileRef, _ buffer: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        try call("write", file.path)
        return try base.pwrite(file, buffer, at: offset)
    }
    func syncAll(_ file: FileRef) throws { try call("syncAll", file.path); try base.syncAll(file) }
    func rename(_ from: String, to: String) throws { try call("rename", to); try base.rename(from, to: to) }
    func unlink(_ path: String) throws { try call("unlink", path); try base.unlink(path) }
    func syncDirectory(_ path: String) throws { try call("syncDirectory", path); try base.syncDirectory(path) }
    func listDirectory(_ path: String) throws -> [String] { try call("list", path); return try base.listDirectory(path) }
    func isDirectory(_ path: String) -> Bool? { try? call("isDirectory", path); return base.isDirectory(path) }
    // The same calls made in open directories, given the paths they name there.
    func open(_ name: String, in directory: DirectoryRef, flags: Int32, mode: UInt32) throws -> FileRef {
        try call(flags & O_CREAT != 0 ? "create" : "open", directory.path(name))
        return try base.open(name, in: directory, flags: flags, mode: mode)
    }
    func rename(_ name: String, in source: DirectoryRef, to target: String, in destination: DirectoryRef) throws {
        try call("rename", destination.path(target))
        try base.rename(name, in: source, to: target, in: destination)
    }
    func renameExclusive(_ name: String, in source: DirectoryRef, to target: String, in destination: DirectoryRef) throws {
        try call("rename", destination.path(target))
        try base.renameExclusive(name, in: source, to: target, in: destination)
    }
    func unlink(_ name: String, in directory: DirectoryRef) throws {
        try call("unlink", directory.path(name))
        try base.unlink(name, in: directory)
    }
    func syncDirectory(_ directory: DirectoryRef) throws {
        try call("syncDirectory", directory.path)
        try base.syncDirectory(directory)
    }
    func listDirectory(_ directory: DirectoryRef) throws -> [String] {
        try call("list", directory.path)
        return try base.listDirectory(directory)
    }
}

/// Attacks on a backup's destination beyond the swaps of ``BackupDestinationSwapTests``:
/// a swap only while the backup checks that the destination is an earlier backup, a swap
/// after the writer's last check (before the final verification), every call through
/// the held directory failing in turn, descriptors running out, and backups racing into
/// one destination.
@Suite(.serialized) struct BackupAnchorAttackTests {
    /// The process's descriptors open on something under `directory` (moved or deleted
    /// since included: their link still names the path): unlike a count of all of them,
    /// not moved by other suites running at the same time.
    static func openDescriptors(under directory: URL) -> Int {
        let root = directory.resolvingSymlinksInPath().path + "/"
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { fd in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)") else { return false }
            return target.hasPrefix(root)
        }.count
    }

    /// Every file's bytes; `LOCK`'s as whether it names a writer. Taking and letting go
    /// of the lock (as a refused backup may) leaves a new writer's mark there, which only
    /// makes readers that follow the store read it again (WriterMark); a pid left
    /// behind would be a writer's claim, and counts.
    static func contents(_ url: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: url.path) {
            let bytes = try Data(contentsOf: url.appendingPathComponent(name))
            if name == FormatConstants.lockName {
                let pid = WriterMark.parse(Array(bytes))?.pid ?? nil
                files[name] = Data((pid.map { "writer \($0)" } ?? "no writer").utf8)
            } else {
                files[name] = bytes
            }
        }
        return files
    }

    /// A destination that is another store, swapped for an earlier backup of this store
    /// only while the backup checks what it holds, and swapped back before the writer's
    /// first call: the check reads the held directory (the other store) and refuses it.
    @Test func theEarlierBackupCheckReadsTheHeldDirectory() throws {
        let dir = TemporaryDirectory()
        var routes = RandomRoutes(seed: 99)
        // The victim: another store, at the path the backup is given.
        let destination = dir.url.appendingPathComponent("backup.routelog")
        let victim = try RouteStore(at: destination, options: .init(segmentSizeLimit: 8 << 10))
        try victim.save((0..<20).map { _ in routes.next() })
        let victimRoutes = try victim.summaries().map(\.uuid)
        try victim.close()
        let before = try Self.contents(destination)

        let fs = AttackFileSystem()
        let store = try RouteStore(at: dir.store("main.routelog"), options: .init(segmentSizeLimit: 8 << 10), fileSystem: fs)
        defer { try? store.close() }
        try store.save((0..<3).map { _ in routes.next() })
        // A plain backup into the victim is refused (the check works when nobody swaps).
        #expect(throws: RouteLogError.self) { try store.backup(to: destination) }
        #expect(try Self.contents(destination) == before)
        // An earlier backup of this store, elsewhere.
        let decoy = dir.url.appendingPathComponent("decoy.routelog")
        try store.backup(to: decoy)

        let aside = dir.url.appendingPathComponent("victim-aside.routelog")
        let phase = StateLock(0)  // 0: waiting for the lock, 1: lock taken, 2: swapped, 3: swapped back
        fs.hook.withLock {
            $0 = { call, path in
                let p = phase.withLock { $0 }
                if p == 0, path.hasSuffix("/" + FormatConstants.lockName),
                   path.hasPrefix(destination.path + "/") || path.hasPrefix("/proc/self/fd/") {
                    phase.withLock { $0 = 1 }
                } else if p == 1, call == "isDirectory", path.hasSuffix("/" + FormatConstants.manifestName) {
                    // checkIsBackup's first look by path: show it the decoy.
                    try? FileManager.default.moveItem(at: destination, to: aside)
                    try? FileManager.default.moveItem(at: decoy, to: destination)
                    phase.withLock { $0 = 2 }
                } else if p == 2, path.hasPrefix("/proc/self/fd/") {
                    // The writer's first call through the anchor: put things back.
                    try? FileManager.default.moveItem(at: destination, to: decoy)
                    try? FileManager.default.moveItem(at: aside, to: destination)
                    phase.withLock { $0 = 3 }
                }
            }
        }
        defer { fs.hook.withLock { $0 = nil } }
        #expect(throws: RouteLogError.self) { try store.backup(to: destination) }
        fs.hook.withLock { $0 = nil }
        #expect(phase.withLock { $0 } >= 2, "the swap happened")
        if phase.withLock({ $0 }) == 2 {
            // Refused before the writer's first call: the attacker's swap back is undone here.
            try FileManager.default.moveItem(at: destination, to: decoy)
            try FileManager.default.moveItem(at: aside, to: destination)
        }
        #expect(try Self.contents(destination) == before, "the other store's files are unchanged")
        let reopened = try RouteStore(at: destination, options: .init(mode: .readOnly))
        let nowRoutes = try reopened.summaries().map(\.uuid)
        try reopened.close()
        #expect(nowRoutes == victimRoutes, "the other store at the destination lost its routes")
    }

    /// The destination swapped for a link to another store after the writer's last
    /// check: the final verification still reads the backup that was written (held
    /// open), never the store the path now leads to.
    @Test func theFinalVerificationReadsTheBackupWritten() throws {
        let dir = TemporaryDirectory()
        var routes = RandomRoutes(seed: 7)
        let other = dir.store("other.routelog")
        let o = try RouteStore(at: other)
        try o.save((0..<5).map { _ in routes.next() })
        try o.close()

        let fs = AttackFileSystem()
        let store = try RouteStore(at: dir.store("main.routelog"), options: .init(), fileSystem: fs)
        defer { try? store.close() }
        try store.save((0..<12).map { _ in routes.next() })
        let destination = dir.url.appendingPathComponent("backup.routelog")
        let moved = dir.url.appendingPathComponent("backup-moved.routelog")
        let phase = StateLock(0)
        fs.hook.withLock {
            $0 = { call, path in
                let p = phase.withLock { $0 }
                if p == 0, call == "rename", path.hasPrefix("/proc/self/fd/"), path.hasSuffix("/" + FormatConstants.manifestName) {
                    phase.withLock { $0 = 1 }
                } else if p == 1, call == "list", path.hasPrefix("/proc/self/fd/") {
                    // After the writer's last check: the listing before the clean-up.
                    try? FileManager.default.moveItem(at: destination, to: moved)
                    try? FileManager.default.createSymbolicLink(at: destination, withDestinationURL: other)
                    phase.withLock { $0 = 2 }
                }
            }
        }
        let outcome = Result { try store.backup(to: destination) }
        fs.hook.withLock { $0 = nil }
        let real = try RouteStore(at: moved, options: .init(mode: .readOnly))
        let realCount = try real.count
        try real.close()
        #expect(phase.withLock { $0 } == 2, "the swap happened")
        let report = try outcome.get()
        #expect(report.routeCount == realCount && realCount == 12, "the report describes the backup written")
    }

    /// Failing every call through the held directory in turn: no error names the
    /// descriptor path, /proc/self/fd/N, in its message or its path.
    @Test func noErrorNamesTheDescriptorPath() throws {
        let dir = TemporaryDirectory()
        var routes = RandomRoutes(seed: 3)
        let fs = AttackFileSystem()
        let store = try RouteStore(at: dir.store("main.routelog"), options: .init(segmentSizeLimit: 8 << 10), fileSystem: fs)
        defer { try? store.close() }
        try store.save((0..<12).map { _ in routes.next() })
        var leaks: [String] = []
        var failures = 0
        for n in 1...200 {
            let destination = dir.url.appendingPathComponent("b\(n % 2).routelog")
            if n % 2 == 0 { _ = try? store.save(routes.next()) }
            fs.procCalls.withLock { $0 = 0 }
            fs.failProcCall.withLock { $0 = n }
            do {
                try store.backup(to: destination)
            } catch {
                failures += 1
                let text = "\(error) \(String(describing: (error as? RouteLogError)?.path))"
                if text.contains("/proc/self") { leaks.append("call \(n): \(text)") }
            }
            fs.failProcCall.withLock { $0 = 0 }
            if fs.procCalls.withLock({ $0 }) < n { break }
        }
        #expect(failures > 10)
        #expect(leaks.isEmpty)
    }

    /// Descriptors before and after many backups, succeeding and failing (no saves in
    /// the loop: the source store keeps one descriptor per segment open).
    @Test func noDescriptorLeaks() throws {
        let dir = TemporaryDirectory()
        var routes = RandomRoutes(seed: 4)
        let fs = AttackFileSystem()
        let store = try RouteStore(at: dir.store("main.routelog"), options: .init(segmentSizeLimit: 8 << 10), fileSystem: fs)
        defer { try? store.close() }
        try store.save((0..<12).map { _ in routes.next() })
        let a = dir.url.appendingPathComponent("a.routelog"), b = dir.url.appendingPathComponent("b.routelog")
        try store.backup(to: a)
        try store.backup(to: b)
        let start = Self.openDescriptors(under: dir.url)
        #expect(start > 0, "the source store's segments are open under the test's directory")
        var outcomes: [String: Int] = [:]
        for i in 0..<60 {
            let destination = i % 2 == 0 ? a : b
            if i % 3 == 0 { try? FileManager.default.removeItem(at: destination) }  // a full copy now and then
            fs.procCalls.withLock { $0 = 0 }
            fs.failProcCall.withLock { $0 = i % 4 == 1 ? 1 + i % 13 : 0 }
            let swapped = StateLock(i % 4 != 3)
            fs.hook.withLock {
                $0 = { call, path in
                    guard call == "rename", path.hasPrefix("/proc/self/fd/"), !swapped.withLock({ $0 }) else { return }
                    swapped.withLock { $0 = true }
                    try? FileManager.default.moveItem(at: destination, to: dir.url.appendingPathComponent("away\(i)"))
                    try? FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)
                }
            }
            do { try store.backup(to: destination); outcomes["ok", default: 0] += 1 } catch {
                outcomes[String("\(error)".prefix(40)), default: 0] += 1
            }
            fs.hook.withLock { $0 = nil }
            fs.failProcCall.withLock { $0 = 0 }
            if i % 4 == 3 { try? FileManager.default.removeItem(at: destination) }
        }
        let end = Self.openDescriptors(under: dir.url)
        #expect(end <= start)
    }

    /// The held directory's open failing for lack of descriptors is reported as what it
    /// is, never as the destination having been moved or replaced. Each backup runs in a
    /// `routelog backup` whose limit of open files is a few more than it starts with, so
    /// that its opens fail one after another as the limit goes up; the descriptors of
    /// this process (shared by every test running beside it) are never used up.
    @Test func runningOutOfDescriptorsIsNotReportedAsAMovedDestination() throws {
        let routelog = try #require(SegmentFileLimitTests.routelog, "the routelog executable is built beside the tests")
        let dir = TemporaryDirectory()
        var routes = RandomRoutes(seed: 5)
        let source = dir.store("main.routelog")
        let store = try RouteStore(at: source)
        try store.save((0..<12).map { _ in routes.next() })
        try store.close()
        var outcomes: [Int: String] = [:]
        for limit in 6...40 {
            let destination = dir.url.appendingPathComponent("backup\(limit).routelog")
            let run = try SegmentFileLimitTests.run(routelog, ["backup", source.path, destination.path], limit: limit)
            outcomes[limit] = run.status == 0 ? "success" : run.stderr
        }
        let failures = outcomes.filter { $0.value != "success" }
        #expect(!failures.isEmpty && failures.count < outcomes.count, "the limits cover failing and whole backups: \(outcomes)")
        #expect(failures.values.contains { $0.contains("Too many open files") }, "\(outcomes.sorted { $0.key < $1.key })")
        #expect(!failures.values.contains { $0.contains("moved or replaced") }, "EMFILE reported as a moved destination: \(failures)")
    }

    /// A destination another handle writes: its lock, taken through the held directory,
    /// gives `.locked` naming the destination's own path.
    @Test func aDestinationHeldForWritingIsLockedAndNamedByItsPath() throws {
        let dir = TemporaryDirectory()
        var routes = RandomRoutes(seed: 11)
        let store = try RouteStore(at: dir.store("main.routelog"))
        defer { try? store.close() }
        try store.save(routes.next())
        let destination = dir.store("held.routelog")
        let holder = try RouteStore(at: destination)
        defer { try? holder.close() }
        let real = try #require(RealPath.resolve(destination.path))
        #expect {
            try store.backup(to: destination)
        } throws: { error in
            guard let error = error as? RouteLogError else { return false }
            return error.code == .locked && error.path == real && !"\(error)".contains("/proc/self")
        }
    }

    /// Two stores back up into one destination at the same time, many rounds, the first
    /// ones into a missing destination: each backup succeeds or is refused (.locked /
    /// .invalidArgument), and the destination is always a whole store that verifies.
    @Test func concurrentBackupsIntoOneDestination() throws {
        let dir = TemporaryDirectory()
        var routes = RandomRoutes(seed: 8)
        let s1 = try RouteStore(at: dir.store("one.routelog"), options: .init(segmentSizeLimit: 8 << 10))
        let s2 = try RouteStore(at: dir.store("two.routelog"), options: .init(segmentSizeLimit: 8 << 10))
        defer { try? s1.close(); try? s2.close() }
        try s1.save((0..<10).map { _ in routes.next() })
        try s2.save((0..<10).map { _ in routes.next() })
        let destination = dir.url.appendingPathComponent("shared.routelog")
        let state = StateLock((unexpected: [String](), codes: [String: Int]()))
        for _ in 0..<15 {
            DispatchQueue.concurrentPerform(iterations: 3) { k in
                let store = k == 1 ? s2 : s1
                do { try store.backup(to: destination); state.withLock { $0.codes["ok", default: 0] += 1 } } catch let e as RouteLogError {
                    state.withLock {
                        $0.codes[e.code.rawValue, default: 0] += 1
                        if e.code != .locked && e.code != .invalidArgument { $0.unexpected.append("\(e)") }
                    }
                } catch { state.withLock { $0.unexpected.append("\(error)") } }
            }
            let copy = try RouteStore(at: destination, options: .init(mode: .readOnly))
            #expect(try copy.verify().isClean)
            try copy.close()
        }
        let unexpected = state.withLock { $0.unexpected }
        #expect(unexpected.isEmpty)
    }
}
