import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RouteLog

/// Deleting or replacing LOCK while a writer holds the store does not let a second
/// writer in (issue 12, part 4): before, `rm S/LOCK` let `routelog import` and
/// `routelog compact` run beside the writer, and the compaction removed a segment the
/// first writer still used. The writer's flock on the store directory stands whatever
/// happens to the file.
@Suite struct WriterLockEscapeTests {
    /// LOCK deleted, replaced by an empty file, or replaced by one naming another
    /// process (pid 1, which holds nothing).
    enum Escape: String, CaseIterable, Sendable { case deleted, replaced, forged }

    static func escape(_ escape: Escape, in url: URL) throws {
        let lock = url.appendingPathComponent("LOCK")
        try FileManager.default.removeItem(at: lock)
        if escape == .replaced { try Data().write(to: lock) }
        if escape == .forged { try Data("1\n".utf8).write(to: lock) }
    }

    @Test(arguments: Escape.allCases)
    func aSecondWriterInThisProcessIsStillRefused(_ how: Escape) throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url, options: .init(compaction: .manual))
        let first = try writer.save(Fixtures.sampleWalk(seed: 1, points: 50))
        try Self.escape(how, in: url)
        do {
            let second = try RouteStore(at: url, options: .init(compaction: .manual))
            _ = try? second.compact()
            Issue.record("LOCK \(how): a second writer opened the store")
        } catch let error as RouteLogError {
            #expect(error.code == .locked, "\(error)")
            // No writer holds the LOCK file there now, so what it says names no one: the
            // refusal says the writer is unknown rather than send the user after pid 1.
            #expect(error.pid == nil && error.message.contains("process unknown"), "\(error)")
        }
        #expect(RouteStore.writerProcess(at: url) == -1, "the writer is still found, its pid unknown")
        let later = try writer.save(Fixtures.sampleWalk(seed: 2, points: 50))
        _ = try writer.compact()
        try writer.close()
        let reader = try RouteStore(readOnlyAt: url)
        #expect(try reader.summaries().map(\.id).sorted() == [first, later])
        #expect(try reader.verify().problems.isEmpty)
    }

    /// Asking who writes takes the directory lock for an instant: asked from several
    /// threads at once of a store no one writes, no answer may say that someone does.
    @Test func probesOfAnIdleStoreFindNoWriter() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        try RouteStore(at: url).close()
        let found = StateLock(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<2_000 where RouteStore.writerProcess(at: url) != nil { found.withLock { $0 += 1 } }
        }
        #expect(found.withLock { $0 } == 0, "an idle store was reported held")
    }

    @Test(arguments: Escape.allCases)
    func anotherProcessIsStillRefused(_ how: Escape) throws {
        let routelog = try #require(SegmentFileLimitTests.routelog, "the routelog executable is built beside the tests")
        let dir = TemporaryDirectory()
        let url = dir.store()
        let writer = try RouteStore(at: url, options: .init(compaction: .manual))
        let first = try writer.save(Fixtures.sampleWalk(seed: 1, points: 50))
        try Self.escape(how, in: url)
        let gpx = dir.url.appendingPathComponent("one.gpx")
        try Data(SegmentFileLimitTests.gpx.utf8).write(to: gpx)
        for arguments in [["import", url.path, gpx.path], ["compact", url.path], ["delete", url.path, "\(first.rawValue)"]] {
            let result = try Self.run(routelog, arguments)
            #expect(result.status == 3, "LOCK \(how): routelog \(arguments[0]) exited \(result.status): \(result.stderr)")
        }
        #expect(try writer.route(first).points.count == 50)
        try writer.close()
        let reader = try RouteStore(readOnlyAt: url)
        #expect(try reader.summaries().map(\.id) == [first])
        #expect(try reader.verify().problems.isEmpty)
    }

    static func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
