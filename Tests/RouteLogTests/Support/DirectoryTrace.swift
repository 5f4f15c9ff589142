import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import RouteLog

/// Every operation that changed the files of one directory, in order: creations,
/// writes, truncations, syncs, renames, unlinks and directory syncs, fed by an
/// ``InterceptingFileSystem`` (``InterceptingFileSystem/trace(_:)``). Files are followed
/// by identity (an inode number of the trace's own), not by name, so a rename moves a
/// file's history with it. The workload adds marks between operations ("this many
/// changes were acknowledged to the caller by now"). ``CrashStateModel`` builds crash
/// states from it.
final class DirectoryTrace: @unchecked Sendable {
    typealias Inode = Int

    enum Operation: Equatable {
        case create(name: String, inode: Inode)
        case write(inode: Inode, offset: Int64, bytes: [UInt8])
        case truncate(inode: Inode, length: Int64)
        /// fsync, fdatasync or a barrier: the file's data (and size) are durable.
        case sync(inode: Inode)
        case rename(from: String, to: String)
        /// The two names swapped their files.
        case exchange(String, String)
        case unlink(name: String)
        /// fsync of the directory: every earlier creation, rename and unlink is durable.
        case syncDirectory
        /// `acknowledged` changes of the workload have returned to their caller.
        case mark(acknowledged: Int)
    }

    let directory: String
    /// The files found at the start, taken as durable, and their inode numbers.
    let initialFiles: [String: [UInt8]]
    let initialInodes: [String: Inode]
    private let lock = NSLock()
    private var names: [String: Inode] = [:]
    private var open: [Int32: Inode] = [:]
    private var nextInode = 0
    private var log: [Operation] = []

    init(directory: URL) throws {
        self.directory = directory.standardizedFileURL.path
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: self.directory) {
            files[name] = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
            names[name] = nextInode
            nextInode += 1
        }
        initialFiles = files
        initialInodes = names
    }

    var operations: [Operation] { lock.withLock { log } }

    func mark(_ acknowledged: Int) { lock.withLock { log.append(.mark(acknowledged: acknowledged)) } }

    private func name(of path: String) -> String? {
        guard path.hasPrefix(directory + "/") else { return nil }
        let rest = String(path.dropFirst(directory.count + 1))
        return rest.contains("/") ? nil : rest
    }

    /// Takes in one completed call of the file system.
    func record(_ operation: InterceptingFileSystem.Operation) {
        lock.withLock {
            switch operation {
            case .open(let file, let flags):
                guard let name = name(of: file.path) else { return }
                if let inode = names[name] {
                    open[file.fd] = inode
                    if flags & O_TRUNC != 0 { log.append(.truncate(inode: inode, length: 0)) }
                } else {
                    let inode = nextInode
                    nextInode += 1
                    names[name] = inode
                    open[file.fd] = inode
                    log.append(.create(name: name, inode: inode))
                }
            case .close(let file):
                open[file.fd] = nil
            case .write(let file, let offset, let bytes):
                if let inode = open[file.fd] { log.append(.write(inode: inode, offset: offset, bytes: bytes)) }
            case .truncate(let file, let length):
                if let inode = open[file.fd] { log.append(.truncate(inode: inode, length: length)) }
            case .syncData(let file), .syncBarrier(let file), .syncAll(let file):
                if let inode = open[file.fd] { log.append(.sync(inode: inode)) }
            case .rename(let from, let to):
                guard let a = name(of: from), let b = name(of: to), let inode = names.removeValue(forKey: a) else { return }
                names[b] = inode
                log.append(.rename(from: a, to: b))
            case .exchange(let first, let second):
                guard let a = name(of: first), let b = name(of: second) else { return }
                (names[a], names[b]) = (names[b], names[a])
                log.append(.exchange(a, b))
            case .unlink(let path):
                guard let name = name(of: path) else { return }
                names[name] = nil
                log.append(.unlink(name: name))
            case .syncDirectory(let path):
                if path == directory { log.append(.syncDirectory) }
            case .read, .size, .makeDirectory, .listDirectory, .isDirectory, .lockExclusive, .unlock, .isLockHeld,
                 .openDirectory, .closeDirectory:
                break
            }
        }
    }
}
