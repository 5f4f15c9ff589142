import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// A writer whose `LOCK` was deleted, renamed or replaced while it held the store puts a
/// new one in place when it renews its mark after a cut, and when it closes: the mark
/// then reaches followers (a mark written into a file no name leads to reaches no one),
/// the writer's pid names it again, and the next writer keeps the mark of a clean close.
/// Whatever was planted at the name is moved into `lost/`, never followed or opened.
@Suite struct LockPutBackTests {
    /// A file system whose armed segment write writes the whole group, runs
    /// `onShortWrite` (a follower reads it there) and says it wrote all but the last
    /// byte, and whose next segment write (that byte again) then fails with ENOSPC: the
    /// writer cuts the group off and goes on, a cut it announces with a new mark.
    final class CutOnDemand: ForwardingFileSystem, @unchecked Sendable {
        let base: any FileSystem
        private let armed = StateLock((short: false, failNext: false))
        private let onShortWrite: StateLock<(@Sendable () -> Void)?> = StateLock(nil)

        init(base: any FileSystem = PosixFileSystem.shared) { self.base = base }

        /// Makes the next segment write a short one, then a failed one.
        func arm(onShortWrite body: (@Sendable () -> Void)? = nil) {
            armed.withLock { $0 = (true, false) }
            onShortWrite.withLock { $0 = body }
        }

        func pwrite(_ file: FileRef, _ buffer: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
            guard file.path.contains(FormatConstants.segmentPrefix) else { return try base.pwrite(file, buffer, at: offset) }
            let (short, fail) = armed.withLock { state -> (Bool, Bool) in
                defer { state = state.short ? (false, true) : (false, false) }
                return (state.short && buffer.count > 1, state.failNext)
            }
            if fail { throw Errno(code: ENOSPC) }
            guard short else { return try base.pwrite(file, buffer, at: offset) }
            let written = try base.pwrite(file, buffer, at: offset)
            onShortWrite.withLock { $0 }?()
            return written == buffer.count ? written - 1 : written
        }
    }

    enum Escape: String, CaseIterable, Sendable {
        /// `rm LOCK`.
        case deleted
        /// `mv LOCK` out of the store.
        case renamed
        /// Another regular file put at the name (pid 1, which holds nothing).
        case replaced
        /// A second name given to the writer's file (`ln LOCK` elsewhere, as `cp -al`
        /// of the running store does): the file is no longer this store's alone.
        case linked
    }

    /// A new store in `dir`, and a writer of it whose file operations go through `fs`.
    static func store(in dir: TemporaryDirectory, writtenThrough fs: any FileSystem) throws -> (URL, RouteStore) {
        let url = dir.store()
        try RouteStore(at: url).close()
        return (url, try RouteStore(at: url, options: .init(compaction: .manual), fileSystem: fs))
    }

    static func lockPath(_ url: URL) -> String { url.appendingPathComponent(FormatConstants.lockName).path }

    /// What `LOCK` holds, parsed, when it is a regular file.
    static func lock(_ url: URL) -> (pid: Int32?, mark: String?)? {
        var info = stat()
        guard lstat(lockPath(url), &info) == 0, info.st_mode & S_IFMT == S_IFREG,
              let data = FileManager.default.contents(atPath: lockPath(url)) else { return nil }
        return WriterMark.parse([UInt8](data))
    }

    static func escape(_ escape: Escape, in url: URL, aside: URL) throws {
        let path = lockPath(url)
        switch escape {
        case .deleted: try FileManager.default.removeItem(atPath: path)
        case .renamed: try FileManager.default.moveItem(atPath: path, toPath: aside.path)
        case .replaced:
            try FileManager.default.removeItem(atPath: path)
            try Data("1\n".utf8).write(to: URL(fileURLWithPath: path))
        case .linked: #expect(link(path, aside.path) == 0)
        }
    }

