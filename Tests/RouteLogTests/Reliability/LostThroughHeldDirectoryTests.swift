import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// The store's directory moved away while the store is open, and another directory, or
/// a symbolic link to one, put at its path. A writer holds the directory it locked by a
/// descriptor (``StoreLock/heldDirectory``), and every use of `lost/` goes through it
/// (``HeldDirectory``), never through the store's path: a copy of a torn tail, a file
/// moved aside, a compaction's copy of damage, and the listing in `statistics()` and
/// `verify()`, all reach the store's own `lost/`; the other directory gets nothing. A
/// read-only handle, which holds no directory, opens it once for a listing and lists
/// nothing when it is not the directory it opened.
@Suite struct LostThroughHeldDirectoryTests {
    /// What is put at the store's path once its directory is moved away.
    enum Replacement: String, CaseIterable, Sendable {
        /// Another directory, renamed in.
        case decoyDirectory
        /// A symbolic link to another directory.
        case linkToDecoy
    }

    /// A directory outside the store that holds a `lost/` of its own, and what is in it
    /// (by path under it).
    static func decoy(in dir: TemporaryDirectory) throws -> (URL, [String: Data]) {
        let decoy = dir.url.appendingPathComponent("decoy")
        let lost = decoy.appendingPathComponent(LostAndFound.directoryName)
        try FileManager.default.createDirectory(at: lost, withIntermediateDirectories: true)
        let files = [
            "notes.txt": Data("the decoy's own file\n".utf8),
            "lost/seg-00000007.rlseg@0": Data("the decoy's lost file\n".utf8),
            "lost/LOG": Data("2026-01-01T00:00:00Z seg-00000007.rlseg moved whole: the decoy's\n".utf8),
        ]
        for (name, bytes) in files { try bytes.write(to: decoy.appendingPathComponent(name)) }
        return (decoy, files)
    }

    /// Every file under `directory` (by path under it; a directory as an empty entry
    /// ending in `/`), links never followed below it.
    static func tree(_ directory: URL) -> [String: Data] {
        var entries: [String: Data] = [:]
        let root = directory.resolvingSymlinksInPath()
        guard let walk = FileManager.default.enumerator(atPath: root.path) else { return [:] }
        while let relative = walk.nextObject() as? String {
            let url = root.appendingPathComponent(relative)
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            entries[isDirectory.boolValue ? relative + "/" : relative] = isDirectory.boolValue ? Data()
                : FileManager.default.contents(atPath: url.path) ?? Data()
        }
        return entries
    }

    /// Moves `store` to `away` and puts `decoy`, or a link to it, at its path.
    static func replace(_ store: String, away: String, decoy: String, with replacement: Replacement) {
        #expect(Glibc.rename(store, away) == 0)
        switch replacement {
        case .decoyDirectory: #expect(Glibc.rename(decoy, store) == 0)
        case .linkToDecoy: #expect(symlink(decoy, store) == 0)
        }
    }

    /// Undoes ``replace(_:away:decoy:with:)``.
    static func putBack(_ store: String, away: String, decoy: String, with replacement: Replacement) {
        switch replacement {
        case .decoyDirectory: #expect(Glibc.rename(store, decoy) == 0)
        case .linkToDecoy: #expect(Glibc.unlink(store) == 0)
        }
        #expect(Glibc.rename(away, store) == 0)
    }

