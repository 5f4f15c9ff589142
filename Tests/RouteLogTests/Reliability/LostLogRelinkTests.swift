import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// `lost/LOG` given a second name outside the store (a hard link of another file
/// renamed over it) after the writer looked at how many names it has, and before it
/// opens it to append: the line must not go into the other file.
@Suite struct LostLogRelinkTests {
    /// The real file system, but right before the writer opens `lost/LOG` to append, `swap`
    /// runs, once, as another process could at that instant.
    final class SwapBeforeAppend: ForwardingFileSystem, @unchecked Sendable {
        let base: any FileSystem
        let swap = StateLock<(@Sendable () -> Void)?>(nil)

        init(base: any FileSystem = PosixFileSystem.shared) { self.base = base }

        func open(_ name: String, in directory: DirectoryRef, flags: Int32, mode: UInt32) throws -> FileRef {
            if name == LostAndFound.logName, flags & O_APPEND != 0 {
                swap.withLock { body in
                    defer { body = nil }
                    return body
                }?()
            }
            return try base.open(name, in: directory, flags: flags, mode: mode)
        }

        /// Right before the writer's copy of a shared `LOG` takes the name, `beforeCopyTakesLOG` runs once.
        let beforeCopyTakesLOG = StateLock<(@Sendable () -> Void)?>(nil)

        private func renaming(_ name: String, to target: String) {
            guard name == LostAndFound.logName + FormatConstants.temporarySuffix, target == LostAndFound.logName else { return }
            beforeCopyTakesLOG.withLock { body in
                defer { body = nil }
                return body
            }?()
        }

        func renameExclusive(_ name: String, in source: DirectoryRef, to target: String, in destination: DirectoryRef) throws {
            renaming(name, to: target)
            try base.renameExclusive(name, in: source, to: target, in: destination)
        }

        func rename(_ name: String, in source: DirectoryRef, to target: String, in destination: DirectoryRef) throws {
            renaming(name, to: target)
            try base.rename(name, in: source, to: target, in: destination)
        }
    }

    /// A file of one name renamed over a shared `lost/LOG` while the writer makes the
    /// store's own copy of it, right before the copy takes the name: that file, the
    /// shared one and the store's lines are all kept; nothing at `LOG` is replaced.
    @Test func aFileRenamedOverASharedLogBeforeTheCopyTakesItsNameIsKept() throws {
        let dir = TemporaryDirectory()
        let store = dir.store()
        let lost = store.appendingPathComponent(LostAndFound.directoryName)
        try FileManager.default.createDirectory(at: lost, withIntermediateDirectories: true)
        let sharedBytes = Data("2026-01-01T00:00:00Z seg-00000002.rlseg offset 8 length 4: both stores'\n".utf8)
        let outside = dir.url.appendingPathComponent("other-store-LOG")
        try sharedBytes.write(to: outside)
        #expect(link(outside.path, lost.appendingPathComponent("LOG").path) == 0)
        let plantedBytes = Data("a file of one name, renamed over LOG\n".utf8)
        let planted = dir.url.appendingPathComponent("planted")
        try plantedBytes.write(to: planted)

        let fs = SwapBeforeAppend()
        fs.beforeCopyTakesLOG.withLock {
            $0 = { [lost = lost.path, planted = planted.path] in _ = Glibc.rename(planted, lost + "/LOG") }
        }
        let lostAndFound = LostAndFound(files: LogFiles(directory: store.path, fileSystem: fs))
        try lostAndFound.ensureNoted(name: "seg-00000001.rlseg", from: 20, length: 300, reason: "a test")
        #expect(fs.beforeCopyTakesLOG.withLock { $0 } == nil, "the copy never took the name")
        let held = try FileManager.default.contentsOfDirectory(atPath: lost.path).compactMap {
            FileManager.default.contents(atPath: lost.appendingPathComponent($0).path)
        }
        #expect(held.contains(plantedBytes), "the file renamed over LOG was deleted")
        #expect(FileManager.default.contents(atPath: outside.path) == sharedBytes, "the other store's log changed")
        let log = try #require(FileManager.default.contents(atPath: lost.appendingPathComponent("LOG").path))
        #expect(log.starts(with: sharedBytes) && String(decoding: log, as: UTF8.self).contains("seg-00000001.rlseg offset 20 length 300: a test"))
        var info = stat()
        #expect(lstat(lost.appendingPathComponent("LOG").path, &info) == 0 && info.st_nlink == 1)
    }

    @Test func aLogRelinkedToAnOutsideFileBeforeTheAppendGetsNoLine() throws {
        let dir = TemporaryDirectory()
        let store = dir.store()
        let lost = store.appendingPathComponent(LostAndFound.directoryName)
        try FileManager.default.createDirectory(at: lost, withIntermediateDirectories: true)
        let ownLog = Data("2026-01-01T00:00:00Z seg-00000002.rlseg offset 8 length 4: this store's\n".utf8)
        try ownLog.write(to: lost.appendingPathComponent("LOG"))
        let outside = dir.url.appendingPathComponent("outside-LOG")
        let outsideBytes = Data("another store's log\n".utf8)
        try outsideBytes.write(to: outside)

        let fs = SwapBeforeAppend()
        fs.swap.withLock {
            $0 = { [lost = lost.path, outside = outside.path] in
                // This store's LOG kept under another name in lost/ (nothing deleted), and a
                // hard link of the outside file put at LOG.
                _ = Glibc.rename(lost + "/LOG", lost + "/LOG.kept")
                _ = link(outside, lost + "/LOG.planted")
                _ = Glibc.rename(lost + "/LOG.planted", lost + "/LOG")
            }
        }
        let lostAndFound = LostAndFound(files: LogFiles(directory: store.path, fileSystem: fs))
        _ = Result { try lostAndFound.ensureNoted(name: "seg-00000001.rlseg", from: 20, length: 300, reason: "a test") }
        #expect(fs.swap.withLock { $0 } == nil, "LOG was never opened to append")
        #expect(FileManager.default.contents(atPath: outside.path) == outsideBytes, "the file outside the store got the line")
        #expect(FileManager.default.contents(atPath: lost.appendingPathComponent("LOG.kept").path) == ownLog)
    }
}
