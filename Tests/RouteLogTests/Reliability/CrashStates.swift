import Foundation
@testable import RouteLog

/// A file system that does everything for real and writes down, in order, every
/// operation that changes the files of one directory: creations, writes, truncations,
/// syncs, renames, unlinks and directory syncs. Files are followed by identity
/// (an inode number of the recorder's own), not by name, so a rename moves a file's
/// history with it. The workload adds marks between operations ("this many changes
/// were acknowledged to the caller by now").
final class RecordingFileSystem: FileSystem, @unchecked Sendable {
    typealias Inode = Int

    enum Operation: Equatable {
        case create(name: String, inode: Inode)
        case write(inode: Inode, offset: Int64, bytes: [UInt8])
        case truncate(inode: Inode, length: Int64)
        /// fsync or fdatasync: the file's data (and size) are durable.
        case sync(inode: Inode)
        case rename(from: String, to: String)
        case unlink(name: String)
        /// fsync of the directory: every earlier creation, rename and unlink is durable.
        case syncDirectory
        /// `acknowledged` changes of the workload have returned to their caller.
        case mark(acknowledged: Int)
    }

    let directory: String
    private let real = PosixFileSystem.shared
    private let lock = NSLock()
    private var names: [String: Inode] = [:]
    private var open: [Int32: Inode] = [:]
    private var nextInode = 0
    private(set) var initialFiles: [String: [UInt8]] = [:]
    private var log: [Operation] = []

    /// Starts recording `directory`, taking what is in it now as durable.
    init(directory: URL) throws {
        self.directory = directory.standardizedFileURL.path
        for name in try FileManager.default.contentsOfDirectory(atPath: self.directory) {
            let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
            initialFiles[name] = bytes
            names[name] = nextInode
            nextInode += 1
        }
        initialInodes = names
    }

    /// The initial files' inode numbers.
    private(set) var initialInodes: [String: Inode] = [:]

    var operations: [Operation] { lock.withLock { log } }

    func mark(_ acknowledged: Int) { lock.withLock { log.append(.mark(acknowledged: acknowledged)) } }

    private func name(of path: String) -> String? {
        guard path.hasPrefix(directory + "/") else { return nil }
        let rest = String(path.dropFirst(directory.count + 1))
        return rest.contains("/") ? nil : rest
    }

    func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef {
        let ref = try real.open(path, flags: flags, mode: mode)
        lock.withLock {
            guard let name = name(of: path) else { return }
            if let inode = names[name] {
                open[ref.fd] = inode
                if flags & O_TRUNC != 0 { log.append(.truncate(inode: inode, length: 0)) }
            } else {
                let inode = nextInode
                nextInode += 1
                names[name] = inode
                open[ref.fd] = inode
                log.append(.create(name: name, inode: inode))
            }
        }
        return ref
    }

    func close(_ file: FileRef) {
        lock.withLock { _ = open.removeValue(forKey: file.fd) }
        real.close(file)
    }

    func pread(_ file: FileRef, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try real.pread(file, buffer, at: offset)
    }

    func pwrite(_ file: FileRef, _ buffer: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        let n = try real.pwrite(file, buffer, at: offset)
        lock.withLock {
            if let inode = open[file.fd] { log.append(.write(inode: inode, offset: offset, bytes: Array(buffer.prefix(n)))) }
        }
        return n
    }

    func size(_ file: FileRef) throws -> Int64 { try real.size(file) }

    func truncate(_ file: FileRef, to length: Int64) throws {
        try real.truncate(file, to: length)
        lock.withLock { if let inode = open[file.fd] { log.append(.truncate(inode: inode, length: length)) } }
    }

    func syncData(_ file: FileRef) throws {
        try real.syncData(file)
        lock.withLock { if let inode = open[file.fd] { log.append(.sync(inode: inode)) } }
    }

    func syncAll(_ file: FileRef) throws {
        try real.syncAll(file)
        lock.withLock { if let inode = open[file.fd] { log.append(.sync(inode: inode)) } }
    }