    /// A writer whose directory was replaced after it kept a torn tail in `lost/` lists
    /// that copy (its own `lost/`, through the directory it holds), never the decoy's,
    /// in `statistics()` and in `verify()`; the decoy is left as it was.
    @Test(arguments: Replacement.allCases)
    func aWriterListsItsOwnLostAfterItsDirectoryWasReplaced(_ replacement: Replacement) throws {
        let dir = TemporaryDirectory()
        let (url, _, _, size) = try RouteStoreRecoveryTests.storeWithTornTail(dir)
        let writer = try RouteStore(at: url, options: .init(compaction: .manual))
        let own = ["seg-00000001.rlseg@\(size)"]
        #expect(try writer.statistics().lostFiles.map(\.name) == own)
        let (decoy, decoyFiles) = try Self.decoy(in: dir)
        let away = dir.url.appendingPathComponent("moved.routelog")
        Self.replace(url.path, away: away.path, decoy: decoy.path, with: replacement)

        let listed = try writer.statistics().lostFiles
        #expect(listed.map(\.name) == own, "statistics() after the move: \(listed)")
        #expect(try writer.statistics().lostFilesNotListed == nil)
        #expect(listed.first?.note?.contains("torn tail") == true, "\(listed)")
        let verified = try writer.verify().lostFiles
        #expect(verified.map(\.name) == own, "verify() after the move: \(verified)")
        try? writer.close()
        let decoyNow = replacement == .linkToDecoy ? decoy : url
        #expect(Self.tree(decoyNow) == Self.withLost(decoyFiles), "the decoy changed: \(Self.tree(decoyNow).keys.sorted())")
    }

    /// What ``tree(_:)`` gives for the decoy as made: its files, and its `lost/`.
    static func withLost(_ files: [String: Data]) -> [String: Data] {
        files.merging([LostAndFound.directoryName + "/": Data()]) { a, _ in a }
    }

    /// A store whose writer moved a torn tail into `lost/`, and a read-only handle on it
    /// that lists that file.
    static func readerOfAStoreWithLostBytes(in dir: TemporaryDirectory) throws -> (URL, RouteStore) {
        let (url, _, _, size) = try RouteStoreRecoveryTests.storeWithTornTail(dir)
        try RouteStore(at: url, options: .init(compaction: .manual)).close()
        let reader = try RouteStore(at: url, options: .init(mode: .readOnly))
        #expect(try reader.statistics().lostFiles.map(\.name) == ["seg-00000001.rlseg@\(size)"])
        return (url, reader)
    }

    /// `statistics()` and `verify()` of `reader` list nothing in `lost/` (no other
    /// directory's either), and say that the store's directory moved.
    static func expectLostNotListed(by reader: RouteStore) throws {
        let statistics = try reader.statistics()
        #expect(statistics.lostFiles.isEmpty, "\(statistics.lostFiles)")
        #expect(statistics.lostFilesNotListed?.contains("moved or replaced") == true, "\(String(describing: statistics.lostFilesNotListed))")
        let report = try reader.verify()
        #expect(report.lostFiles.isEmpty, "\(report.lostFiles)")
        #expect(report.lostFilesNotListed?.contains("moved or replaced") == true, "\(String(describing: report.lostFilesNotListed))")
    }

    /// A read-only handle holds no directory: a listing opens the store's path once and
    /// lists nothing when that is no longer the directory the handle opened, never
    /// another directory's `lost/` as the store's, and says why it listed nothing.
    @Test(arguments: Replacement.allCases)
    func aReadOnlyHandleNeverListsAnotherDirectorysLost(_ replacement: Replacement) throws {
        let dir = TemporaryDirectory()
        let (url, reader) = try Self.readerOfAStoreWithLostBytes(in: dir)
        defer { try? reader.close() }
        #expect(try reader.statistics().lostFilesNotListed == nil)
        let (decoy, decoyFiles) = try Self.decoy(in: dir)
        let away = dir.url.appendingPathComponent("moved.routelog")
        Self.replace(url.path, away: away.path, decoy: decoy.path, with: replacement)

        try Self.expectLostNotListed(by: reader)
        let decoyNow = replacement == .linkToDecoy ? decoy : url
        #expect(Self.tree(decoyNow) == Self.withLost(decoyFiles), "the decoy changed: \(Self.tree(decoyNow).keys.sorted())")
    }

