import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// `lost/` swapped by another process once the writer looked at it: for a symbolic link
/// to a folder outside the store (another store's `lost/`, say), or for that folder
/// renamed in. The writer holds `lost/` by the descriptor it opened it with, and makes,
/// moves, lists and syncs everything there through it (``LostDirectory``): nothing lands
/// in the other folder (no file, no `LOG` line), the call fails naming `lost/` (what it
/// wrote is in the directory that is no longer the store's `lost/`), and no byte is
/// deleted or cut.
@Suite struct LostAndFoundSwapTests {
    /// What another process puts at `lost/` right after the writer opened it.
    enum Swap: String, CaseIterable, Sendable {
        /// `lost/` renamed away, and a symbolic link to the victim folder put at its name.
        case linkToVictim
        /// `lost/` renamed away, and the victim folder renamed in as `lost/`.
        case victimRenamedIn
    }

    /// The call of ``LostAndFound`` made meanwhile.
    enum Call: String, CaseIterable, Sendable {
        case keepCopy, keepCopyMakingLost, moveAside, ensureNoted, noteIntoASharedLog
    }

    /// The real file system, but right after the writer opens `lost/` (its one look at
    /// it: openat with O_DIRECTORY | O_NOFOLLOW), `swap` runs, once, as another process
    /// could at that instant.
    final class SwapAfterOpen: ForwardingFileSystem, @unchecked Sendable {
        let base: any FileSystem
        let swap = StateLock<(@Sendable () -> Void)?>(nil)

        init(base: any FileSystem = PosixFileSystem.shared) { self.base = base }

        func openDirectory(_ name: String, in parent: DirectoryRef?, flags: Int32) throws -> DirectoryRef {
            let opened = try base.openDirectory(name, in: parent, flags: flags)
            if parent != nil, name == LostAndFound.directoryName {
                swap.withLock { body in
                    defer { body = nil }
                    return body
                }?()
            }
            return opened
        }
    }

