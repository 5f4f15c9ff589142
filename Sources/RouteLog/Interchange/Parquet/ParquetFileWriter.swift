import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes one Parquet file, row group by row group: "PAR1", the column chunks, the
/// footer (FileMetaData in Thrift's compact protocol), its length and "PAR1".
///
/// The file is written under a temporary name beside the final one (hidden, with this
/// process's id and a number: `.routes.parquet.PID.N.tmp`, which dataset readers skip),
/// completed by ``complete(keyValues:)`` and renamed over the final one by
/// ``publish()``, so a reader never sees half a file, a failed export leaves any earlier
/// file in place, and two exports into one directory never write the same file. The
/// temporary file is created new (`O_EXCL`): a link, FIFO or file planted at its name
/// is never opened. Both names are in one ``ExportFolder``, reached through its
/// descriptor, never through its path.
final class ParquetFileWriter {
    /// The final file's path, as the caller knows it (messages).
    let url: String
    /// The temporary file's path, as the caller knows it (messages).
    private(set) var temporaryPath: String
    private let folder: ExportFolder
    private let name: String
    private var temporaryName = ""
    private let schema: ParquetSchema
    private let sortedBy: [Int32]
    private let fileSystem = PosixFileSystem.shared
    private var file: FileRef?
    private var offset: Int64 = 0
    private var rowGroups: [ParquetRowGroup] = []
    private(set) var rowCount: Int64 = 0

    /// Creates the temporary file in `folder` and writes the leading magic.
    /// - Parameters:
    ///   - name: the final file's name in `folder`.
    ///   - sortedBy: leaf columns (by index) every row group is sorted by, ascending.
    /// - Throws: ``RouteLogError`` `.io` when the file cannot be created or written, or
    ///   the folder was moved or replaced.
    init(in folder: ExportFolder, name: String, schema: ParquetSchema, sortedBy: [Int32]) throws {
        self.folder = folder
        self.name = name
        url = folder.path(name)
        temporaryPath = ""
        self.schema = schema
        self.sortedBy = sortedBy
        for attempt in 0..<100 {
            let candidate = ".\(name).\(getpid()).\(Self.nextNumber()).tmp"
            temporaryName = candidate
            temporaryPath = folder.path(candidate)
            do {
                file = try folder.open(candidate, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o644)
                break
            } catch let error as Errno where error.code == EEXIST && attempt < 99 {
                continue  // left by a process of the same id, or planted: another number
            } catch let error as Errno {
                throw RouteLogError.io("creating the Parquet file", path: temporaryPath, errno: error.code)
            }
        }
        try write(ParquetFormat.magic)
    }

    /// The file at `path`, in the directory its path leads to now (a file written outside
    /// an export: tests).
    convenience init(path: String, schema: ParquetSchema, sortedBy: [Int32]) throws {
        let folder = try ExportFolder(opening: URL(fileURLWithPath: (path as NSString).deletingLastPathComponent, isDirectory: true))
        try self.init(in: folder, name: (path as NSString).lastPathComponent, schema: schema, sortedBy: sortedBy)
    }

    /// Numbers for the temporary names, unique within the process.
    private static let counter = StateLock(0)
    /// The temporary files' kinds: their final names, split at the dot.
    private static let temporaryKinds: [(String, String)] = [("routes", "parquet"), ("points", "parquet"), ("_routelog_export", "json")]

    /// Removes the temporary files that exports killed before they finished left in
    /// `folder`: names of this writer's pattern (and of the list of routes',
    /// ``ExportFolder/replace(_:with:)``) whose process is gone (no process has the id, so
    /// no export can still be writing them), regular files only. Returns them.
    static func removeLeftovers(in folder: ExportFolder) -> [URL] {
        var removed: [URL] = []
        for name in folder.names() where name.hasPrefix(".") && name.hasSuffix(".tmp") {
            let parts = name.dropFirst().dropLast(4).split(separator: ".")
            guard parts.count == 4, temporaryKinds.contains(where: { $0.0 == parts[0] && $0.1 == parts[1] }),
                  OutputNames.isNumber(parts[2]), OutputNames.isNumber(parts[3]),
                  let pid = pid_t(parts[2]), pid > 0, pid != getpid(),
                  kill(pid, 0) != 0 && errno == ESRCH else { continue }
            guard folder.kind(of: name) == .regular, (try? folder.unlink(name)) != nil else { continue }
            removed.append(folder.url(name))
        }
        return removed.sorted { $0.path < $1.path }
    }

    /// The number the next temporary name starts from (tests plant files there).
    static var upcomingNumber: Int { counter.withLock { $0 + 1 } }