    /// A read-only handle whose store's directory was moved away, with nothing put at its
    /// path, says that `lost/` was not listed (the directory it opened is no longer
    /// there), never that `lost/` keeps nothing: no `lost/` at the path is not the
    /// store's `lost/` being empty.
    @Test func aReadOnlyHandleWhoseDirectoryWasMovedAwaySaysLostWasNotListed() throws {
        let dir = TemporaryDirectory()
        let (url, reader) = try Self.readerOfAStoreWithLostBytes(in: dir)
        defer { try? reader.close() }
        let away = dir.url.appendingPathComponent("moved.routelog")
        #expect(Glibc.rename(url.path, away.path) == 0)

        try Self.expectLostNotListed(by: reader)
        #expect(!FileManager.default.fileExists(atPath: url.path), "nothing was made at the store's old path")
    }

    /// A read-only handle opened through a symbolic link to the store's directory still
    /// lists its `lost/`: the link leads to the directory it opened.
    @Test func aReadOnlyHandleOpenedThroughALinkListsItsLost() throws {
        let dir = TemporaryDirectory()
        let (url, _, _, size) = try RouteStoreRecoveryTests.storeWithTornTail(dir)
        try RouteStore(at: url, options: .init(compaction: .manual)).close()
        let link = dir.url.appendingPathComponent("link.routelog")
        #expect(symlink(url.path, link.path) == 0)
        let reader = try RouteStore(at: link, options: .init(mode: .readOnly))
        defer { try? reader.close() }
        #expect(try reader.statistics().lostFiles.map(\.name) == ["seg-00000001.rlseg@\(size)"])
    }
}

extension LostThroughHeldDirectoryTests {
    /// The real file system, but the store's directory is replaced (``replace(_:away:decoy:with:)``)
    /// right before the first directory a use of `lost/` opens (the store's directory by
    /// its path, or `lost/` in it), and put back as `lost/` is closed: the path leads to
    /// the decoy for exactly that use. (A test's file system gets no
    /// ``StoreDirectoryGuard``: nothing but the held directory keeps the use in the store.)
    final class SwapAroundLost: ForwardingFileSystem, @unchecked Sendable {
        let base: any FileSystem = PosixFileSystem.shared
        let store: String, away: String, decoy: String, replacement: Replacement
        /// Armed: the swap runs at the next such open. Swapped: put back at the next close of lost/.
        let state = StateLock<(armed: Bool, swapped: Bool, fired: Int)>((false, false, 0))

        init(store: URL, away: URL, decoy: URL, replacement: Replacement) {
            self.store = store.path
            self.away = away.path
            self.decoy = decoy.path
            self.replacement = replacement
        }

        func openDirectory(_ name: String, in parent: DirectoryRef?, flags: Int32) throws -> DirectoryRef {
            if (parent == nil && name == store) || (parent != nil && name == LostAndFound.directoryName) {
                let swap = state.withLock { s -> Bool in
                    guard s.armed else { return false }
                    s = (false, true, s.fired + 1)
                    return true
                }
                if swap { LostThroughHeldDirectoryTests.replace(store, away: away, decoy: decoy, with: replacement) }
            }
            return try base.openDirectory(name, in: parent, flags: flags)
        }

        func closeDirectory(_ directory: DirectoryRef) {
            base.closeDirectory(directory)
            guard directory.path == store + "/" + LostAndFound.directoryName else { return }
            let back = state.withLock { s -> Bool in
                guard s.swapped else { return false }
                s.swapped = false
                return true
            }
            if back { LostThroughHeldDirectoryTests.putBack(store, away: away, decoy: decoy, with: replacement) }
        }

        func arm() { state.withLock { $0.armed = true } }
        var fired: Int { state.withLock { $0.fired } }
    }

    /// What moves bytes into `lost/` while the path leads elsewhere.
    enum Move: String, CaseIterable, Sendable {
        /// A writer's open copies a torn tail, then cuts it.
        case tornTail
        /// A writer's open moves aside a segment the manifest does not list.
        case leftoverSegment
        /// A compaction copies damage the index cannot name, then removes its segment.
        case compactionDamage
    }