    func rename(_ from: String, to: String) throws {
        try real.rename(from, to: to)
        lock.withLock {
            guard let a = name(of: from), let b = name(of: to), let inode = names.removeValue(forKey: a) else { return }
            names[b] = inode
            log.append(.rename(from: a, to: b))
        }
    }

    func unlink(_ path: String) throws {
        try real.unlink(path)
        lock.withLock {
            guard let name = name(of: path) else { return }
            names[name] = nil
            log.append(.unlink(name: name))
        }
    }

    func makeDirectory(_ path: String) throws { try real.makeDirectory(path) }

    func syncDirectory(_ path: String) throws {
        try real.syncDirectory(path)
        if path == directory { lock.withLock { log.append(.syncDirectory) } }
    }

    func listDirectory(_ path: String) throws -> [String] { try real.listDirectory(path) }
    func isDirectory(_ path: String) -> Bool? { real.isDirectory(path) }
    func lockExclusive(_ file: FileRef) throws { try real.lockExclusive(file) }
    func unlock(_ file: FileRef) { real.unlock(file) }
    func isLockHeld(_ file: FileRef) throws -> Bool { try real.isLockHeld(file) }
}

/// The states a directory may be found in after a crash, from a recorded trace, under
/// a weak persistence model (weaker than ext4's defaults, like the ALICE study's):
///
/// - A file's data and size are durable only up to its last fsync/fdatasync. Of the
///   writes and truncations after it, any number may have reached the disk, in order
///   or not (a later write without an earlier one), and the last one that did may be
///   torn: only a prefix of its bytes, or the right size but zeros or garbage where
///   its bytes should be.
/// - Creations, renames and unlinks are durable only after an fsync of the directory.
///   Of those after the last one, a prefix reached the disk (journaled file systems
///   keep directory operations in order).
struct CrashStateModel {
    typealias Inode = RecordingFileSystem.Inode
    typealias Operation = RecordingFileSystem.Operation

    let initialFiles: [String: [UInt8]]
    let initialInodes: [String: Inode]
    let operations: [Operation]

    init(_ recorder: RecordingFileSystem) {
        initialFiles = recorder.initialFiles
        initialInodes = recorder.initialInodes
        operations = recorder.operations
    }

    /// How a torn write looks on disk.
    enum Tear: Hashable {
        /// The first `count` bytes of the write.
        case prefix(Int)
        /// The file grew to the write's end but the new bytes are zeros.
        case zeros
        /// The file grew to the write's end but the new bytes are garbage.
        case garbage(UInt64)
    }

    /// Which of the operations after the last sync reached the disk, per file, and how
    /// many of the directory operations after the last directory sync.
    struct Choice: Hashable {
        /// Per file: how many of its unsynced operations are kept (a prefix), the one
        /// after them torn (if any), and one of the kept ones left out (reordering).
        struct FileChoice: Hashable {
            var kept: Int
            var tear: Tear?
            var skipped: Int?
        }
        var files: [Inode: FileChoice] = [:]
        /// nil keeps every unsynced directory operation.
        var directoryPrefix: Int?
    }

    /// What is durable and what is pending at crash point `point` (after operations
    /// 0..<point).
    struct Pending {
        var acknowledged: Int
        /// Per file: its durable operations' count in `contentOps`, and the unsynced ones.
        var synced: [Inode: Int] = [:]
        var contentOps: [Inode: [Operation]] = [:]
        var directoryOps: [Operation] = []
        var directorySynced = 0

        var unsyncedFiles: [Inode] { contentOps.keys.filter { contentOps[$0]!.count > synced[$0, default: 0] }.sorted() }
        func unsynced(_ inode: Inode) -> Int { contentOps[inode, default: []].count - synced[inode, default: 0] }
        var unsyncedDirectory: Int { directoryOps.count - directorySynced }
    }