    /// The regular files directly in `directory`, by name.
    static func files(in directory: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
            files[name] = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) ?? Data()
        }
        return files
    }

    /// A folder outside the store, holding what another store's `lost/` holds.
    static func victim(in dir: TemporaryDirectory) throws -> (URL, [String: Data]) {
        let victim = dir.url.appendingPathComponent("victim")
        try FileManager.default.createDirectory(at: victim, withIntermediateDirectories: true)
        let files = ["seg-00000001.rlseg@20": Data("another store's copy\n".utf8), "LOG": Data("another store's log\n".utf8)]
        for (name, bytes) in files { try bytes.write(to: victim.appendingPathComponent(name)) }
        return (victim, files)
    }

    /// Moves `lost` to `held` and puts what `swap` says at its name.
    static func swapping(_ lost: URL, to held: URL, with swap: Swap, victim: URL) -> @Sendable () -> Void {
        { [lost = lost.path, held = held.path, victim = victim.path] in
            _ = Glibc.rename(lost, held)
            switch swap {
            case .linkToVictim: _ = symlink(victim, lost)
            case .victimRenamedIn: _ = Glibc.rename(victim, lost)
            }
        }
    }

    @Test(arguments: Call.allCases, Swap.allCases)
    func lostSwappedOnceOpenedLeadsNothingOutside(_ call: Call, _ swap: Swap) throws {
        let dir = TemporaryDirectory()
        let store = dir.store()
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        let lost = store.appendingPathComponent(LostAndFound.directoryName)
        if call != .keepCopyMakingLost { try FileManager.default.createDirectory(at: lost, withIntermediateDirectories: true) }
        let (victim, victimFiles) = try Self.victim(in: dir)
        let segment = store.appendingPathComponent("seg-00000001.rlseg")
        let segmentBytes = Data((0..<400).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        try segmentBytes.write(to: segment)
        let planted = store.appendingPathComponent("seg-00000009.rlseg")
        let plantedBytes = Data("planted under a name the store is about to create\n".utf8)
        try plantedBytes.write(to: planted)
        // Another store's LOG, which this store's lost/LOG shares (a store copied with cp -al).
        let otherLog = dir.url.appendingPathComponent("other-LOG")
        let otherLogBytes = Data("2026-01-01T00:00:00Z seg-00000004.rlseg offset 20 length 9: the other store's\n".utf8)
        if call == .noteIntoASharedLog {
            try otherLogBytes.write(to: otherLog)
            #expect(link(otherLog.path, lost.appendingPathComponent("LOG").path) == 0)
        }

        let fs = SwapAfterOpen()
        let held = store.appendingPathComponent("lost.moved")
        fs.swap.withLock { $0 = Self.swapping(lost, to: held, with: swap, victim: victim) }
        let lostAndFound = LostAndFound(files: LogFiles(directory: store.path, fileSystem: fs))
        let line = "seg-00000001.rlseg offset 20 length 300: "
        let result = Result {
            switch call {
            case .keepCopy, .keepCopyMakingLost:
                let file = try DurableFile.open(segment.path, flags: O_RDONLY, fileSystem: PosixFileSystem.shared)
                try lostAndFound.keepCopy(of: file, name: "seg-00000001.rlseg", from: 20, length: 300, reason: "a test")
            case .moveAside:
                try lostAndFound.moveAside("seg-00000009.rlseg", reason: "a test")
            case .ensureNoted, .noteIntoASharedLog:
                try lostAndFound.ensureNoted(name: "seg-00000001.rlseg", from: 20, length: 300, reason: "a test")
            }
        }
        let note = "\(call), \(swap)"
        #expect(fs.swap.withLock { $0 } == nil, "\(note): lost/ was never opened")

        // Nothing went into the victim folder, wherever it is now.
        let victimNow = swap == .linkToVictim ? victim : lost
        #expect(Self.files(in: victimNow) == victimFiles, "\(note): the folder outside the store changed")
        // The call failed, naming lost/: what it wrote is not in the store's lost/.
        switch result {
        case .success:
            Issue.record("\(note): reported as kept in lost/, which now leads to another folder")
        case .failure(let error as RouteLogError):
            #expect(error.path == lost.path && error.message.contains("lost"), "\(note): \(error)")
        case .failure(let error):
            Issue.record("\(note): \(error)")
        }
        // No byte deleted or cut: what the call kept is in the directory it opened.
        let kept = Self.files(in: held)
        #expect(FileManager.default.contents(atPath: segment.path) == segmentBytes, "\(note): the segment changed")
        switch call {
        case .keepCopy, .keepCopyMakingLost:
            #expect(kept["seg-00000001.rlseg@20"] == segmentBytes.subdata(in: 20..<320), "\(note): \(kept.keys.sorted())")
            #expect(kept["LOG"].map { String(decoding: $0, as: UTF8.self).contains(line) } == true, "\(note)")
        case .moveAside:
            #expect(kept["seg-00000009.rlseg@0"] == plantedBytes, "\(note): \(kept.keys.sorted())")
            #expect(!FileManager.default.fileExists(atPath: planted.path))
        case .ensureNoted:
            #expect(kept["LOG"].map { String(decoding: $0, as: UTF8.self).contains(line) } == true, "\(note)")
        case .noteIntoASharedLog:
            #expect(FileManager.default.contents(atPath: otherLog.path) == otherLogBytes, "\(note): the other store's LOG changed")
            let own = kept["LOG"].map { String(decoding: $0, as: UTF8.self) } ?? ""
            #expect(own.hasPrefix(String(decoding: otherLogBytes, as: UTF8.self)) && own.contains(line), "\(note): \(own)")
        }
    }

    /// The same swap while a writer opens a store whose last segment has a torn tail: the
    /// open fails naming lost/, the tail is not cut (its copy is in the directory that
    /// was lost/), and the victim folder is as it was; once lost/ is a directory again,
    /// the next open keeps the tail there and cuts it.
    @Test(arguments: Swap.allCases)
    func aTornTailIsNotCutWhenLostIsSwappedOnceOpened(_ swap: Swap) throws {
        let dir = TemporaryDirectory()
        let (url, segmentURL, tail, size) = try RouteStoreRecoveryTests.storeWithTornTail(dir)
        let lost = url.appendingPathComponent(LostAndFound.directoryName)
        try FileManager.default.createDirectory(at: lost, withIntermediateDirectories: true)
        let (victim, victimFiles) = try Self.victim(in: dir)
        let held = url.appendingPathComponent("lost.moved")
        let fs = SwapAfterOpen()
        fs.swap.withLock { $0 = Self.swapping(lost, to: held, with: swap, victim: victim) }
        let error = try #require(throws: RouteLogError.self) {
            try RouteStore(at: url, options: .init(compaction: .manual), fileSystem: fs)
        }
        #expect(error.path == lost.path, "\(error)")
        #expect(Self.files(in: swap == .linkToVictim ? victim : lost) == victimFiles, "the folder outside the store changed")
        #expect(try FileManager.default.attributesOfItem(atPath: segmentURL.path)[.size] as! Int64 == size + Int64(tail.count),
                "the tail was cut")
        #expect(Self.files(in: held)["seg-00000001.rlseg@\(size)"] == Data(tail))

        // lost/ put back: the copy is relied on (not made again), and the tail cut.
        try FileManager.default.removeItem(at: lost)
        try FileManager.default.moveItem(at: held, to: lost)
        try RouteStore(at: url, options: .init(compaction: .manual)).close()
        #expect(try FileManager.default.attributesOfItem(atPath: segmentURL.path)[.size] as! Int64 == size)
        #expect(Self.files(in: lost).keys.sorted() == ["LOG", "seg-00000001.rlseg@\(size)"])
    }

    /// The writer's guard holds the store's directory, opened by its path for a use of
    /// lost/, to the directory it locked by the descriptor itself: a directory put at the
    /// store's path between the guard's look and the open is refused, and nothing is
    /// made in it.
    @Test func aStoreDirectoryReplacedAsItIsOpenedIsRefused() throws {
        let dir = TemporaryDirectory()
        let store = dir.store()
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        let identity = try #require(DirectoryIdentity(of: store.path))
        let other = dir.url.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try Data("planted".utf8).write(to: other.appendingPathComponent("seg-00000009.rlseg"))

        /// Swaps the store's directory for `other` just before the store's directory is opened.
        final class SwapBeforeOpen: ForwardingFileSystem, @unchecked Sendable {
            let base: any FileSystem = PosixFileSystem.shared
            let swap = StateLock<(@Sendable () -> Void)?>(nil)
            func openDirectory(_ name: String, in parent: DirectoryRef?, flags: Int32) throws -> DirectoryRef {
                if parent == nil { swap.withLock { body in defer { body = nil }; return body }?() }
                return try base.openDirectory(name, in: parent, flags: flags)
            }
        }
        let interposer = SwapBeforeOpen()
        interposer.swap.withLock {
            $0 = { [store = store.path, other = other.path] in
                _ = Glibc.rename(store, store + ".moved")
                _ = Glibc.rename(other, store)
            }
        }
        let fs = StoreDirectoryGuard(base: interposer, directory: store.path, identity: identity)
        let lostAndFound = LostAndFound(files: LogFiles(directory: store.path, fileSystem: fs))
        let error = try #require(throws: RouteLogError.self) { try lostAndFound.moveAside("seg-00000009.rlseg", reason: "a test") }
        #expect(error.message.contains("moved or replaced"), "\(error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.path) == ["seg-00000009.rlseg"],
                "something was made or moved in the directory put at the store's path")
    }
}

