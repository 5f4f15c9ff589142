import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// Attacks on the LOCK put-back: odd things at LOCK and at lost/ when the writer closes,
/// and the windows between a look at a name and the call on it (another process acting
/// in that instant): nothing planted is deleted, and no file outside the store replaced.
@Suite struct LockPutBackAttackTests {

    enum AtLOCK: String, CaseIterable, Sendable { case directory, danglingLink, victimLink, fifo, otherPid }
    enum AtLost: String, CaseIterable, Sendable { case normal, missing, plainFile, linkToVictimDir }

    /// close() with LOCK replaced by `lockKind` and lost/ in state `lostKind`: the close
    /// returns, lets the store go (a next writer opens it), follows and changes no victim,
    /// and keeps whatever was planted (at LOCK, or in the store's own lost/).
    @Test(arguments: AtLOCK.allCases, AtLost.allCases)
    func closeWithOddLOCKAndLost(_ lockKind: AtLOCK, _ lostKind: AtLost) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        try RouteStore(at: url).close()
        let writer = try RouteStore(at: url, options: .init(compaction: .manual))
        _ = try writer.save(Fixtures.sampleWalk(seed: 1, points: 20))
        let lock = LockPutBackTests.lockPath(url)
        let victim = dir.url.appendingPathComponent("victim")
        let victimBytes = Data("victim bytes\n".utf8)
        try victimBytes.write(to: victim)
        let victimDir = dir.url.appendingPathComponent("victim-dir")
        try FileManager.default.createDirectory(at: victimDir, withIntermediateDirectories: true)
        let victimDirBytes = Data("another store's lost copy\n".utf8)
        try victimDirBytes.write(to: victimDir.appendingPathComponent("LOCK@0"))

