import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import RouteLog

/// The tests' one file-system double. Every call is done for real, by `base` (the
/// POSIX file system unless a test gives another), and a test hooks in where it needs:
///
/// - **skip syncs** (``unsynced()``): fdatasync, barriers, fsync and directory syncs
///   return at once, for tests that never crash the machine, where a sync only costs time;
/// - **a fault** (``Fault``): the Nth call that can fail, the Nth changing call, or the
///   Nth call of one kind fails with an error number, once or from then on;
/// - **observers** (``observe(_:)``): each completed call, as an ``Operation`` with its
///   arguments;
/// - **traces** (``trace(_:)``): the changing operations of one directory, for
///   crash-state replay (``DirectoryTrace``).
///
/// A changing call is one that can change what is on disk: an open that creates or
/// truncates, a write, a truncation, a sync of any kind, a rename, an unlink, a mkdir.
final class InterceptingFileSystem: FileSystem, @unchecked Sendable {
    let base: any FileSystem
    let skipSyncs: Bool
    let fault: Fault?
    private let lock = NSLock()
    private var counts: [Kind: Int] = [:]
    private var failableCalls = 0
    private var changingCalls = 0
    private var injected: [Failure] = []
    private var observers: [@Sendable (Operation) -> Void] = []
    private var traces: [DirectoryTrace] = []
    /// Whether an observer or a trace wants operations (they cost a copy of each write).
    private var watched = false

    init(base: any FileSystem = PosixFileSystem.shared, skipSyncs: Bool = false, fault: Fault? = nil) {
        self.base = base
        self.skipSyncs = skipSyncs
        self.fault = fault
    }

    /// The real file system without its syncs.
    static func unsynced() -> InterceptingFileSystem { InterceptingFileSystem(skipSyncs: true) }

    /// A machine that crashes right before its Nth changing call: that call and every
    /// later changing one fail with EIO, so no clean-up can change the disk either;
    /// reads keep working. Syncs are real.
    static func crashing(atChange n: Int) -> InterceptingFileSystem {
        InterceptingFileSystem(fault: Fault(.change(n), errno: EIO, .persistent))
    }

    // MARK: What happened

    /// Calls that can fail (every call but close, unlock and isDirectory) so far.
    var calls: Int { lock.withLock { failableCalls } }
    /// Changing calls so far.
    var changes: Int { lock.withLock { changingCalls } }
    /// Calls of `kind` so far.
    func count(_ kind: Kind) -> Int { lock.withLock { counts[kind, default: 0] } }
    /// The calls the fault failed, in order.
    var failures: [Failure] { lock.withLock { injected } }
    /// Whether the fault has failed a call yet.
    var faultFired: Bool { lock.withLock { !injected.isEmpty } }

    /// Calls `body` after each completed call (not the failed ones; a close just before
    /// its descriptor is freed), in completion order, one at a time. `body` must not call
    /// this file system.
    func observe(_ body: @escaping @Sendable (Operation) -> Void) {
        lock.withLock {
            observers.append(body)
            watched = true
        }
    }

    /// Starts recording the changing operations of the files directly in `directory`,
    /// taking what is in it now as durable.
    func trace(_ directory: URL) throws -> DirectoryTrace {
        let trace = try DirectoryTrace(directory: directory)
        lock.withLock {
            traces.append(trace)
            watched = true
        }
        return trace
    }

    // MARK: The hook every call goes through

    /// Counts a call about to be made and fails it when the fault says so.
    private func admit(_ kind: Kind, changing: Bool) throws {
        try lock.withLock {
            counts[kind, default: 0] += 1
            if kind.canFail { failableCalls += 1 }
            if changing { changingCalls += 1 }
            guard let fault, let index = fault.index(kind: kind, changing: changing, calls: failableCalls,
                                                     changes: changingCalls, ofKind: counts[kind]!),
                  fault.fails(index) else { return }
            injected.append(Failure(kind: kind, errno: fault.errno))
            throw Errno(code: fault.errno)
        }
    }

    /// Hands a completed call to the observers and traces.
    private func completed(_ operation: @autoclosure () -> Operation) {
        lock.withLock {
            guard watched else { return }
            let operation = operation()
            for trace in traces { trace.record(operation) }
            for observer in observers { observer(operation) }
        }
    }

