import Foundation
import Testing
@testable import RouteLog

/// A file system that stops working at its Nth changing operation, as if the machine
/// had crashed right before it: that call and every later one fail with EIO, so no
/// clean-up code can run either. Reads keep working.
final class CrashingFileSystem: FileSystem, @unchecked Sendable {
    private let lock = NSLock()
    private var remaining: Int
    private(set) var operations = 0
    private let real = PosixFileSystem.shared

    init(crashAt operation: Int) { remaining = operation }

    var crashed: Bool { lock.withLock { remaining <= 0 } }

    private func step() throws {
        try lock.withLock {
            operations += 1
            remaining -= 1
            if remaining <= 0 { throw Errno(code: EIO) }
        }
    }

    func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef {
        if flags & O_CREAT != 0 || flags & O_TRUNC != 0 { try step() }
        return try real.open(path, flags: flags, mode: mode)
    }
    func close(_ file: FileRef) { real.close(file) }
    func pread(_ file: FileRef, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try real.pread(file, buffer, at: offset)
    }
    func pwrite(_ file: FileRef, _ buffer: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        try step()
        return try real.pwrite(file, buffer, at: offset)
    }
    func size(_ file: FileRef) throws -> Int64 { try real.size(file) }
    func truncate(_ file: FileRef, to length: Int64) throws { try step(); try real.truncate(file, to: length) }
    func syncData(_ file: FileRef) throws { try step(); try real.syncData(file) }
    func syncAll(_ file: FileRef) throws { try step(); try real.syncAll(file) }
    func rename(_ from: String, to: String) throws { try step(); try real.rename(from, to: to) }
    func unlink(_ path: String) throws { try step(); try real.unlink(path) }
    func makeDirectory(_ path: String) throws { try step(); try real.makeDirectory(path) }
    func syncDirectory(_ path: String) throws { try step(); try real.syncDirectory(path) }
    func listDirectory(_ path: String) throws -> [String] { try real.listDirectory(path) }
    func isDirectory(_ path: String) -> Bool? { real.isDirectory(path) }
    func lockExclusive(_ file: FileRef) throws { try real.lockExclusive(file) }
    func unlock(_ file: FileRef) { real.unlock(file) }
    func isLockHeld(_ file: FileRef) throws -> Bool { try real.isLockHeld(file) }
}

/// What a store must hold: each live route, exactly.
struct ExpectedStore {
    var routes: [RouteID: (route: Route, summary: RouteSummary)] = [:]
    var deleted: Set<RouteID> = []
    /// Unfinished recordings, as ``RouteStore/unfinishedRecordings()`` lists them.
    var recordings: [UnfinishedRecording] = []

    init(_ store: RouteStore, deleted: Set<RouteID> = []) throws {
        for summary in try store.summaries() { routes[summary.id] = (try store.route(summary.id), summary) }
        self.deleted = deleted
        recordings = try store.unfinishedRecordings()
    }

    /// Problems found in `store`, as sentences (empty when it matches).
    func mismatches(in store: RouteStore) -> [String] {
        var problems: [String] = []
        guard let listed = try? store.summaries() else { return ["summaries() failed"] }
        let ids = Set(listed.map(\.id))
        if ids != Set(routes.keys) {
            problems.append("ids \(ids.sorted()) instead of \(routes.keys.sorted())")
        }
        for (id, expected) in routes {
            if (try? store.route(id)) != expected.route { problems.append("route \(id) differs or is missing") }
            if (try? store.summary(id)) != expected.summary { problems.append("summary \(id) differs") }
        }
        for id in deleted where ids.contains(id) { problems.append("deleted route \(id) is back") }
        if listed.count != ids.count { problems.append("a route is listed twice") }
        do {
            let got = try store.unfinishedRecordings()
            if got != recordings {
                problems.append("unfinished recordings \(got.map { "\($0.id): \($0.points.count) points" }) instead of \(recordings.map { "\($0.id): \($0.points.count) points" })")
            }
        } catch {
            problems.append("unfinished recordings do not load: \(error)")
        }
        return problems
    }
}

/// A file system that fails its Nth call (any call that can fail: open, read, write,
/// size, truncate, syncs, rename, unlink, mkdir, list, lock) with an error number,
/// once or from then on. Works on top of `base`.
final class FaultyFileSystem: FileSystem, @unchecked Sendable {
    enum Mode: String, Sendable { case once, persistent }

    private let lock = NSLock()
    private let base: any FileSystem
    private let failAt: Int
    private let code: Int32
    private let mode: Mode
    private(set) var calls = 0
    /// The name of the call that failed first, and how many failed.
    private(set) var failedCall: String?
    private(set) var failures = 0

