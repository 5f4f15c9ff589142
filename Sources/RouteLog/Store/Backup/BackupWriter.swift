#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a snapshot into a destination as a store of its own: each segment up to its
/// committed end (kept when an earlier backup left an equal one), the index up to its
/// snapshot end, then the manifest, switched in atomically last, so that an
/// interrupted backup leaves the earlier one (or no store) behind, never a mix. Files
/// the new manifest does not name are removed after the switch.
struct BackupWriter {
    let snapshot: BackupSnapshot
    let destination: BackupDestination
    /// Throws `.closed` when the store closes: checked between files.
    let checkOpen: () throws -> Void

    static let chunk = 1 << 20

    func run() throws -> (copied: Int, reused: Int, bytes: Int64) {
        do {
            return try write()
        } catch let error as RouteLogError {
            throw destination.displayed(error)
        }
    }

    private func write() throws -> (copied: Int, reused: Int, bytes: Int64) {
        let files = destination.files
        let earlier = destination.earlierManifest()
        var copied = 0, reused = 0, bytes: Int64 = 0
        for segment in snapshot.segments {
            try checkOpen()
            let name = FormatConstants.segmentName(segment.number)
            if earlier?.segments.contains(segment.number) == true, try holdsEqual(name, segment.file, length: segment.end) {
                reused += 1
                continue
            }
            try copy(segment.file, length: segment.end, to: name)
            copied += 1
            bytes += segment.end
        }
        try checkOpen()
        let indexName = FormatConstants.indexName(snapshot.manifest.indexFile)
        if let index = snapshot.index {
            try copy(index, length: snapshot.indexEnd, to: indexName)
        } else {
            try write(FileHeader(kind: .index, fileNumber: snapshot.manifest.indexFile).encoded(), to: indexName)
        }
        bytes += snapshot.indexEnd
        try files.syncDirectory()
        try destination.checkUnmoved()
        var uncertain = false
        do {
            try ManifestWriter.write(snapshot.manifest, files: files, onUncertain: { _ in uncertain = true })
        } catch let error as RouteLogError where uncertain {
            // The store's advice (reopen to recover) is not a backup's: the destination
            // holds the earlier backup or this one, whole either way.
            let reason = error.errno.map { String(cString: strerror($0)) } ?? "the rename or the directory sync failed"
            throw RouteLogError(.io, "the backup's manifest could not be made durable (\(reason)); the destination holds the earlier backup or this one: back up again",
                                path: error.path, errno: error.errno)
        }
        try destination.checkUnmoved()
        let names = (try? destination.fileSystem.listDirectory(files.directory)) ?? []
        files.remove(names, keeping: snapshot.manifest)
        return (copied, reused, bytes)
    }

    /// True when the destination's file `name` is `length` bytes equal to `source`'s first ones.
    private func holdsEqual(_ name: String, _ source: DurableFile, length: Int64) throws -> Bool {
        guard let kept = try? destination.files.open(.segment, number: 0, writable: false, name: name),
              (try? kept.size()) == length else { return false }
        var offset: Int64 = 0
        while offset < length {
            let count = Int(min(Int64(Self.chunk), length - offset))
            guard try kept.read(at: offset, count: count) == source.read(at: offset, count: count) else { return false }
            offset += Int64(count)
        }
        return true
    }

    /// Copies `source`'s first `length` bytes into a temporary file, syncs it and renames
    /// it to `name` (replacing what an earlier backup had there).
    private func copy(_ source: DurableFile, length: Int64, to name: String) throws {
        let target = try temporary(name)
        var offset: Int64 = 0
        while offset < length {
            let bytes = try source.read(at: offset, count: Int(min(Int64(Self.chunk), length - offset)))
            guard !bytes.isEmpty else {
                throw RouteLogError.corrupted("the file ended at \(offset) bytes, before the committed end \(length)", path: source.path, offset: offset)
            }
            try target.write(bytes, at: offset)
            offset += Int64(bytes.count)
        }
        try finish(target, as: name)
    }

    private func write(_ bytes: [UInt8], to name: String) throws {
        let target = try temporary(name)
        try target.write(bytes, at: 0)
        try finish(target, as: name)
    }

    private func temporary(_ name: String) throws -> DurableFile {
        let path = destination.files.path(name + FormatConstants.temporarySuffix)
        let fileSystem = destination.fileSystem
        try destination.checkUnmoved()
        try? fileSystem.unlink(path)  // a leftover of an interrupted backup; unlink never follows a link
        return try DurableFile.create(path, fileSystem: fileSystem)
    }

    private func finish(_ file: DurableFile, as name: String) throws {
        try file.syncAll()
        let fileSystem = destination.fileSystem
        try destination.checkUnmoved()
        try fileSystem.checked("rename", file.path) { try fileSystem.rename(file.path, to: destination.files.path(name)) }
    }
}