        let lost = url.appendingPathComponent(LostAndFound.directoryName)
        try? FileManager.default.removeItem(at: lost)
        switch lostKind {
        case .normal: try FileManager.default.createDirectory(at: lost, withIntermediateDirectories: true)
        case .missing: break
        case .plainFile: try Data("x\n".utf8).write(to: lost)
        case .linkToVictimDir: #expect(symlink(victimDir.path, lost.path) == 0)
        }
        try FileManager.default.removeItem(atPath: lock)
        switch lockKind {
        case .directory:
            #expect(mkdir(lock, 0o755) == 0)
            try Data("inside\n".utf8).write(to: URL(fileURLWithPath: lock + "/inside"))
        case .danglingLink: #expect(symlink(dir.url.appendingPathComponent("nowhere").path, lock) == 0)
        case .victimLink: #expect(symlink(victim.path, lock) == 0)
        case .fifo: #expect(mkfifo(lock, 0o600) == 0)
        case .otherPid: try Data("1 0123456789abcdef\n".utf8).write(to: URL(fileURLWithPath: lock))
        }
        let note = "LOCK \(lockKind), lost \(lostKind)"
        let closed = withinTime(20) { try writer.close() }
        #expect(closed != nil, "\(note): close blocked")
        #expect(FileManager.default.contents(atPath: victim.path) == victimBytes, "\(note): victim changed")
        #expect(FileManager.default.contents(atPath: victimDir.appendingPathComponent("LOCK@0").path) == victimDirBytes,
                "\(note): victim dir's file changed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: victimDir.path) == ["LOCK@0"],
                "\(note): something was moved into the victim directory")
        #expect(RouteStore.writerProcess(at: url) == nil, "\(note): the store is still held after close")
        // The planted thing is somewhere in the store: at LOCK or in lost/.
        var info = stat()
        let atLock = lstat(lock, &info) == 0
        let inLost = lstat(lost.path + "/LOCK@0", &info) == 0
        #expect(atLock || inLost, "\(note): the planted thing is gone")
        // A next writer either opens, or refuses with a clear error; never `.locked`.
        let next = withinTime(20) { try RouteStore(at: url, options: .init(mode: .mustExist, compaction: .manual)) }
        switch next {
        case .success(let store)?: try store.close()
        case .failure(let error as RouteLogError)?: #expect(error.code != .locked, "\(note): \(error)")
        case .failure(let error)?: Issue.record("\(note): \(error)")
        case nil: Issue.record("\(note): a next open blocked")
        }
    }

    /// A file system that, just before a chosen call, does something another process
    /// could do at that instant.
    final class Interposer: ForwardingFileSystem, @unchecked Sendable {
        let base: any FileSystem = PosixFileSystem.shared
        let beforeUnlink = StateLock<(@Sendable (String) -> Void)?>(nil)
        let beforeRename = StateLock<(@Sendable (String, String) -> Void)?>(nil)
        func unlink(_ path: String) throws {
            beforeUnlink.withLock { $0 }?(path)
            try base.unlink(path)
        }
        func rename(_ from: String, to: String) throws {
            beforeRename.withLock { $0 }?(from, to)
            try base.rename(from, to: to)
        }
        func renameExclusive(_ from: String, to: String) throws {
            beforeRename.withLock { $0 }?(from, to)
            try base.renameExclusive(from, to: to)
        }
        // The same calls made in open directories, given the paths they name there.
        func unlink(_ name: String, in directory: DirectoryRef) throws {
            beforeUnlink.withLock { $0 }?(directory.path(name))
            try base.unlink(name, in: directory)
        }
        func rename(_ name: String, in source: DirectoryRef, to target: String, in destination: DirectoryRef) throws {
            beforeRename.withLock { $0 }?(source.path(name), destination.path(target))
            try base.rename(name, in: source, to: target, in: destination)
        }
        func renameExclusive(_ name: String, in source: DirectoryRef, to target: String, in destination: DirectoryRef) throws {
            beforeRename.withLock { $0 }?(source.path(name), destination.path(target))
            try base.renameExclusive(name, in: source, to: target, in: destination)
        }
    }

    /// LOCK given a second name (`cp -al`), then at close the put-back sees its own file
    /// at LOCK and moves the name into lost/. Another process renames a file of its own
    /// over LOCK between that look and the move (here just before the writer's rename,
    /// or unlink were it to unlink): the file is kept, at LOCK or in lost/.
    @Test func aFileSwappedInBeforeTheMoveOfASecondNameIsKept() throws {
        let dir = TemporaryDirectory()
        let fs = Interposer()
        let (url, writer) = try LockPutBackTests.store(in: dir, writtenThrough: fs)
        let lock = LockPutBackTests.lockPath(url)
        #expect(link(lock, dir.url.appendingPathComponent("LOCK-backup").path) == 0)
        let planted = dir.url.appendingPathComponent("planted")
        let bytes = Data("someone else's only copy\n".utf8)
        try bytes.write(to: planted)
        let swap: @Sendable (String) -> Void = { path in
            guard path.hasSuffix("/LOCK") else { return }
            _ = Glibc.rename(planted.path, path)  // another process, at this instant
        }
        fs.beforeUnlink.withLock { $0 = swap }
        fs.beforeRename.withLock { $0 = { from, _ in swap(from) } }
        try writer.close()
        fs.beforeUnlink.withLock { $0 = nil }
        fs.beforeRename.withLock { $0 = nil }
        let kept = FileManager.default.contents(atPath: lock) == bytes
            || FileManager.default.contents(atPath: url.appendingPathComponent("lost/LOCK@0").path) == bytes
        #expect(kept, "the file renamed over LOCK before the unlink was deleted")
    }

    /// A planted LOCK is moved into lost/ after lost/ was checked to be a real folder;
    /// lost/ is swapped for a link to another folder (here one holding `LOCK@0`, as
    /// another store's lost/ does) just before the rename: the rename does not replace
    /// that file, and the move is given up when lost/ is checked again (the planted
    /// file stays at LOCK).
    @Test func lostSwappedForALinkNeverReplacesAFileOutside() throws {
        let dir = TemporaryDirectory()
        let fs = Interposer()
        let (url, writer) = try LockPutBackTests.store(in: dir, writtenThrough: fs)
        let lock = LockPutBackTests.lockPath(url)
        let lost = url.appendingPathComponent(LostAndFound.directoryName).path
        try FileManager.default.createDirectory(atPath: lost, withIntermediateDirectories: true)
        let other = dir.url.appendingPathComponent("other-store-lost")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        let otherBytes = Data("kept by another store\n".utf8)
        try otherBytes.write(to: other.appendingPathComponent("LOCK@0"))
        try FileManager.default.removeItem(atPath: lock)
        try Data("planted\n".utf8).write(to: URL(fileURLWithPath: lock))
        fs.beforeRename.withLock {
            $0 = { from, to in
                guard from.hasSuffix("/LOCK"), to.contains("/lost/") else { return }
                _ = Glibc.rename(lost, lost + ".moved")  // another process, at this instant
                _ = Glibc.symlink(other.path, lost)
            }
        }
        try writer.close()
        fs.beforeRename.withLock { $0 = nil }
        #expect(FileManager.default.contents(atPath: other.appendingPathComponent("LOCK@0").path) == otherBytes,
                "a file outside the store was replaced through a swapped lost/")
        #expect(try FileManager.default.contentsOfDirectory(atPath: other.path) == ["LOCK@0"],
                "something was moved out of the store through lost/")
    }

    /// Another process plants things at LOCK in a loop (a link to a victim, a FIFO, a
    /// directory, a file with another pid) while the writer cuts and closes, and others
    /// ask who writes and try to open a second writer: no victim changes, no second
    /// writer opens, no pid but the writer's is named, nothing blocks.
    @Test func plantingInALoopDuringCutsAndClose() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        try RouteStore(at: url).close()
        let fs = LockPutBackTests.CutOnDemand()
        let writer = try RouteStore(at: url, options: .init(compaction: .manual), fileSystem: fs)
        let lock = LockPutBackTests.lockPath(url)
        let victim = dir.url.appendingPathComponent("victim")
        let victimBytes = Data("victim\n".utf8)
        try victimBytes.write(to: victim)
        let stop = StateLock(false)
        let wrongPid = StateLock<[Int32]>([])
        let secondOpened = StateLock(0)
        let closing = StateLock(false)
        let planter = Thread {
            var n = 0
            let tmp = dir.url.appendingPathComponent("tmp").path
            while !stop.withLock({ $0 }) {
                n += 1
                switch n % 5 {
                case 0: _ = Glibc.symlink(victim.path, tmp); _ = Glibc.rename(tmp, lock)
                case 1: _ = mkfifo(tmp, 0o600); _ = Glibc.rename(tmp, lock)
                case 2: _ = Glibc.unlink(lock); _ = mkdir(lock, 0o700)
                case 3: try? Data("1 0123456789abcdef\n".utf8).write(to: URL(fileURLWithPath: tmp)); _ = Glibc.rename(tmp, lock)
                default: _ = Glibc.unlink(lock); _ = Glibc.rmdir(lock)
                }
                _ = Glibc.unlink(tmp)
            }
        }
        let prober = Thread {
            while !stop.withLock({ $0 }) {
                if let pid = RouteStore.writerProcess(at: url), pid != getpid(), pid != -1 { wrongPid.withLock { $0.append(pid) } }
                if let second = try? RouteStore(at: url, options: .init(mode: .mustExist, compaction: .manual)) {
                    // Looked at once the open returned: an open that began before the
                    // writer's close and got the store once it was let go is no second
                    // writer (a refused open tries the directory lock for a while).
                    if !closing.withLock({ $0 }) { secondOpened.withLock { $0 += 1 } }
                    try? second.close()
                }
            }
        }
        planter.start()
        prober.start()
        var stopped = false
        for round in 0..<40 where !stopped {
            fs.arm()
            let saved = withinTime(20) { try writer.save(Fixtures.sampleWalk(seed: UInt64(round + 2), points: 30)) }
            guard let saved else { Issue.record("round \(round): a save blocked"); break }
            if case .failure(let error as RouteLogError) = saved, error.errno != ENOSPC { stopped = true }
        }
        closing.withLock { $0 = true }
        let closed = withinTime(20) { try writer.close() }
        stop.withLock { $0 = true }
        usleep(50_000)
        #expect(closed != nil, "close blocked")
        #expect(FileManager.default.contents(atPath: victim.path) == victimBytes)
        #expect(wrongPid.withLock { $0 }.isEmpty, "writerProcess named \(wrongPid.withLock { $0 })")
        #expect(secondOpened.withLock { $0 } == 0, "a second writer opened the store")
        #expect(RouteStore.writerProcess(at: url) == nil)
    }
}

