// Shared by every fuzz target: a whole store in memory, so an input never touches
// the disk and a run does thousands of executions a second.
import Foundation
@testable import RouteLog
#if canImport(Glibc)
import Glibc
#endif

/// One directory's files in memory, behind the FileSystem protocol the store uses.
/// Directories made in it (`lost/`) are names in `directories`, their files keys of
/// `files` under that name and a slash; nothing is ever renamed or linked in their place,
/// so a directory opened is its path.
final class MemoryFileSystem: FileSystem, @unchecked Sendable {
    let directory: String
    var files: [String: [UInt8]]
    private var directories: Set<String> = []
    private var descriptors: [Int32: String] = [:]
    private var nextDescriptor: Int32 = 3

    init(directory: String = "/fuzz.routelog", files: [String: [UInt8]] = [:]) {
        self.directory = directory
        self.files = files
    }

    private func name(_ path: String) -> String { String(path.dropFirst(directory.count + 1)) }
    private func bytes(_ file: FileRef) throws -> [UInt8] {
        guard let name = descriptors[file.fd], let bytes = files[name] else { throw Errno(code: EBADF) }
        return bytes
    }

    func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef {
        // The directory itself, opened for the writer's flock (a no-op here).
        if path == directory {
            defer { nextDescriptor += 1 }
            return FileRef(fd: nextDescriptor, path: path)
        }
        let name = self.name(path)
        if flags & O_CREAT != 0, flags & O_EXCL != 0, files[name] != nil || directories.contains(name) { throw Errno(code: EEXIST) }
        if files[name] == nil {
            guard flags & O_CREAT != 0 else { throw Errno(code: ENOENT) }
            files[name] = []
        }
        if flags & O_TRUNC != 0 { files[name] = [] }
        let fd = nextDescriptor
        nextDescriptor += 1
        descriptors[fd] = name
        return FileRef(fd: fd, path: path)
    }
    func close(_ file: FileRef) { descriptors[file.fd] = nil }
    func pread(_ file: FileRef, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        let bytes = try bytes(file)
        guard offset < Int64(bytes.count) else { return 0 }
        let n = min(buffer.count, bytes.count - Int(offset))
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + Int(offset), byteCount: n) }
        return n
    }
    func pwrite(_ file: FileRef, _ buffer: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        guard let name = descriptors[file.fd] else { throw Errno(code: EBADF) }
        var bytes = files[name] ?? []
        let end = Int(offset) + buffer.count
        if bytes.count < end { bytes += [UInt8](repeating: 0, count: end - bytes.count) }
        for i in 0..<buffer.count { bytes[Int(offset) + i] = buffer[i] }
        files[name] = bytes
        return buffer.count
    }
    func size(_ file: FileRef) throws -> Int64 { Int64(try bytes(file).count) }
    func truncate(_ file: FileRef, to length: Int64) throws {
        guard let name = descriptors[file.fd] else { throw Errno(code: EBADF) }
        var bytes = files[name] ?? []
        if Int(length) < bytes.count { bytes.removeSubrange(Int(length)...) } else { bytes += [UInt8](repeating: 0, count: Int(length) - bytes.count) }
        files[name] = bytes
    }
    func syncData(_ file: FileRef) throws {}
    func syncAll(_ file: FileRef) throws {}
    func rename(_ from: String, to: String) throws {
        guard let bytes = files.removeValue(forKey: name(from)) else { throw Errno(code: ENOENT) }
        files[name(to)] = bytes
        for (fd, n) in descriptors where n == name(from) { descriptors[fd] = name(to) }
    }
    func renameExclusive(_ from: String, to: String) throws {
        guard files[name(to)] == nil else { throw Errno(code: EEXIST) }
        try rename(from, to: to)
    }
    func exchange(_ a: String, with b: String) throws {
        guard let first = files[name(a)], let second = files[name(b)] else { throw Errno(code: ENOENT) }
        (files[name(a)], files[name(b)]) = (second, first)
        for (fd, n) in descriptors {
            if n == name(a) { descriptors[fd] = name(b) } else if n == name(b) { descriptors[fd] = name(a) }
        }
    }
    func unlink(_ path: String) throws {
        guard files.removeValue(forKey: name(path)) != nil else { throw Errno(code: ENOENT) }
    }
    func makeDirectory(_ path: String) throws {
        if path != directory { directories.insert(name(path)) }
    }
    func syncDirectory(_ path: String) throws {}
    func listDirectory(_ path: String) throws -> [String] {
        let prefix = path == directory ? "" : name(path) + "/"
        return (Array(files.keys) + directories).filter { $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains("/") }
            .map { String($0.dropFirst(prefix.count)) }
    }
    func isDirectory(_ path: String) -> Bool? {
        path == directory || directories.contains(name(path)) ? true : (files[name(path)] != nil ? false : nil)
    }
    func lockExclusive(_ file: FileRef) throws {}
    func unlock(_ file: FileRef) {}
    func isLockHeld(_ file: FileRef) throws -> Bool { false }
    func fileType(_ file: FileRef) throws -> FileType { _ = try bytes(file); return .regular }
    func linkCount(_ file: FileRef) throws -> Int { _ = try bytes(file); return 1 }  // no links in memory
    func isSymbolicLink(_ path: String) -> Bool? { isDirectory(path).map { _ in false } }
    func lockDirectory(_ directory: FileRef) throws {}
    func unlockDirectory(_ directory: FileRef) {}

    func openDirectory(_ name: String, in parent: DirectoryRef?, flags: Int32) throws -> DirectoryRef {
        let path = parent.map { $0.path(name) } ?? name
        switch isDirectory(path) {
        case true?:
            defer { nextDescriptor += 1 }
            return DirectoryRef(fd: nextDescriptor, path: path)
        case false?: throw Errno(code: ENOTDIR)
        case nil: throw Errno(code: ENOENT)
        }
    }
    func closeDirectory(_ directory: DirectoryRef) {}
    func open(_ name: String, in directory: DirectoryRef, flags: Int32, mode: UInt32) throws -> FileRef {
        try open(directory.path(name), flags: flags, mode: mode)
    }
    func makeDirectory(_ name: String, in directory: DirectoryRef) throws {
        guard isDirectory(directory.path(name)) == nil else { throw Errno(code: EEXIST) }
        directories.insert(self.name(directory.path(name)))
    }
    func rename(_ name: String, in source: DirectoryRef, to target: String, in destination: DirectoryRef) throws {
        try rename(source.path(name), to: destination.path(target))
    }
    func renameExclusive(_ name: String, in source: DirectoryRef, to target: String, in destination: DirectoryRef) throws {
        try renameExclusive(source.path(name), to: destination.path(target))
    }
    func unlink(_ name: String, in directory: DirectoryRef) throws { try unlink(directory.path(name)) }
    func listDirectory(_ directory: DirectoryRef) throws -> [String] { try listDirectory(directory.path) }
    func syncDirectory(_ directory: DirectoryRef) throws {}
}

