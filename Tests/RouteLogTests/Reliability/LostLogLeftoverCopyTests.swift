import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// A `lost/LOG.tmp` that a crash cut short (a prefix of a shared `LOG`) is removed when
/// the store next copies the log, but only while its name still leads to the file that
/// was compared: a file renamed to the name meanwhile is kept in `lost/`.
@Suite struct LostLogLeftoverCopyTests {
    @Test func aFileRenamedOverATornCopyOnceComparedIsKept() throws {
        let dir = TemporaryDirectory()
        let (store, lost, outside) = try LostLogCopyCrashTests.storeWithSharedLog(in: dir)
        let temporary = lost.appendingPathComponent(LostAndFound.logName + FormatConstants.temporarySuffix).path
        try LostLogCopyCrashTests.sharedBytes.prefix(10).write(to: URL(fileURLWithPath: temporary))
        let planted = Data("renamed over the torn copy once it was compared\n".utf8)
        let fs = InterceptingFileSystem()
        let fired = StateLock(false)
        fs.observe { operation in
            guard case .read(let file, _, _) = operation, file.path.hasSuffix("/lost/" + LostAndFound.logName + FormatConstants.temporarySuffix),
                  !fired.withLock({ let was = $0; $0 = true; return was }) else { return }
            let aside = temporary + ".planted"
            _ = FileManager.default.createFile(atPath: aside, contents: planted)
            _ = Glibc.rename(aside, temporary)
        }
        try LostAndFound(files: LogFiles(directory: store.path, fileSystem: fs))
            .ensureNoted(name: "seg-00000001.rlseg", from: 20, length: 300, reason: "a test")
        #expect(fired.withLock { $0 }, "the hook did not run")
        let held = try FileManager.default.contentsOfDirectory(atPath: lost.path).compactMap {
            FileManager.default.contents(atPath: lost.appendingPathComponent($0).path)
        }
        #expect(held.contains(planted), "the file renamed over the torn copy was deleted")
        #expect(FileManager.default.contents(atPath: outside.path) == LostLogCopyCrashTests.sharedBytes)
    }
}