    /// (1), (3), (4): after a cut, `LOCK` holds the writer's pid and the renewed mark
    /// again; `writerProcess(at:)` and a second writer's refusal name the writer; the
    /// writer goes on; its close leaves the mark alone in the new `LOCK`, and the next
    /// writer keeps it.
    @Test(arguments: Escape.allCases)
    func aCutPutsLOCKBack(_ how: Escape) throws {
        let dir = TemporaryDirectory()
        let fs = CutOnDemand()
        let (url, writer) = try LockPutBackTests.store(in: dir, writtenThrough: fs)
        let first = try writer.save(Fixtures.sampleWalk(seed: 1, points: 50))
        let before = try #require(Self.lock(url)?.mark)
        let aside = dir.url.appendingPathComponent("LOCK-aside")
        try Self.escape(how, in: url, aside: aside)

        fs.arm()
        #expect(throws: RouteLogError.self) { try writer.save(Fixtures.sampleWalk(seed: 2, points: 50)) }
        let renewed = try #require(Self.lock(url), "LOCK \(how): no LOCK after the cut")
        #expect(renewed.pid == getpid(), "LOCK \(how)")
        let mark = try #require(renewed.mark, "LOCK \(how)")
        #expect(mark != before, "LOCK \(how): the mark was renewed")
        #expect(RouteStore.writerProcess(at: url) == getpid(), "LOCK \(how): the writer is named again")
        do {
            _ = try RouteStore(at: url, options: .init(mode: .mustExist, compaction: .manual))
            Issue.record("LOCK \(how): a second writer opened the store")
        } catch let error as RouteLogError {
            #expect(error.code == .locked && error.pid == getpid(), "LOCK \(how): \(error)")
        }
        switch how {
        case .replaced:
            // The file found at the name is kept in lost/, as it was.
            let kept = url.appendingPathComponent("\(LostAndFound.directoryName)/LOCK@0")
            #expect(FileManager.default.contents(atPath: kept.path) == Data("1\n".utf8), "LOCK \(how)")
            let log = String(decoding: FileManager.default.contents(atPath: url.appendingPathComponent("lost/LOG").path) ?? Data(), as: UTF8.self)
            #expect(log.contains("LOCK moved whole"), "\(log)")
        case .renamed, .linked:
            // The writer's old file, under its other name, is left where it is, unlocked.
            let old = try #require(DurableFile.openIfRegular(aside.path, fileSystem: PosixFileSystem.shared))
            #expect(try PosixFileSystem.shared.isLockHeld(old.ref) == false, "LOCK \(how)")
            let lost = url.appendingPathComponent(LostAndFound.directoryName)
            if how == .renamed {
                #expect(!FileManager.default.fileExists(atPath: lost.path))
            } else {
                // The name LOCK of the writer's own file went into lost/ by a rename (an
                // unlink would delete a file renamed over it meanwhile): a third name of
                // the same file, nothing deleted.
                let moved = try #require(DurableFile.openIfRegular(lost.appendingPathComponent("LOCK@0").path,
                                                                   fileSystem: PosixFileSystem.shared))
                #expect(PosixFileSystem.shared.identity(moved.ref) == PosixFileSystem.shared.identity(old.ref), "LOCK \(how)")
            }
        case .deleted:
            #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent(LostAndFound.directoryName).path))
        }

        let second = try writer.save(Fixtures.sampleWalk(seed: 3, points: 50))
        #expect(Self.lock(url)?.mark == mark, "a save keeps the mark")
        try writer.close()
        #expect(FileManager.default.contents(atPath: Self.lockPath(url)) == Data("\(mark)\n".utf8),
                "LOCK \(how): the close leaves the renewed mark alone in the new LOCK")
        #expect(RouteStore.writerProcess(at: url) == nil)
        let next = try RouteStore(at: url)
        #expect(Self.lock(url)?.mark == mark && Self.lock(url)?.pid == getpid(), "LOCK \(how): the next writer keeps the mark")
        #expect(try next.summaries().map(\.id).sorted() == [first, second])
        #expect(try next.verify().problems.isEmpty)
        try next.close()
    }

    /// (2): a follower of a writer whose `LOCK` was deleted before two cuts, each cut's
    /// refused batch read by the follower before the cut, and followed by a batch whose
    /// last record is the refused batch's, byte for byte, at the same place
    /// (FollowedCutRaceTests). The follower reads the store again after each cut and
    /// never lists a refused route, whether or not it looked while `LOCK` was gone.
    @Test(arguments: [false, true])
    func aFollowerReadsAgainAfterEachCutOnceLOCKIsGone(followerLooksWhileLOCKIsGone: Bool) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let (kept, reader) = try FollowedCutRaceTests.keptRouteAndReader(url)
        let fs = CutOnDemand()
        let writer = try RouteStore(at: url, options: .init(compaction: .manual), fileSystem: fs)
        try FileManager.default.removeItem(atPath: Self.lockPath(url))
        if followerLooksWhileLOCKIsGone {
            // As an observing follower does: the deletion is a file event.
            #expect(try reader.catchUpWithWriter() == [])
        }

        var ids: [RouteID] = [kept]
        for cut in 1...2 {
            let (refused, retried) = FollowedCutRaceTests.refusedAndRetried(seed: UInt64(cut * 10), second: "second \(cut)")
            let heard = StateLock<[StoreChange]>([])
            fs.arm { if let changes = try? reader.catchUpWithWriter() { heard.withLock { $0 += changes } } }
            #expect(throws: RouteLogError.self) { try writer.save(refused) }
            #expect(heard.withLock { $0 }.count == 2, "cut \(cut): the follower read the refused batch before the cut")
            #expect(try reader.summaries().compactMap(\.name).contains("refused"), "cut \(cut)")
            let readerEnd = reader.state.withLock { $0.segments.last!.end }

            ids += try writer.save(retried)
            #expect(try #require(writer.statistics().segments.last).bytes == readerEnd,
                    "cut \(cut): the saved batch ends where the follower stopped")
            try reader.catchUpWithWriter()
            let listed = try reader.summaries().sorted { $0.id < $1.id }
            #expect(listed.map(\.id) == ids, "cut \(cut)")
            #expect(!listed.contains { $0.name == "refused" }, "cut \(cut): the refused route is listed: \(listed.compactMap(\.name))")
            #expect(try reader.route(ids[ids.count - 2]) == writer.route(ids[ids.count - 2]), "cut \(cut)")
        }
        try writer.close()
        try reader.catchUpWithWriter()
        #expect(try reader.summaries().map(\.id).sorted() == ids)
        #expect(try reader.verify().problems.isEmpty)
        try reader.close()
    }

    /// Asking who writes while the writer puts `LOCK` back, again and again (`LOCK`
    /// deleted or replaced before each cut): every answer finds the writer, and names
    /// it or says it is unknown, never another process or no one.
    @Test func askingWhoWritesWhileLOCKIsPutBack() throws {
        let dir = TemporaryDirectory()
        let fs = CutOnDemand()
        let (url, writer) = try LockPutBackTests.store(in: dir, writtenThrough: fs)
        let done = StateLock(false)
        let answers = StateLock<[Int32?: Int]>([:])
        let asked = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while !done.withLock({ $0 }) {
                let answer = RouteStore.writerProcess(at: url)
                answers.withLock { $0[answer, default: 0] += 1 }
            }
            asked.signal()
        }
        for round in 0..<30 {
            if round % 2 == 0 {
                try FileManager.default.removeItem(atPath: Self.lockPath(url))
            } else {
                try Self.escape(.replaced, in: url, aside: dir.url)
            }
            fs.arm()
            #expect(throws: RouteLogError.self) { try writer.save(Fixtures.sampleWalk(seed: UInt64(round), points: 20)) }
            #expect(Self.lock(url)?.pid == getpid(), "round \(round)")
        }
        #expect(RouteStore.writerProcess(at: url) == getpid())
        done.withLock { $0 = true }
        asked.wait()
        try writer.close()
        let found = answers.withLock { $0 }
        #expect(Set(found.keys).isSubset(of: [getpid(), -1]), "\(found)")
        let lost = try FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent(LostAndFound.directoryName).path)
        #expect(lost.filter { $0.hasPrefix("LOCK@0") }.count == 15, "\(lost.sorted())")
    }

    /// A writer whose `LOCK` was deleted and that never cut puts it back as it closes,
    /// with its mark alone: the next writer keeps the mark, as after any clean close.
    @Test func aCloseWithoutACutPutsLOCKBack() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url)
        let mark = try #require(Self.lock(url)?.mark)
        try FileManager.default.removeItem(atPath: Self.lockPath(url))
        #expect(RouteStore.writerProcess(at: url) == -1, "no LOCK to read the pid from until the writer puts it back")
        try writer.save(Fixtures.sampleWalk(seed: 1, points: 50))
        try writer.close()
        #expect(FileManager.default.contents(atPath: Self.lockPath(url)) == Data("\(mark)\n".utf8))
        let next = try RouteStore(at: url)
        #expect(Self.lock(url)?.mark == mark && Self.lock(url)?.pid == getpid())
        try next.close()
    }

    /// (5): a symbolic link or a FIFO planted at `LOCK` while the writer holds the store
    /// is moved into `lost/` as it is (the link's target never written, the FIFO never
    /// opened), by the renewal after a cut or by the close; the new `LOCK` is a regular
    /// file holding the writer's pid and mark, then its mark alone.
    @Test(arguments: PlantedFiles.Kind.allCases, [true, false])
    func aPlantedLOCKIsMovedAsideNeverFollowed(_ kind: PlantedFiles.Kind, cut: Bool) throws {
        let dir = TemporaryDirectory()
        let fs = CutOnDemand()
        let (url, writer) = try LockPutBackTests.store(in: dir, writtenThrough: fs)
        var mark = try #require(Self.lock(url)?.mark)
        var planted = PlantedFiles(dir, store: url)
        try planted.plant(kind, at: FormatConstants.lockName)
        let note = "\(kind) at LOCK, \(cut ? "a cut" : "the close")"

        if cut {
            fs.arm()
            let saved = withinTime { try writer.save(Fixtures.sampleWalk(seed: 2, points: 50)) }
            guard case .failure(let error as RouteLogError)? = saved else {
                Issue.record("\(note): the save blocked or was not refused: \(String(describing: saved))")
                return
            }
            #expect(error.errno == ENOSPC, "\(note): \(error)")
            let renewed = try #require(Self.lock(url), "\(note): LOCK is no regular file")
            #expect(renewed.pid == getpid() && renewed.mark != mark, "\(note)")
            mark = try #require(renewed.mark)
            #expect(RouteStore.writerProcess(at: url) == getpid(), "\(note)")
            #expect(try writer.save(Fixtures.sampleWalk(seed: 3, points: 50)).rawValue > 0, "\(note): the writer goes on")
        }
        let closed = withinTime { try writer.close() }
        #expect(closed != nil, "\(note): the close blocked")
        #expect(FileManager.default.contents(atPath: Self.lockPath(url)) == Data("\(mark)\n".utf8), "\(note)")
        let aside = url.appendingPathComponent("\(LostAndFound.directoryName)/LOCK@0").path
        var info = stat()
        #expect(lstat(aside, &info) == 0 && info.st_mode & S_IFMT == (kind == .symlink ? S_IFLNK : S_IFIFO),
                "\(note): the planted file is kept in lost/ as it was")
        planted.expectVictimsUnchanged(note)
        #expect(try planted.irregularNames().isEmpty, "\(note)")
        let next = try RouteStore(at: url)
        #expect(Self.lock(url)?.mark == mark, "\(note)")
        #expect(try next.verify().problems.isEmpty, "\(note)")
        try next.close()
    }

    /// When a new `LOCK` cannot be put in place (here: what is at the name cannot be
    /// moved into `lost/`, a plain file), the cut goes unannounced: the writer stops
    /// saying why, as when `LOCK` cannot be written, and leaves the name alone.
    @Test func aLOCKThatCannotBePutBackStopsTheWriter() throws {
        let dir = TemporaryDirectory()
        let fs = CutOnDemand()
        let (url, writer) = try LockPutBackTests.store(in: dir, writtenThrough: fs)
        try? FileManager.default.removeItem(at: url.appendingPathComponent(LostAndFound.directoryName))
        try Data("not a folder\n".utf8).write(to: url.appendingPathComponent(LostAndFound.directoryName))
        var planted = PlantedFiles(dir, store: url)
        try planted.plant(.fifo, at: FormatConstants.lockName)
        fs.arm()
        #expect(withinTime { try writer.save(Fixtures.sampleWalk(seed: 2, points: 50)) } != nil, "the save blocked")
        let refused = try #require(throws: RouteLogError.self) { try writer.save(Fixtures.sampleWalk(seed: 3, points: 50)) }
        #expect(refused.message.contains("LOCK could not say so") && refused.message.contains("reopen the store"), "\(refused.message)")
        #expect(refused.message.contains("lost"), "the cause is named: \(refused.message)")
        #expect(withinTime { try writer.close() } != nil, "the close blocked")
        #expect(planted.type(of: FormatConstants.lockName) == S_IFIFO, "the FIFO is left where it is")
    }

    /// A crash at any point of putting `LOCK` back, with any of its unsynced writes
    /// lost, torn, zeroed or garbled, leaves no `LOCK`, or one whose mark is none or the
    /// writer's renewed one: never a mark that was not written whole. The next writer
    /// opens each such store and draws a mark of its own (the crashed writer's pid, or
    /// none, says nothing was closed cleanly).
    @Test func aCrashWhileLOCKIsPutBackLeavesNoHalfMark() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        try RouteStore(at: url).close()
        let intercepting = InterceptingFileSystem()
        let fs = CutOnDemand(base: intercepting)
        let writer = try RouteStore(at: url, options: .init(compaction: .manual), fileSystem: fs)
        try writer.save(Fixtures.sampleWalk(seed: 1, points: 50))
        try FileManager.default.removeItem(atPath: Self.lockPath(url))
        let trace = try intercepting.trace(url)
        fs.arm()
        #expect(throws: RouteLogError.self) { try writer.save(Fixtures.sampleWalk(seed: 2, points: 50)) }
        let mark = try #require(Self.lock(url)?.mark)
        let model = CrashStateModel(trace)
        #expect(model.operations.contains { if case .create(name: FormatConstants.lockName, _) = $0 { true } else { false } })
        var generator = SeededGenerator(state: 0x10C4)
        var seen: [String: [UInt8]?] = [:]
        for point in model.crashPoints {
            let pending = model.pending(at: point)
            for choice in model.choices(pending, random: 4, generator: &generator) {
                let files = model.files(pending, choice)
                let lock = files[FormatConstants.lockName]
                if let lock, let found = WriterMark.parse(lock)?.mark {
                    #expect(found == mark, "crash point \(point): LOCK \(lock) holds a mark that is not the writer's")
                }
                seen[lock.map { String(decoding: $0, as: UTF8.self) } ?? "none"] = lock
            }
        }
        #expect(seen["none"] != nil && seen["\(getpid()) \(mark)\n"] != nil, "\(seen.keys)")
        try writer.close()
        // Each kind of LOCK a crash may leave: the next writer opens and draws anew.
        for (text, lock) in seen {
            let crashed = dir.store("crashed.routelog")
            var files = model.filesSyncedOnly(at: model.operations.count)
            files[FormatConstants.lockName] = lock
            try materialize(files, at: crashed)
            let next = try RouteStore(at: crashed)
            let drawn = Self.lock(crashed)
            #expect(drawn?.pid == getpid() && drawn?.mark != nil && drawn?.mark != mark, "after LOCK \(text.debugDescription)")
            try next.close()
        }
    }
}