/// A small store built in memory once: four routes (one with every optional column),
/// a batch, a delete and an edit. The targets replace one of its files with the input.
enum FuzzStore {
    static let files: [String: [UInt8]] = {
        let fs = MemoryFileSystem()
        let store = try! RouteStore(at: URL(fileURLWithPath: fs.directory), options: .init(compaction: .manual), fileSystem: fs)
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        func route(_ n: Int, full: Bool) -> Route {
            var points: [TrackPoint] = []
            for i in 0..<n {
                let x = Double(i)
                var point = TrackPoint(latitude: 45.4 + x * 1e-4, longitude: 9.19 - x * 2e-4,
                                       timestamp: start.addingTimeInterval(x))
                if full {
                    point.altitude = 120 + Double(i % 7)
                    point.horizontalAccuracy = 5
                }
                if i % 3 == 0 { point.speed = 1.4 }
                points.append(point)
            }
            let splits: [Split] = n > 5 ? [Split(unit: .kilometre, pointIndex: 5, elapsedTime: 5)] : []
            let metadata = RouteMetadata(name: full ? "Fuzz walk" : nil, calories: 12)
            return Route(points: points, splits: splits, metadata: metadata, segmentStarts: n > 8 ? [8] : [])
        }
        _ = try! store.save(route(30, full: true))
        _ = try! store.save(route(3, full: false))
        _ = try! store.save([route(12, full: true), route(1, full: false)])
        try! store.delete(RouteID(2))
        _ = try! store.edit(RouteID(3), RouteEdit(shift: 60, name: "edited"))
        try! store.close()
        return fs.files
    }()