    private func sync(_ kind: Kind, _ operation: Operation, _ call: () throws -> Void) throws {
        try admit(kind, changing: true)
        if !skipSyncs { try call() }
        completed(operation)
    }

    // MARK: FileSystem

    func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef {
        try admit(.open, changing: flags & (O_CREAT | O_TRUNC) != 0)
        let file = try base.open(path, flags: flags, mode: mode)
        completed(.open(file, flags: flags))
        return file
    }

    func close(_ file: FileRef) {
        try? admit(.close, changing: false)
        // Handed on before the descriptor is freed: once it is, another thread's open
        // may get the same number, and its file must not lose its history.
        completed(.close(file))
        base.close(file)
    }

    func pread(_ file: FileRef, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try admit(.read, changing: false)
        let n = try base.pread(file, buffer, at: offset)
        completed(.read(file, offset: offset, count: n))
        return n
    }

    func pwrite(_ file: FileRef, _ buffer: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        try admit(.write, changing: true)
        let n = try base.pwrite(file, buffer, at: offset)
        completed(.write(file, offset: offset, bytes: Array(buffer.prefix(n))))
        return n
    }

    func size(_ file: FileRef) throws -> Int64 {
        try admit(.size, changing: false)
        let size = try base.size(file)
        completed(.size(file))
        return size
    }

    func truncate(_ file: FileRef, to length: Int64) throws {
        try admit(.truncate, changing: true)
        try base.truncate(file, to: length)
        completed(.truncate(file, length: length))
    }

    func syncData(_ file: FileRef) throws { try sync(.syncData, .syncData(file)) { try base.syncData(file) } }
    func syncBarrier(_ file: FileRef) throws { try sync(.syncBarrier, .syncBarrier(file)) { try base.syncBarrier(file) } }
    func syncAll(_ file: FileRef) throws { try sync(.syncAll, .syncAll(file)) { try base.syncAll(file) } }
    func syncDirectory(_ path: String) throws {
        try sync(.syncDirectory, .syncDirectory(path)) { try base.syncDirectory(path) }
    }

    func rename(_ from: String, to: String) throws {
        try admit(.rename, changing: true)
        try base.rename(from, to: to)
        completed(.rename(from: from, to: to))
    }

    func renameExclusive(_ from: String, to: String) throws {
        try admit(.rename, changing: true)
        try base.renameExclusive(from, to: to)
        completed(.rename(from: from, to: to))
    }

    func exchange(_ a: String, with b: String) throws {
        try admit(.exchange, changing: true)
        try base.exchange(a, with: b)
        completed(.exchange(a, b))
    }

    func unlink(_ path: String) throws {
        try admit(.unlink, changing: true)
        try base.unlink(path)
        completed(.unlink(path))
    }

    func makeDirectory(_ path: String) throws {
        try admit(.makeDirectory, changing: true)
        try base.makeDirectory(path)
        completed(.makeDirectory(path))
    }

    func listDirectory(_ path: String) throws -> [String] {
        try admit(.listDirectory, changing: false)
        let names = try base.listDirectory(path)
        completed(.listDirectory(path))
        return names
    }

    func isDirectory(_ path: String) -> Bool? {
        try? admit(.isDirectory, changing: false)
        let answer = base.isDirectory(path)
        completed(.isDirectory(path))
        return answer
    }

    func lockExclusive(_ file: FileRef) throws {
        try admit(.lockExclusive, changing: false)
        try base.lockExclusive(file)
        completed(.lockExclusive(file))
    }

    func unlock(_ file: FileRef) {
        try? admit(.unlock, changing: false)
        base.unlock(file)
        completed(.unlock(file))
    }