    init(failAt: Int, errno code: Int32, mode: Mode, base: any FileSystem = UnsyncedFileSystem()) {
        self.failAt = failAt
        self.code = code
        self.mode = mode
        self.base = base
    }

    /// A file system that never fails, to count the calls of a workload.
    static func counting(base: any FileSystem = UnsyncedFileSystem()) -> FaultyFileSystem {
        FaultyFileSystem(failAt: Int.max, errno: 0, mode: .once, base: base)
    }

    private func step(_ name: String) throws {
        try lock.withLock {
            calls += 1
            let fail = mode == .once ? calls == failAt : calls >= failAt
            if fail {
                failures += 1
                if failedCall == nil { failedCall = name }
                throw Errno(code: code)
            }
        }
    }

    func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef {
        try step("open"); return try base.open(path, flags: flags, mode: mode)
    }
    func close(_ file: FileRef) { base.close(file) }
    func pread(_ file: FileRef, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try step("pread"); return try base.pread(file, buffer, at: offset)
    }
    func pwrite(_ file: FileRef, _ buffer: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        try step("pwrite"); return try base.pwrite(file, buffer, at: offset)
    }
    func size(_ file: FileRef) throws -> Int64 { try step("fstat"); return try base.size(file) }
    func truncate(_ file: FileRef, to length: Int64) throws { try step("ftruncate"); try base.truncate(file, to: length) }
    func syncData(_ file: FileRef) throws { try step("fdatasync"); try base.syncData(file) }
    func syncAll(_ file: FileRef) throws { try step("fsync"); try base.syncAll(file) }
    func rename(_ from: String, to: String) throws { try step("rename"); try base.rename(from, to: to) }
    func unlink(_ path: String) throws { try step("unlink"); try base.unlink(path) }
    func makeDirectory(_ path: String) throws { try step("mkdir"); try base.makeDirectory(path) }
    func syncDirectory(_ path: String) throws { try step("fsync directory"); try base.syncDirectory(path) }
    func listDirectory(_ path: String) throws -> [String] { try step("readdir"); return try base.listDirectory(path) }
    func isDirectory(_ path: String) -> Bool? { base.isDirectory(path) }
    func lockExclusive(_ file: FileRef) throws { try step("lock"); try base.lockExclusive(file) }
    func unlock(_ file: FileRef) { base.unlock(file) }
    func isLockHeld(_ file: FileRef) throws -> Bool { try step("lock query"); return try base.isLockHeld(file) }
}

/// Runs `operation` on a store opened on a copy of `template` whose file system crashes
/// before its 1st, 2nd, 3rd... changing file operation, until a run completes without a
/// crash. After each run it reopens the copy with the real file system, hands it to
/// `check` with the crash point and whether the operation returned (so was
/// acknowledged), checks that no work file is left over, and closes it. Returns the
/// number of crash points tried.
@discardableResult
func atEveryCrashPoint(template: URL, work: URL, options: RouteStore.Options, limit: Int = 500,
                       _ operation: (RouteStore) throws -> Void,
                       check: (RouteStore, _ crashPoint: Int, _ acknowledged: Bool) throws -> Void) throws -> Int {
    var crashPoint = 1
    while true {
        try? FileManager.default.removeItem(at: work)
        try FileManager.default.copyItem(at: template, to: work)
        let fs = CrashingFileSystem(crashAt: crashPoint)
        var acknowledged = false
        do {
            try operation(try RouteStore(at: work, options: options, fileSystem: fs))
            acknowledged = !fs.crashed
        } catch {
            #expect(fs.crashed, "failed without a crash at \(crashPoint): \(error)")
        }
        let reopened = try RouteStore(at: work)
        try check(reopened, crashPoint, acknowledged)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: work.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty, "crash at \(crashPoint) left \(leftovers)")
        try reopened.close()
        if acknowledged { return crashPoint }
        crashPoint += 1
        if crashPoint > limit {
            Issue.record("the operation never completed in \(limit) crash points")
            return limit
        }
    }
}

/// ``atEveryCrashPoint`` for a compaction, run twice so that the second one is crashed
/// too.
@discardableResult
func compactionAtEveryCrashPoint(template: URL, work: URL, options: RouteStore.Options,
                                 check: (RouteStore, Int) throws -> Void) throws -> Int {
    try atEveryCrashPoint(template: template, work: work, options: options, { store in
        try store.compact()
        try store.compact()
    }, check: { store, crashPoint, _ in try check(store, crashPoint) })
}