    @Test(arguments: Move.allCases, Replacement.allCases)
    func bytesMovedIntoLostStayInTheStore(_ move: Move, _ replacement: Replacement) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let (decoy, decoyFiles) = try Self.decoy(in: dir)
        let fs = SwapAroundLost(store: url, away: dir.url.appendingPathComponent("moved.routelog"), decoy: decoy,
                                replacement: replacement)
        let kept: (name: String, bytes: Data)
        switch move {
        case .tornTail:
            let (_, _, tail, size) = try RouteStoreRecoveryTests.storeWithTornTail(dir)
            kept = ("seg-00000001.rlseg@\(size)", Data(tail))
            fs.arm()
            try RouteStore(at: url, options: .init(compaction: .manual), fileSystem: fs).close()
        case .leftoverSegment:
            _ = try RouteStoreRecoveryTests.makeStore(at: url)
            let planted = Data((0..<200).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 1) })
            try planted.write(to: url.appendingPathComponent("seg-00000009.rlseg"))
            kept = ("seg-00000009.rlseg@0", planted)
            fs.arm()
            try RouteStore(at: url, options: .init(compaction: .manual), fileSystem: fs).close()
            #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent("seg-00000009.rlseg").path))
        case .compactionDamage:
            let spans = try DamageTheIndexCannotNameTests.sixRoutes(at: url, sealed: false).spans
            let segment = url.appendingPathComponent(FormatConstants.segmentName(1))
            let span = try #require(spans[RouteID(3)])
            try DamageTheIndexCannotNameTests.flip(segment, at: (span.start + span.end) / 2)
            let damaged = try Data(contentsOf: segment)
            _ = try removeIndexFiles(of: url)
            let store = try RouteStore(at: url, options: DamageTheIndexCannotNameTests.options, fileSystem: fs)
            try store.delete(RouteID(1))
            try store.delete(RouteID(2))
            fs.arm()
            #expect(try store.compact().segmentsCompacted >= 1)
            try store.close()
            #expect(!FileManager.default.fileExists(atPath: segment.path), "the damaged segment was not rewritten")
            kept = ("\(FormatConstants.segmentName(1))@\(span.start)", damaged.subdata(in: Int(span.start)..<damaged.count))
        }
        let note = "\(move), \(replacement)"
        #expect(fs.fired == 1, "\(note): the path never led elsewhere during a use of lost/")
        #expect(Self.tree(decoy) == Self.withLost(decoyFiles), "\(note): the decoy changed: \(Self.tree(decoy).keys.sorted())")
        let lost = url.appendingPathComponent(LostAndFound.directoryName)
        let copy = FileManager.default.contents(atPath: lost.appendingPathComponent(kept.name).path)
        #expect(copy.map { kept.bytes.starts(with: $0) && $0.count > 0 } == true,
                "\(note): the bytes are not in the store's lost/: \(Self.tree(lost).keys.sorted())")
        let log = FileManager.default.contents(atPath: lost.appendingPathComponent(LostAndFound.logName).path)
        let name = String(kept.name.prefix { $0 != "@" })
        #expect(log.map { String(decoding: $0, as: UTF8.self).contains(name) } == true, "\(note): no line in the store's lost/LOG")
        let reopened = try RouteStore(at: url, options: .init(compaction: .manual))
        defer { try? reopened.close() }
        #expect(try reopened.statistics().lostFiles.contains { $0.name == kept.name }, "\(note)")
    }
}