    func pending(at point: Int) -> Pending {
        var p = Pending(acknowledged: 0)
        for op in operations[0..<point] {
            switch op {
            case .create, .rename, .unlink:
                p.directoryOps.append(op)
            case .syncDirectory:
                p.directorySynced = p.directoryOps.count
            case .write(let inode, _, _), .truncate(let inode, _):
                p.contentOps[inode, default: []].append(op)
            case .sync(let inode):
                p.synced[inode] = p.contentOps[inode, default: []].count
            case .mark(let acknowledged):
                p.acknowledged = acknowledged
            }
        }
        return p
    }

    /// The files of the crash state `choice` at `pending`, by name.
    func files(_ pending: Pending, _ choice: Choice) -> [String: [UInt8]] {
        var contents: [Inode: [UInt8]] = [:]
        for (name, inode) in initialInodes { contents[inode] = initialFiles[name]! }
        for (inode, ops) in pending.contentOps {
            var bytes = contents[inode] ?? []
            let synced = pending.synced[inode, default: 0]
            let fileChoice = choice.files[inode] ?? .init(kept: ops.count - synced, tear: nil, skipped: nil)
            for (i, op) in ops.enumerated() {
                let unsyncedIndex = i - synced
                if unsyncedIndex >= 0 {
                    if unsyncedIndex == fileChoice.skipped { continue }
                    if unsyncedIndex > fileChoice.kept { break }
                    if unsyncedIndex == fileChoice.kept {
                        if let tear = fileChoice.tear { Self.apply(op, to: &bytes, tear: tear) }
                        break
                    }
                }
                Self.apply(op, to: &bytes, tear: nil)
            }
            contents[inode] = bytes
        }
        var names = initialInodes
        let kept = pending.directorySynced + (choice.directoryPrefix ?? pending.unsyncedDirectory)
        for op in pending.directoryOps.prefix(kept) {
            switch op {
            case .create(let name, let inode): names[name] = inode
            case .rename(let from, let to): names[to] = names.removeValue(forKey: from)
            case .unlink(let name): names[name] = nil
            default: break
            }
        }
        var result: [String: [UInt8]] = [:]
        for (name, inode) in names { result[name] = contents[inode] ?? [] }
        return result
    }

    static func apply(_ op: Operation, to bytes: inout [UInt8], tear: Tear?) {
        switch op {
        case .truncate(_, let length):
            if tear != nil { return }
            let n = Int(length)
            if n < bytes.count { bytes.removeSubrange(n...) } else { bytes += [UInt8](repeating: 0, count: n - bytes.count) }
        case .write(_, let offset, let data):
            var data = data
            let start = Int(offset)
            switch tear {
            case nil: break
            case .prefix(let count): data = Array(data.prefix(count))
            case .zeros, .garbage:
                // Only bytes past the old end can be lost this way: what was there stays.
                var g = SeededGenerator(state: { if case .garbage(let s) = tear { return s } else { return 0 } }())
                for i in data.indices where start + i >= bytes.count {
                    data[i] = tear == .zeros ? 0 : UInt8.random(in: 0...255, using: &g)
                }
                for i in data.indices where start + i < bytes.count { data[i] = bytes[start + i] }
            }
            if bytes.count < start + data.count { bytes += [UInt8](repeating: 0, count: start + data.count - bytes.count) }
            for (i, b) in data.enumerated() { bytes[start + i] = b }
        default:
            break
        }
    }