extension LostAndFoundSwapTests {
    /// The same window raced for real by another thread (no injected file system): it
    /// swaps lost/ for a link to a victim folder and back, over and over, while this
    /// thread copies ranges into lost/ and moves planted files there. Nothing may land in
    /// the victim folder; each call either succeeds or fails naming lost/; no planted
    /// file is lost (RACE_SECONDS, default 3, sets how long). (A folder renamed in as
    /// lost/ is raced only in the deterministic test: one renamed in before the writer
    /// looks is the store's lost/.)
    @Test func racingSwapsOfLostAgainstCopiesAndMoves() throws {
        let dir = TemporaryDirectory()
        let store = dir.store()
        let lost = store.appendingPathComponent(LostAndFound.directoryName)
        try FileManager.default.createDirectory(at: lost, withIntermediateDirectories: true)
        let (victim, victimFiles) = try Self.victim(in: dir)
        let segment = store.appendingPathComponent("seg-00000001.rlseg")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }).write(to: segment)
        let file = try DurableFile.open(segment.path, flags: O_RDONLY, fileSystem: PosixFileSystem.shared)
        let lostAndFound = LostAndFound(files: LogFiles(directory: store.path, fileSystem: PosixFileSystem.shared))

        let stop = StateLock(false)
        let swapperDone = DispatchSemaphore(value: 0)
        let swaps = StateLock(0)
        Thread.detachNewThread { [lost = lost.path, victim = victim.path, store = store.path] in
            let away = store + "/lost.away"
            var n = 0
            while !stop.withLock({ $0 }) {
                n += 1
                guard Glibc.rename(lost, away) == 0 else { continue }
                let linked = symlink(victim, lost) == 0
                usleep(UInt32.random(in: 0...1_000))
                if linked { _ = Glibc.unlink(lost) }
                // The real lost/ back; a lost/ the writer made while the name was free
                // is kept aside.
                var attempt = 0
                while Glibc.rename(away, lost) != 0 && attempt < 100 {
                    _ = Glibc.rename(lost, store + "/lost.made.\(n).\(attempt)")
                    attempt += 1
                }
                swaps.withLock { $0 += 1 }
                // Left in place a while too: a copy or a move takes a few syncs.
                usleep(UInt32.random(in: 0...3_000))
            }
            swapperDone.signal()
        }

        var rounds = 0, succeeded = 0, unclear: [String] = [], planted: [String: Data] = [:], refused: [String: Int] = [:]
        let deadline = Date().addingTimeInterval(Double(ProcessInfo.processInfo.environment["RACE_SECONDS"] ?? "3") ?? 3)
        while Date() < deadline {
            rounds += 1
            do {
                if rounds % 2 == 0 {
                    try lostAndFound.keepCopy(of: file, name: "seg-00000001.rlseg", from: Int64(rounds % 4000), length: 64,
                                              reason: "round \(rounds)")
                } else {
                    let name = FormatConstants.segmentName(UInt32(100 + rounds))
                    let bytes = Data("planted in round \(rounds)\n".utf8)
                    try bytes.write(to: store.appendingPathComponent(name))
                    planted[name] = bytes
                    try lostAndFound.moveAside(name, reason: "round \(rounds)")
                }
                succeeded += 1
            } catch let error as RouteLogError where error.message.contains("lost") || error.path?.hasPrefix(lost.path) == true {
                refused[String(error.message.prefix(40)), default: 0] += 1
            } catch {
                unclear.append("\(error)")
            }
        }
        stop.withLock { $0 = true }
        swapperDone.wait()
        print("race: rounds=\(rounds) succeeded=\(succeeded) swaps=\(swaps.withLock { $0 }) refused=\(refused)")

        #expect(Self.files(in: victim) == victimFiles, "the folder outside the store changed")
        #expect(unclear.isEmpty, "failures that do not name lost/: \(unclear.prefix(3))")
        // Every planted file is still in the store: at its name, in lost/, or in a
        // directory the writer made as lost/ while the name was free.
        var inStore: [Data] = []
        let enumerator = FileManager.default.enumerator(atPath: store.path)
        while let relative = enumerator?.nextObject() as? String {
            if let bytes = FileManager.default.contents(atPath: store.appendingPathComponent(relative).path) { inStore.append(bytes) }
        }
        let missing = planted.filter { !inStore.contains($0.value) }.keys.sorted()
        #expect(missing.isEmpty, "planted files gone: \(missing.prefix(5))")
        #expect(succeeded > 0 && swaps.withLock { $0 } > 0, "the race never ran both ways")
    }
}