extension LockPutBackAttackTests {
    /// The same window as aFileSwappedInBeforeTheMoveOfASecondNameIsKept, raced for
    /// real by another thread (no injected file system): each round a writer whose LOCK
    /// has a second name closes while another thread renames one file of its own over
    /// LOCK after a random delay; a round whose file is neither at LOCK nor in lost/
    /// afterwards was lost by the writer (RACE_SECONDS, default 3, sets how long).
    @Test func racingARenameAgainstTheCloseOfALinkedLOCK() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        try RouteStore(at: url).close()
        let lock = LockPutBackTests.lockPath(url)
        var deleted = 0, rounds = 0
        let deadline = Date().addingTimeInterval(Double(ProcessInfo.processInfo.environment["RACE_SECONDS"] ?? "3") ?? 3)
        while Date() < deadline {
            rounds += 1
            let writer = try RouteStore(at: url, options: .init(compaction: .manual))
            let backup = dir.url.appendingPathComponent("backup").path
            _ = Glibc.unlink(backup)
            #expect(link(lock, backup) == 0)
            let planted = dir.url.appendingPathComponent("planted").path
            let bytes = Data("round \(rounds)\n".utf8)
            try bytes.write(to: URL(fileURLWithPath: planted))
            let delay = UInt32.random(in: 0...400)
            let go = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                go.wait()
                var spin = 0
                for _ in 0..<(delay * 20) { spin &+= 1 }
                _ = Glibc.rename(planted, lock)
                done.signal()
                _ = spin
            }
            go.signal()
            try writer.close()
            done.wait()
            let lostDir = url.appendingPathComponent("lost").path
            let inLost = ((try? FileManager.default.contentsOfDirectory(atPath: lostDir)) ?? []).contains { name in
                FileManager.default.contents(atPath: lostDir + "/" + name) == bytes
            }
            let atLock = FileManager.default.contents(atPath: lock) == bytes
            if !inLost && !atLock { deleted += 1 }
            // Start the next round from a plain LOCK.
            if atLock { _ = Glibc.unlink(lock) }
        }
        print("race: rounds=\(rounds) planted files deleted by the writer=\(deleted)")
        #expect(deleted == 0, "\(deleted) of \(rounds) planted files were deleted")
    }
}