    static let segmentName = FormatConstants.segmentName(1)
    static let indexName = FormatConstants.indexName(2)

    /// Opens the store with `name` replaced by `bytes`, for reading, and reads
    /// everything a caller could: summaries, every route, verify.
    static func exercise(replacing name: String, with bytes: [UInt8]) {
        var files = FuzzStore.files
        files[name] = bytes
        let fs = MemoryFileSystem(files: files)
        guard let store = try? RouteStore(at: URL(fileURLWithPath: fs.directory), options: .init(mode: .readOnly), fileSystem: fs) else { return }
        // A damaged store may refuse any of these: an error is an answer, a crash is not.
        for summary in (try? store.summaries()) ?? [] { _ = try? store.route(summary.id) }
        _ = try? store.verify()
    }
}

/// With ROUTELOG_FUZZ_WRITE_SEEDS=DIR, writes the seed corpora (DIR/<target>/) from
/// FuzzStore's files before fuzzing starts: how Tests/Fuzz/corpus was made.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> Int32 {
    guard let root = ProcessInfo.processInfo.environment["ROUTELOG_FUZZ_WRITE_SEEDS"] else { return 0 }
    func write(_ target: String, _ name: String, _ bytes: [UInt8]) {
        let dir = URL(fileURLWithPath: root).appendingPathComponent(target)
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try? Data(bytes).write(to: dir.appendingPathComponent(name))
    }
    let segment = FuzzStore.files[FuzzStore.segmentName]!
    let index = FuzzStore.files[FuzzStore.indexName]!
    write("log-scanner", "segment", segment)
    write("log-scanner", "index", index)
    write("log-scanner", "manifest", FuzzStore.files[FormatConstants.manifestName]!)
    write("log-scanner", "segment-torn", Array(segment.dropLast(7)))
    write("index-loader", "index", index)
    write("index-loader", "index-behind", Array(index.prefix(index.count / 2)))
    let fs = MemoryFileSystem(files: ["log": segment])
    let file = try! DurableFile.open(fs.directory + "/log", flags: 0, fileSystem: fs)
    var scanner = LogScanner(file: file, from: Int64(FormatConstants.fileHeaderSize), fileSize: Int64(segment.count))
    var n = 0
    while let record = try? scanner.next() {
        guard let put = try? RouteRecord(payload: record.payload) else { continue }
        n += 1
        write("codec", "point-block-\(n)", Array(put.pointBlock))
        if let columns = try? PointBlock.decode(put.pointBlock) { write("codec", "column-block-\(n)", columns) }
    }
    return 0
}

/// The input with every checksum made right: the file header's, and each frame's
/// that a scan from offset 20 meets (sync marker, length that fits). Without this,
/// almost every mutation dies at a checksum and the code behind it is never reached;
/// with it, the fuzzer plays a hostile writer, not just a bad disk.
func withValidChecksums(_ input: [UInt8]) -> [UInt8] {
    var bytes = input
    let header = FormatConstants.fileHeaderSize
    guard bytes.count >= header else { return bytes }
    func store(_ value: UInt32, at offset: Int) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
    }
    store(Checksum.masked(bytes, 0..<16), at: 16)
    var offset = header
    let frameHeader = FormatConstants.recordHeaderSize
    while offset + frameHeader <= bytes.count {
        let length = bytes.withUnsafeBytes { RecordFrame.header($0, at: offset)?.length }
        if let length, offset + frameHeader + length <= bytes.count {
            store(Checksum.masked(bytes, (offset + 8)..<(offset + frameHeader + length)), at: offset + 4)
            offset += frameHeader + length
        } else {
            offset += 1
        }
    }
    return bytes
}