    /// The choices to try at one crash point: the durable state alone, everything,
    /// each directory prefix, each file's unsynced operations one at a time with
    /// torn variants, reorderings, and `random` random mixes.
    func choices(_ p: Pending, random: Int, generator g: inout SeededGenerator) -> [Choice] {
        var result: [Choice] = [Choice()]
        var nothing = Choice()
        nothing.directoryPrefix = 0
        for inode in p.unsyncedFiles { nothing.files[inode] = .init(kept: 0, tear: nil, skipped: nil) }
        result.append(nothing)
        if p.unsyncedDirectory > 0 {
            for d in 0..<p.unsyncedDirectory {
                var c = Choice(); c.directoryPrefix = d; result.append(c)
                var n = nothing; n.directoryPrefix = d; result.append(n)
            }
        }
        for inode in p.unsyncedFiles {
            let n = p.unsynced(inode)
            let ops = p.contentOps[inode]!.suffix(n)
            // Bound the work for long runs of unsynced writes (a compaction's copies).
            let ks = n <= 6 ? Array(0..<n) : Array(Set([0, 1, n / 2, n - 2, n - 1] + (0..<3).map { _ in Int.random(in: 0..<n, using: &g) })).sorted()
            for k in ks {
                let op = ops[ops.startIndex + k]
                var tears: [Tear?] = [nil]
                if case .write(_, _, let bytes) = op, bytes.count > 1 {
                    tears += [.prefix(Int.random(in: 1..<bytes.count, using: &g)), .prefix(bytes.count / 2), .zeros,
                              .garbage(g.next())]
                }
                for tear in tears {
                    var c = Choice()
                    c.files[inode] = .init(kept: k, tear: tear, skipped: nil)
                    result.append(c)
                }
            }
            if n >= 2 {
                // A later write reached the disk without an earlier one.
                for j in (n <= 4 ? Array(0..<(n - 1)) : [0, n / 2, n - 2]) {
                    var c = Choice()
                    c.files[inode] = .init(kept: n, tear: nil, skipped: j)
                    result.append(c)
                }
            }
        }
        for _ in 0..<random {
            var c = Choice()
            if p.unsyncedDirectory > 0 { c.directoryPrefix = Int.random(in: 0...p.unsyncedDirectory, using: &g) }
            for inode in p.unsyncedFiles {
                let n = p.unsynced(inode)
                let k = Int.random(in: 0...n, using: &g)
                let tear: Tear? = k < n ? [nil, .zeros, .garbage(g.next()), .prefix(Int.random(in: 0...64, using: &g))].randomElement(using: &g)! : nil
                let skip: Int? = k >= 2 && Bool.random(using: &g) ? Int.random(in: 0..<k, using: &g) : nil
                c.files[inode] = .init(kept: k, tear: tear, skipped: skip)
            }
            result.append(c)
        }
        return result
    }

    /// The crash points: just before every operation and after the last.
    var crashPoints: [Int] { Array(0...operations.count) }
}

/// Writes a crash state's files into `directory` (emptied first).
func materialize(_ files: [String: [UInt8]], at directory: URL) throws {
    try? FileManager.default.removeItem(at: directory)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                            attributes: [.posixPermissions: 0o700])
    for (name, bytes) in files {
        try Data(bytes).write(to: directory.appendingPathComponent(name))
    }
}

/// The real file system without its syncs, for checking states that only need to be
/// read and opened (a sync there would only cost time).
struct UnsyncedFileSystem: FileSystem {
    private let real = PosixFileSystem.shared
    func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef { try real.open(path, flags: flags, mode: mode) }
    func close(_ file: FileRef) { real.close(file) }
    func pread(_ file: FileRef, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try real.pread(file, buffer, at: offset)
    }
    func pwrite(_ file: FileRef, _ buffer: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        try real.pwrite(file, buffer, at: offset)
    }
    func size(_ file: FileRef) throws -> Int64 { try real.size(file) }
    func truncate(_ file: FileRef, to length: Int64) throws { try real.truncate(file, to: length) }
    func syncData(_ file: FileRef) throws {}
    func syncAll(_ file: FileRef) throws {}
    func rename(_ from: String, to: String) throws { try real.rename(from, to: to) }
    func unlink(_ path: String) throws { try real.unlink(path) }
    func makeDirectory(_ path: String) throws { try real.makeDirectory(path) }
    func syncDirectory(_ path: String) throws {}
    func listDirectory(_ path: String) throws -> [String] { try real.listDirectory(path) }
    func isDirectory(_ path: String) -> Bool? { real.isDirectory(path) }
    func lockExclusive(_ file: FileRef) throws { try real.lockExclusive(file) }
    func unlock(_ file: FileRef) { real.unlock(file) }
    func isLockHeld(_ file: FileRef) throws -> Bool { try real.isLockHeld(file) }
}