    // Questions about what a path or descriptor is: answered by the base, never faulted.
    func fileType(_ file: FileRef) throws -> FileType { try base.fileType(file) }
    func linkCount(_ file: FileRef) throws -> Int { try base.linkCount(file) }
    func isSymbolicLink(_ path: String) -> Bool? { base.isSymbolicLink(path) }
    func sizeOfName(_ path: String) -> Int64? { base.sizeOfName(path) }
    func identityOfName(_ path: String) -> FileIdentity? { base.identityOfName(path) }
    func identity(_ file: FileRef) -> FileIdentity? { base.identity(file) }
    func birth(_ file: FileRef) -> FileBirth? { base.birth(file) }
    func birthOfName(_ path: String) -> FileBirth? { base.birthOfName(path) }
    func lockDirectory(_ directory: FileRef) throws { try base.lockDirectory(directory) }
    func unlockDirectory(_ directory: FileRef) { base.unlockDirectory(directory) }

    func isLockHeld(_ file: FileRef) throws -> Bool {
        try admit(.isLockHeld, changing: false)
        let held = try base.isLockHeld(file)
        completed(.isLockHeld(file))
        return held
    }

    // MARK: Calls in an open directory, counted and reported as the calls on the paths they name

    func openDirectory(_ name: String, in parent: DirectoryRef?, flags: Int32) throws -> DirectoryRef {
        try admit(.openDirectory, changing: false)
        let directory = try base.openDirectory(name, in: parent, flags: flags)
        completed(.openDirectory(directory))
        return directory
    }

    func closeDirectory(_ directory: DirectoryRef) {
        try? admit(.close, changing: false)
        completed(.closeDirectory(directory))
        base.closeDirectory(directory)
    }

    func open(_ name: String, in directory: DirectoryRef, flags: Int32, mode: UInt32) throws -> FileRef {
        try admit(.open, changing: flags & (O_CREAT | O_TRUNC) != 0)
        let file = try base.open(name, in: directory, flags: flags, mode: mode)
        completed(.open(file, flags: flags))
        return file
    }

    func makeDirectory(_ name: String, in directory: DirectoryRef) throws {
        try admit(.makeDirectory, changing: true)
        try base.makeDirectory(name, in: directory)
        completed(.makeDirectory(directory.path(name)))
    }

    func rename(_ name: String, in source: DirectoryRef, to target: String, in destination: DirectoryRef) throws {
        try admit(.rename, changing: true)
        try base.rename(name, in: source, to: target, in: destination)
        completed(.rename(from: source.path(name), to: destination.path(target)))
    }

    func renameExclusive(_ name: String, in source: DirectoryRef, to target: String, in destination: DirectoryRef) throws {
        try admit(.rename, changing: true)
        try base.renameExclusive(name, in: source, to: target, in: destination)
        completed(.rename(from: source.path(name), to: destination.path(target)))
    }

    func unlink(_ name: String, in directory: DirectoryRef) throws {
        try admit(.unlink, changing: true)
        try base.unlink(name, in: directory)
        completed(.unlink(directory.path(name)))
    }

    func listDirectory(_ directory: DirectoryRef) throws -> [String] {
        try admit(.listDirectory, changing: false)
        let names = try base.listDirectory(directory)
        completed(.listDirectory(directory.path))
        return names
    }

    func syncDirectory(_ directory: DirectoryRef) throws {
        try sync(.syncDirectory, .syncDirectory(directory.path)) { try base.syncDirectory(directory) }
    }

    func identityOfName(_ name: String, in directory: DirectoryRef) -> FileIdentity? {
        base.identityOfName(name, in: directory)
    }
    func identity(_ directory: DirectoryRef) -> FileIdentity? { base.identity(directory) }
    func typeOfName(_ name: String, in directory: DirectoryRef) -> FileType? { base.typeOfName(name, in: directory) }
}

extension InterceptingFileSystem {
    /// A file system that notes each sync and each write as it completes, in order, as
    /// "sync NAME" or "write NAME" (the file's last path component): for tests of what is
    /// synced before what.
    static func notingSyncsAndWrites() -> (InterceptingFileSystem, StateLock<[String]>) {
        let fs = InterceptingFileSystem()
        let order = StateLock<[String]>([])
        fs.observe { operation in
            switch operation {
            case .syncData(let file), .syncBarrier(let file), .syncAll(let file):
                order.withLock { $0.append("sync " + URL(fileURLWithPath: file.path).lastPathComponent) }
            case .write(let file, _, _):
                order.withLock { $0.append("write " + URL(fileURLWithPath: file.path).lastPathComponent) }
            default: break
            }
        }
        return (fs, order)
    }
}
