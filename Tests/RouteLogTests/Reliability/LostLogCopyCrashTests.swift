import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// A crash at each step of giving the store a `lost/LOG` of its own in place of a shared
/// one (LostAndFound's keepLogOwn: the copy written as `LOG.tmp` and synced, the shared
/// file renamed to `LOG@0`, the copy renamed to `LOG`), then the next use of `lost/`:
/// the store's log holds its whole history, the line of a call that returned and the
/// next one's, in one file of one name; the other store's log is as it was; no copy is
/// left under its temporary name.
@Suite struct LostLogCopyCrashTests {
    /// A store in `dir` whose `lost/LOG` another store shares (a hard link to `outside`,
    /// which holds ``sharedBytes``).
    static func storeWithSharedLog(in dir: TemporaryDirectory) throws -> (store: URL, lost: URL, outside: URL) {
        let store = dir.store()
        let lost = store.appendingPathComponent(LostAndFound.directoryName)
        try FileManager.default.createDirectory(at: lost, withIntermediateDirectories: true)
        let outside = dir.url.appendingPathComponent("other-store-LOG")
        try sharedBytes.write(to: outside)
        #expect(link(outside.path, lost.appendingPathComponent(LostAndFound.logName).path) == 0)
        return (store, lost, outside)
    }

    static let sharedBytes = Data("2026-01-01T00:00:00Z seg-00000002.rlseg offset 8 length 4: both stores'\n".utf8)

    @Test func aCrashAtEachStepOfTheCopyLeavesOneWholeLog() throws {
        var crashPoint = 1
        var crashesBetweenTheRenames = 0
        while true {
            let dir = TemporaryDirectory("LostLogCopyCrashTests-\(crashPoint)")
            let (store, lost, outside) = try Self.storeWithSharedLog(in: dir)

            let fs = InterceptingFileSystem.crashing(atChange: crashPoint)
            let first = Result {
                try LostAndFound(files: LogFiles(directory: store.path, fileSystem: fs))
                    .ensureNoted(name: "seg-00000001.rlseg", from: 20, length: 300, reason: "before the crash")
            }
            let crashed = fs.faultFired
            let left = Set(try FileManager.default.contentsOfDirectory(atPath: lost.path))
            if left.contains(LostAndFound.logName + FormatConstants.temporarySuffix) && !left.contains(LostAndFound.logName) {
                crashesBetweenTheRenames += 1
            }

            try LostAndFound(files: LogFiles(directory: store.path, fileSystem: PosixFileSystem.shared))
                .ensureNoted(name: "seg-00000001.rlseg", from: 400, length: 10, reason: "after the crash")
            let log = try #require(FileManager.default.contents(atPath: lost.appendingPathComponent(LostAndFound.logName).path))
            let text = String(decoding: log, as: UTF8.self)
            #expect(log.starts(with: Self.sharedBytes), "crash at change \(crashPoint): the log's history is not in LOG: \(text)")
            #expect(text.contains("offset 400 length 10: after the crash"), "crash at change \(crashPoint)")
            if case .success = first {
                #expect(text.contains("offset 20 length 300: before the crash"), "crash at change \(crashPoint): a noted line is gone")
            }
            var info = stat()
            #expect(lstat(lost.appendingPathComponent(LostAndFound.logName).path, &info) == 0 && info.st_nlink == 1)
            #expect(FileManager.default.contents(atPath: outside.path) == Self.sharedBytes, "crash at change \(crashPoint)")
            let names = try FileManager.default.contentsOfDirectory(atPath: lost.path)
            #expect(!names.contains { $0.contains(FormatConstants.temporarySuffix) }, "crash at change \(crashPoint): \(names)")
            if !crashed { break }
            crashPoint += 1
        }
        #expect(crashPoint > 4, "the copy made \(crashPoint - 1) changes")
        #expect(crashesBetweenTheRenames == 1)
    }

    /// Before the writer's next use of `lost/`, a reader's listing (verify, statistics)
    /// in the crash window (a whole `LOG.tmp`, no `LOG`) reads the copy as the log: its
    /// notes are attached to the files they name, and the copy is not listed as a lost
    /// file; and nothing in `lost/` is renamed by the look.
    @Test func aListingInTheCrashWindowReadsTheCopyAsTheLog() throws {
        let dir = TemporaryDirectory()
        let store = dir.store()
        let lost = store.appendingPathComponent(LostAndFound.directoryName)
        try FileManager.default.createDirectory(at: lost, withIntermediateDirectories: true)
        let note = "2026-01-01T00:00:00Z seg-00000001.rlseg offset 20 length 300: a torn tail\n"
        try Data(note.utf8).write(to: lost.appendingPathComponent(LostAndFound.logName + FormatConstants.temporarySuffix))
        try Data(repeating: 7, count: 300).write(to: lost.appendingPathComponent("seg-00000001.rlseg@20"))
        try Data("the other store's log\n".utf8).write(to: lost.appendingPathComponent(LostAndFound.logName + "@0"))
        let entries = LostAndFound(files: LogFiles(directory: store.path, fileSystem: PosixFileSystem.shared)).listing().entries
        #expect(entries.map(\.name) == [LostAndFound.logName + "@0", "seg-00000001.rlseg@20"])
        #expect(entries.first { $0.name == "seg-00000001.rlseg@20" }?.note == String(note.dropLast()))
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: lost.path))
            == [LostAndFound.logName + FormatConstants.temporarySuffix, "seg-00000001.rlseg@20", LostAndFound.logName + "@0"])
    }

    /// A `LOG.tmp` beside a `LOG` of one name that is not a copy of it (another file put
    /// there) is kept, under a free name, when the store next copies a shared log.
    @Test func aFileAtTheCopysNameThatIsNoCopyIsKept() throws {
        let dir = TemporaryDirectory()
        let (store, lost, outside) = try Self.storeWithSharedLog(in: dir)
        let planted = Data("not a copy of the log\n".utf8)
        try planted.write(to: lost.appendingPathComponent(LostAndFound.logName + FormatConstants.temporarySuffix))
        try LostAndFound(files: LogFiles(directory: store.path, fileSystem: PosixFileSystem.shared))
            .ensureNoted(name: "seg-00000001.rlseg", from: 20, length: 300, reason: "a test")
        let held = try FileManager.default.contentsOfDirectory(atPath: lost.path).compactMap {
            FileManager.default.contents(atPath: lost.appendingPathComponent($0).path)
        }
        #expect(held.contains(planted))
    }
}