extension LostThroughHeldDirectoryTests {
    /// A writer whose directory was replaced by one holding a `LOCK` of its own (another
    /// store's, say) renews its mark after a cut in its own `LOCK`: `LOCK` is looked at
    /// through the directory it holds, which still names the writer's file, so nothing
    /// is put back, nothing moves into `lost/`, and the decoy's `LOCK` is left alone.
    /// (Through the path, the decoy's `LOCK` would read as the writer's gone, and be
    /// moved aside and replaced.)
    @Test(arguments: Replacement.allCases)
    func aCutRenewsTheMarkInTheWritersOwnLOCKAfterItsDirectoryWasReplaced(_ replacement: Replacement) throws {
        let dir = TemporaryDirectory()
        let fs = LockPutBackTests.CutOnDemand()
        let (url, writer) = try LockPutBackTests.store(in: dir, writtenThrough: fs)
        _ = try writer.save(Fixtures.sampleWalk(seed: 1, points: 50))
        let before = try #require(LockPutBackTests.lock(url)?.mark)
        var (decoy, decoyFiles) = try Self.decoy(in: dir)
        decoyFiles[FormatConstants.lockName] = Data("1\n".utf8)
        try decoyFiles[FormatConstants.lockName]!.write(to: decoy.appendingPathComponent(FormatConstants.lockName))
        let away = dir.url.appendingPathComponent("moved.routelog")
        Self.replace(url.path, away: away.path, decoy: decoy.path, with: replacement)

        fs.arm()
        #expect(throws: RouteLogError.self) { try writer.save(Fixtures.sampleWalk(seed: 2, points: 50)) }
        let decoyNow = replacement == .linkToDecoy ? decoy : url
        #expect(Self.tree(decoyNow) == Self.withLost(decoyFiles), "the decoy changed: \(Self.tree(decoyNow).keys.sorted())")
        let renewed = try #require(LockPutBackTests.lock(away), "no LOCK in the moved store")
        #expect(renewed.pid == getpid())
        #expect(renewed.mark != nil && renewed.mark != before, "the mark was not renewed in the writer's LOCK")
        #expect(!FileManager.default.fileExists(atPath: away.appendingPathComponent(LostAndFound.directoryName).path),
                "something was moved into the moved store's lost/")
        Self.putBack(url.path, away: away.path, decoy: decoy.path, with: replacement)
        try writer.close()
        #expect(Self.tree(decoy) == Self.withLost(decoyFiles), "the decoy changed: \(Self.tree(decoy).keys.sorted())")
        #expect(LockPutBackTests.lock(url)?.mark == renewed.mark, "the close left another mark")
    }
}

/// Attacks on the held directory: something other than a directory at `lost`'s name,
/// the store's directory deleted while open, and descriptors running out.
extension LostThroughHeldDirectoryTests {
    enum AtLost: String, CaseIterable, Sendable { case regularFile, fifo, linkToDecoy }

