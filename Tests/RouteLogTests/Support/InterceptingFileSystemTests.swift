import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// The tests' file-system double does each call for real and hooks in only where it is
/// asked to: the reliability suites rest on that.
@Suite struct InterceptingFileSystemTests {
    typealias Operation = InterceptingFileSystem.Operation

    /// Every operation a file system saw, in order.
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [Operation] = []
        func add(_ operation: Operation) { lock.withLock { seen.append(operation) } }
        var operations: [Operation] { lock.withLock { seen } }
    }

    @Test func everyCallIsDoneForRealAndObservedWithItsArguments() throws {
        let dir = TemporaryDirectory()
        let fs = InterceptingFileSystem()
        let log = Log()
        fs.observe(log.add)
        let path = dir.url.appendingPathComponent("a").path
        let file = try DurableFile.open(path, flags: O_RDWR | O_CREAT, fileSystem: fs)
        try file.write([1, 2, 3, 4], at: 0)
        try file.syncData()
        #expect(try file.read(at: 1, count: 8) == [2, 3, 4])
        try fs.rename(path, to: path + "2")
        try fs.syncDirectory(dir.url.path)
        #expect(FileManager.default.contents(atPath: path + "2") == Data([1, 2, 3, 4]))
        let ref = file.ref
        withExtendedLifetime(file) {
            // The read asks for 8 bytes: 3 come, then end of file.
            // DurableFile never follows a link and never waits on a FIFO.
            #expect(log.operations == [.open(ref, flags: O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK), .write(ref, offset: 0, bytes: [1, 2, 3, 4]),
                                       .syncData(ref), .read(ref, offset: 1, count: 3), .read(ref, offset: 4, count: 0),
                                       .rename(from: path, to: path + "2"), .syncDirectory(dir.url.path)])
        }
        #expect(fs.calls == 7 && fs.changes == 5 && fs.count(.write) == 1)
    }

    @Test func aCrashFailsTheNthChangingCallAndEveryLaterOneButNotReads() throws {
        let dir = TemporaryDirectory()
        let path = dir.url.appendingPathComponent("a").path
        try Data([9, 9]).write(to: URL(fileURLWithPath: path))
        let fs = InterceptingFileSystem.crashing(atChange: 2)
        let file = try DurableFile.open(path, flags: O_RDWR, fileSystem: fs)  // not a change
        try file.write([1], at: 0)  // change 1
        #expect(!fs.faultFired)
        #expect(throws: RouteLogError.self) { try file.syncData() }  // change 2
        #expect(throws: RouteLogError.self) { try file.truncate(to: 0) }
        #expect(throws: Errno(code: EIO)) { try fs.unlink(path) }
        #expect(try file.read(at: 0, count: 2) == [1, 9], "reads keep working")
        #expect(fs.failures.map(\.kind) == [.syncData, .truncate, .unlink])
        #expect(fs.failures.allSatisfy { $0.errno == EIO })
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func aFaultOnceFailsOneCallAndEINTRIsRetriedAbove() throws {
        let dir = TemporaryDirectory()
        let path = dir.url.appendingPathComponent("a").path
        let eintr = InterceptingFileSystem(fault: .init(.kind(.write, 2), errno: EINTR))
        let file = try DurableFile.open(path, flags: O_RDWR | O_CREAT, fileSystem: eintr)
        try file.write([1], at: 0)
        try file.write([2], at: 1)  // its first try fails with EINTR, the second goes through
        try file.write([3], at: 2)
        #expect(eintr.count(.write) == 4 && eintr.failures == [.init(kind: .write, errno: EINTR)])
        #expect(FileManager.default.contents(atPath: path) == Data([1, 2, 3]))
        let enospc = InterceptingFileSystem(fault: .init(.call(2), errno: ENOSPC))
        let other = try DurableFile.open(path, flags: O_RDWR, fileSystem: enospc)  // call 1
        do {
            try other.write([7], at: 0)  // call 2
            Issue.record("the second call did not fail")
        } catch let error as RouteLogError {
            #expect(error.code == .io && error.errno == ENOSPC && error.path == path)
        }
        try other.write([7], at: 0)
        #expect(enospc.failures.count == 1)
    }

    @Test func withoutSyncsNoSyncReachesTheSystem() throws {
        // A descriptor that is not open: a real sync fails with EBADF, a skipped one cannot.
        let closed = FileRef(fd: 100_000, path: "/nowhere")
        #expect(throws: Errno.self) { try PosixFileSystem.shared.syncData(closed) }
        let fs = InterceptingFileSystem.unsynced()
        try fs.syncData(closed)
        try fs.syncBarrier(closed)
        try fs.syncAll(closed)
        try fs.syncDirectory("/nowhere")
        #expect(fs.changes == 4, "skipped syncs still count")
        #expect(throws: Errno.self) { try InterceptingFileSystem().syncData(closed) }
    }

    @Test func aTraceFollowsTheDirectorysFilesByIdentity() throws {
        let dir = TemporaryDirectory()
        try Data([5]).write(to: dir.url.appendingPathComponent("old"))
        let fs = InterceptingFileSystem.unsynced()
        let trace = try fs.trace(dir.url)
        #expect(trace.initialFiles == ["old": [5]])
        let tmp = dir.url.appendingPathComponent("new.tmp").path
        let file = try DurableFile.open(tmp, flags: O_RDWR | O_CREAT | O_TRUNC, fileSystem: fs)
        try file.write([1, 2], at: 0)
        try file.syncData()
        trace.mark(1)
        try fs.rename(tmp, to: dir.url.appendingPathComponent("new").path)
        try fs.unlink(dir.url.appendingPathComponent("old").path)
        try fs.syncDirectory(dir.url.path)
        try fs.makeDirectory(dir.url.appendingPathComponent("sub").path)  // not a file of the directory's
        let old = trace.initialInodes["old"]!
        #expect(old == 0)
        #expect(trace.operations == [.create(name: "new.tmp", inode: 1), .write(inode: 1, offset: 0, bytes: [1, 2]), .sync(inode: 1),
                                     .mark(acknowledged: 1), .rename(from: "new.tmp", to: "new"), .unlink(name: "old"), .syncDirectory])
    }
}