    /// The next number for a temporary name.
    static func nextNumber() -> Int {
        counter.withLock { n in
            n += 1
            return n
        }
    }

    deinit { abandon() }

    /// Ends the chunk of every column (in schema order) and writes them as one row group;
    /// nothing when the columns hold no rows. Each chunk is written as soon as it is
    /// encoded, so only one is in memory at a time.
    /// - Throws: ``RouteLogError`` `.io` when the write fails.
    func writeRowGroup(_ writers: [any ColumnChunkWriter]) throws {
        let leaves = schema.leaves
        precondition(writers.count == leaves.count)
        let rows = writers[0].rowCount
        guard rows > 0 else { return }
        var columns: [ParquetColumnChunk] = []
        for (writer, leaf) in zip(writers, leaves) {
            precondition(writer.column.path == leaf.path && writer.rowCount == rows,
                         "\(leaf.path) has \(writer.rowCount) values in a group of \(rows) rows")
            let chunk = writer.finishChunk()
            let start = offset
            try write(chunk.bytes)
            columns.append(ParquetColumnChunk(
                type: leaf.type, encodings: chunk.encodings, path: leaf.path, codec: chunk.codec,
                valueCount: chunk.valueCount, uncompressedSize: chunk.uncompressedSize,
                compressedSize: Int64(chunk.bytes.count), dataPageOffset: start + Int64(chunk.dictionaryPageSize),
                dictionaryPageOffset: chunk.dictionaryPageSize > 0 ? start : nil, statistics: chunk.statistics))
        }
        rowGroups.append(ParquetRowGroup(columns: columns, rowCount: Int64(rows),
                                         ordinal: Int16(exactly: rowGroups.count), sortedBy: sortedBy))
        rowCount += Int64(rows)
    }

    /// Writes the footer and closes the temporary file, whole; ``publish()`` then puts
    /// it in place.
    /// - Returns: The file's size in bytes.
    /// - Throws: ``RouteLogError`` `.io` when the write fails.
    func complete(keyValues: [(key: String, value: String)]) throws -> Int64 {
        let footer = ParquetFileMetadata(schema: schema.elements, rowCount: rowCount, rowGroups: rowGroups,
                                         keyValues: keyValues, leafCount: schema.leaves.count).encoded()
        try write(footer)
        try write(withUnsafeBytes(of: UInt32(footer.count).littleEndian) { Array($0) })
        try write(ParquetFormat.magic)
        guard let open = file else { throw RouteLogError(.invalidArgument, "the Parquet file is already closed", path: url) }
        // On permanent storage before it takes an earlier file's name, so that a power
        // loss never leaves an empty table where a whole one was (or a kept one pruned).
        do {
            try fileSystem.syncData(open)
        } catch let error as Errno {
            abandon()
            throw RouteLogError.io("syncing the Parquet file", path: temporaryPath, errno: error.code)
        }
        fileSystem.close(open)
        file = nil
        completed = true
        return offset
    }

    /// Renames the completed file over its final name.
    /// - Throws: ``RouteLogError`` `.io` when the rename fails (the temporary file is removed).
    func publish() throws {
        precondition(completed && !published, "publish a completed file once")
        do {
            try folder.rename(temporaryName, to: name)
            published = true
        } catch let error as Errno {
            try? folder.unlink(temporaryName)
            completed = false
            throw RouteLogError.io("renaming the Parquet file into place", path: url, errno: error.code)
        }
    }

    private var completed = false, published = false

    /// Removes the temporary file, open or completed (after a failure; nothing once
    /// published).
    func abandon() {
        if let open = file {
            fileSystem.close(open)
            file = nil
            try? folder.unlink(temporaryName)
        } else if completed && !published {
            completed = false
            try? folder.unlink(temporaryName)
        }
    }

    private func write(_ bytes: [UInt8]) throws {
        guard let open = file else { throw RouteLogError(.invalidArgument, "the Parquet file is already closed", path: url) }
        var done = 0
        while done < bytes.count {
            do {
                let n = try bytes.withUnsafeBytes { raw in
                    try fileSystem.pwrite(open, UnsafeRawBufferPointer(rebasing: raw[done...]), at: offset + Int64(done))
                }
                guard n > 0 else { throw Errno(code: EIO) }
                done += n
            } catch let error as Errno where error.code == EINTR {
                continue
            } catch let error as Errno {
                abandon()
                throw RouteLogError.io("writing the Parquet file", path: temporaryPath, errno: error.code)
            }
        }
        offset += Int64(bytes.count)
    }
}
