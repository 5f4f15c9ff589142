import Foundation
@testable import RouteLog

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
    typealias Inode = DirectoryTrace.Inode
    typealias Operation = DirectoryTrace.Operation

    let initialFiles: [String: [UInt8]]
    let initialInodes: [String: Inode]
    let operations: [Operation]

    init(_ trace: DirectoryTrace) {
        initialFiles = trace.initialFiles
        initialInodes = trace.initialInodes
        operations = trace.operations
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
            case .create, .rename, .exchange, .unlink:
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
            case .exchange(let a, let b): (names[a], names[b]) = (names[b], names[a])
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

extension CrashStateModel {
    /// The state at crash point `point` of a power loss that kept only what was synced:
    /// file data up to each file's last sync, directory changes up to the last directory
    /// sync.
    func filesSyncedOnly(at point: Int) -> [String: [UInt8]] {
        let pending = pending(at: point)
        return files(pending, Choice(files: Dictionary(uniqueKeysWithValues: pending.unsyncedFiles.map {
            ($0, Choice.FileChoice(kept: 0, tear: nil, skipped: nil))
        }), directoryPrefix: 0))
    }

    /// The worst state at crash point `point` for an index that vouches for records:
    /// every index file kept every write it received, every other file only what was
    /// synced (the kernel wrote the index's pages back and none of the segment's).
    func filesWithTheIndexAhead(at point: Int) -> [String: [UInt8]] {
        let pending = pending(at: point)
        let syncedOnly = Choice(files: Dictionary(uniqueKeysWithValues: pending.unsyncedFiles.map {
            ($0, Choice.FileChoice(kept: 0, tear: nil, skipped: nil))
        }))
        var files = self.files(pending, syncedOnly)
        for (name, bytes) in self.files(pending, Choice())
        where name.hasPrefix(FormatConstants.indexPrefix) && files[name] != nil {
            files[name] = bytes
        }
        return files
    }
}