    /// A file, a FIFO or a link at `lost`'s name, looked at through the held directory:
    /// the open fails naming `lost/` and saying what is there, the torn tail is not
    /// cut, and what is at the name (and where a link leads) is left as it was.
    @Test(arguments: AtLost.allCases)
    func somethingButADirectoryAtLostIsRefusedAndNothingIsCut(_ thing: AtLost) throws {
        let dir = TemporaryDirectory()
        let (url, segmentURL, tail, size) = try RouteStoreRecoveryTests.storeWithTornTail(dir)
        let (decoy, decoyFiles) = try Self.decoy(in: dir)
        let lost = url.appendingPathComponent(LostAndFound.directoryName)
        switch thing {
        case .regularFile: try Data("not a folder\n".utf8).write(to: lost)
        case .fifo: #expect(mkfifo(lost.path, 0o600) == 0)
        case .linkToDecoy: #expect(symlink(decoy.appendingPathComponent(LostAndFound.directoryName).path, lost.path) == 0)
        }
        let error = try #require(throws: RouteLogError.self) {
            try RouteStore(at: url, options: .init(compaction: .manual))
        }
        #expect(error.code == .corrupted && error.path == lost.path, "\(thing): \(error)")
        #expect(error.message.contains(thing == .linkToDecoy ? "is a link" : "is not a directory"), "\(thing): \(error.message)")
        #expect(try FileManager.default.attributesOfItem(atPath: segmentURL.path)[.size] as! Int64 == size + Int64(tail.count),
                "\(thing): the tail was cut")
        var info = stat()
        #expect(lstat(lost.path, &info) == 0)
        let kinds: [AtLost: mode_t] = [.regularFile: S_IFREG, .fifo: S_IFIFO, .linkToDecoy: S_IFLNK]
        #expect(info.st_mode & S_IFMT == kinds[thing]!, "\(thing): what is at lost's name changed")
        #expect(Self.tree(decoy) == Self.withLost(decoyFiles), "\(thing): the decoy changed")
    }

    /// The store's directory deleted (its files first, as `rm -r` does) once the writer
    /// holds it, and a decoy put at its path: a copy into `lost/` and a move aside fail
    /// with an error (no `lost/` can be made in a deleted directory), nothing is made in
    /// the decoy, and a listing is empty.
    @Test func aDeletedStoreDirectoryTakesNothingAndGivesNothingToADecoy() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let segment = url.appendingPathComponent("seg-00000001.rlseg")
        try Data((0..<400).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }).write(to: segment)
        let held = try HeldDirectory.open(url.path, expecting: nil, fileSystem: PosixFileSystem.shared)
        let file = try DurableFile.open(segment.path, flags: O_RDONLY, fileSystem: PosixFileSystem.shared)
        try FileManager.default.removeItem(at: url)
        let (decoy, decoyFiles) = try Self.decoy(in: dir)
        #expect(Glibc.rename(decoy.path, url.path) == 0)
        try Data("planted\n".utf8).write(to: url.appendingPathComponent("seg-00000009.rlseg"))
        let lostAndFound = LostAndFound(files: LogFiles(directory: url.path, fileSystem: PosixFileSystem.shared, held: held))

        let copyError = try #require(throws: RouteLogError.self) {
            try lostAndFound.keepCopy(of: file, name: "seg-00000001.rlseg", from: 20, length: 300, reason: "a test")
        }
        #expect(copyError.errno == ENOENT && copyError.path == url.path && copyError.message.contains("deleted"), "\(copyError)")
        #expect(throws: RouteLogError.self) { try lostAndFound.moveAside("seg-00000009.rlseg", reason: "a test") }
        #expect(lostAndFound.listing().entries.isEmpty)
        var expected = Self.withLost(decoyFiles)
        expected["seg-00000009.rlseg"] = Data("planted\n".utf8)
        #expect(Self.tree(url) == expected, "the decoy changed: \(Self.tree(url).keys.sorted())")
    }

    /// Descriptors running out (EMFILE) as the writer opens its held directory, or as a
    /// use of `lost/` opens `lost/`: the open fails with the error, the torn tail is not
    /// cut, the lock is let go, and the next open keeps the tail in `lost/` and cuts it.
    @Test(arguments: [1, 2])
    func descriptorsRunningOutCutNothing(_ openDirectoryCall: Int) throws {
        let dir = TemporaryDirectory()
        let (url, segmentURL, tail, size) = try RouteStoreRecoveryTests.storeWithTornTail(dir)
        let fs = InterceptingFileSystem(fault: .init(.kind(.openDirectory, openDirectoryCall), errno: EMFILE))
        let error = try #require(throws: RouteLogError.self) {
            try RouteStore(at: url, options: .init(compaction: .manual), fileSystem: fs)
        }
        #expect(error.errno == EMFILE && fs.faultFired, "\(error)")
        #expect(try FileManager.default.attributesOfItem(atPath: segmentURL.path)[.size] as! Int64 == size + Int64(tail.count))
        #expect(RouteStore.writerProcess(at: url) == nil)
        try RouteStore(at: url, options: .init(compaction: .manual)).close()
        #expect(try FileManager.default.attributesOfItem(atPath: segmentURL.path)[.size] as! Int64 == size)
        let copy = FileManager.default.contents(atPath: url.appendingPathComponent("lost/seg-00000001.rlseg@\(size)").path)
        #expect(copy == Data(tail))
    }
}
