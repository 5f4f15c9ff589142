import Foundation
import Testing
@testable import RouteLog

/// The writer's mark in `LOCK`: a new one at each writer's open and after each cut a
/// writer goes on from; the mark alone after a clean close; earlier `LOCK`s of a pid
/// alone still name their writer.
@Suite struct WriterMarkTests {
    @Test func lockContentsParse() {
        let mark = WriterMark.make()
        #expect(mark.count == 16 && mark.allSatisfy(\.isHexDigit))
        #expect(WriterMark.make() != mark)
        let open = WriterMark.parse(WriterMark.lockContents(pid: 4242, mark: mark))
        #expect(open?.pid == 4242 && open?.mark == mark)
        let closed = WriterMark.parse(WriterMark.closedContents(mark: mark))
        #expect(closed != nil && closed?.pid == nil && closed?.mark == mark)
        let old = WriterMark.parse(Array("4242\n".utf8))
        #expect(old?.pid == 4242 && old?.mark == nil)
        for bad in ["", "\n", "x", "12 zz", "12 0123456789abcdeg", "1 2 3", "0123456789abcdef0"] {
            #expect(WriterMark.parse(Array(bad.utf8)) == nil, "\(bad)")
        }
        #expect(!WriterMark.moved(from: nil, to: nil))
        #expect(WriterMark.moved(from: nil, to: mark), "a mark that shows where none was (LOCK put back after a cut)")
        #expect(WriterMark.moved(from: mark, to: nil), "a mark gone (LOCK deleted, emptied, or of an older writer)")
        #expect(!WriterMark.moved(from: mark, to: mark))
        #expect(WriterMark.moved(from: mark, to: WriterMark.make()))
    }

    static func mark(_ url: URL) -> String? { WriterMark.read(in: url.path, fileSystem: PosixFileSystem.shared) }

    @Test func eachOpenDrawsAMarkAndACloseKeepsIt() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let first = try RouteStore(at: url)
        let a = try #require(Self.mark(url))
        try first.save(Fixtures.sampleWalk(points: 10))
        #expect(Self.mark(url) == a, "a save keeps the mark")
        try first.close()
        let lock = try Data(contentsOf: url.appendingPathComponent(FormatConstants.lockName))
        #expect(lock == Data("\(a)\n".utf8), "the mark alone once closed")
        #expect(RouteStore.writerProcess(at: url) == nil)
        // Every cut of that writer was announced: the next one keeps its mark.
        let second = try RouteStore(at: url)
        #expect(Self.mark(url) == a)
        #expect(RouteStore.writerProcess(at: url) == getpid())
        try second.close()
        // A writer that crashed leaves its pid (as if still open), and an empty LOCK no
        // mark: either way the next writer draws a new one.
        let lockFile = url.appendingPathComponent(FormatConstants.lockName)
        for left in ["4242 \(a)\n", ""] {
            try Data(left.utf8).write(to: lockFile)
            let next = try RouteStore(at: url)
            let drawn = try #require(Self.mark(url))
            #expect(drawn != a, "after \(left.debugDescription)")
            try next.close()
            try Data("\(a)\n".utf8).write(to: lockFile)
        }
    }

    /// How many writes opening a store makes (to aim a fault at the first save's).
    static func writesAtOpen(_ url: URL) throws -> Int {
        let probe = InterceptingFileSystem()
        let store = try RouteStore(at: url, options: .init(), fileSystem: probe)
        let writes = probe.count(.write)
        try store.close()
        return writes
    }

    /// A failed write the writer takes back (cut) and goes on from draws a new mark, so a
    /// reader that may have read part of it reads the store again.
    @Test func aWriteTakenBackDrawsANewMark() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        try RouteStore(at: url).close()
        let fs = InterceptingFileSystem(fault: .init(.kind(.write, try Self.writesAtOpen(url) + 1), errno: ENOSPC))
        let writer = try RouteStore(at: url, options: .init(), fileSystem: fs)
        let before = try #require(Self.mark(url))
        #expect(throws: RouteLogError.self) { try writer.save(Fixtures.sampleWalk(points: 10)) }
        #expect(fs.failures.map(\.kind) == [.write])
        let after = try #require(Self.mark(url))
        #expect(after != before)
        #expect(RouteStore.writerProcess(at: url) == getpid(), "the pid keeps its place")
        let id = try writer.save(Fixtures.sampleWalk(points: 10))
        #expect(try writer.route(id).points.count == 10, "the writer goes on")
        try writer.close()
    }

    /// A writer that cannot renew its mark after such a cut writes nothing more.
    @Test func aWriterThatCannotRenewItsMarkStops() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        try RouteStore(at: url).close()
        let fs = InterceptingFileSystem(fault: .init(.kind(.write, try Self.writesAtOpen(url) + 1), errno: EIO, .persistent))
        let writer = try RouteStore(at: url, options: .init(), fileSystem: fs)
        let before = Self.mark(url)
        #expect(throws: RouteLogError.self) { try writer.save(Fixtures.sampleWalk(points: 10)) }
        #expect(fs.failures.count >= 2, "the segment's write, then LOCK's")
        #expect(Self.mark(url) == before)
        let refused = try #require(throws: RouteLogError.self) { try writer.save(Fixtures.sampleWalk(points: 10)) }
        #expect(refused.message.contains("reopen the store"), "\(refused.message)")
        #expect(fs.failures.count >= 2)
        try? writer.close()
        // It leaves no mark to keep: the next writer draws a new one.
        #expect(try Data(contentsOf: url.appendingPathComponent(FormatConstants.lockName)).isEmpty)
        let next = try RouteStore(at: url)
        #expect(Self.mark(url) != nil && Self.mark(url) != before)
        try next.close()
    }
}
