#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one writer of `MANIFEST`: every switch of the live file set (a new store, a
/// segment roll, an index rebuild, a compaction) is one ``commit(nextRouteID:_:)``
/// (format-spec.md, "Manifest"; docs/recovery-and-compaction.md, "Switches").
///
/// One rule for a switch whose outcome is unknown (the rename or the directory sync
/// failed: the old and the new file set are both possible on disk): the writer
/// refuses every later commit and change, and deletes nothing, until the store is
/// opened again and reads what really is on disk.
struct ManifestWriter: Sendable {
    let files: LogFiles
    /// The manifest on disk (as far as this writer knows).
    private(set) var current: Manifest
    /// Set after a switch whose outcome is unknown.
    private(set) var uncertain: RouteLogError?
    /// The next number to hand out. Numbers handed out are never handed out again by
    /// this writer, even when the file they were for is abandoned, so nothing that acts
    /// on an old number (a compaction giving up) can touch a newer file.
    private var nextNumber: UInt32

    init(files: LogFiles, current: Manifest) {
        self.files = files
        self.current = current
        self.nextNumber = current.nextFileNumber
    }

    var path: String { files.path(FormatConstants.manifestName) }

    /// A fresh file number, larger than any in use or handed out before.
    mutating func reserveFileNumber() -> UInt32 {
        defer { nextNumber += 1 }
        return nextNumber
    }

    /// Writes `MANIFEST` with `change` applied to the current one: temporary file,
    /// sync, rename, directory sync. The generation goes up by one; the next file
    /// number covers every number handed out; the next route id is at least `nextRouteID`.
    ///
    /// - Throws: ``RouteLogError`` when nothing changed on disk (the current manifest
    ///   stays); after a failed rename or directory sync the error is also kept in
    ///   ``uncertain`` and every later commit throws it.
    mutating func commit(nextRouteID: UInt64, _ change: (inout Manifest) -> Void) throws {
        if let uncertain { throw uncertain }
        var next = current
        change(&next)
        // Never a manifest a reader refuses: only a forged one starts near these limits.
        guard next.generation < Manifest.maxGeneration, nextNumber <= Manifest.maxNextFileNumber else {
            throw RouteLogError.corrupted("the store's MANIFEST has used up its generations or file numbers "
                                          + "(generation \(next.generation), next file number \(nextNumber)), "
                                          + "which no writer reaches; restore the store from a backup", path: path)
        }
        next.generation += 1
        next.nextFileNumber = max(next.nextFileNumber, nextNumber)
        next.nextRouteID = max(next.nextRouteID, nextRouteID)
        try Self.write(next, files: files, onUncertain: { uncertain = $0 })
        current = next
    }

    /// Writes `manifest` as `MANIFEST` atomically. `onUncertain` hears of a failure
    /// after the rename was attempted.
    static func write(_ manifest: Manifest, files: LogFiles, onUncertain: (RouteLogError) -> Void) throws {
        let path = files.path(FormatConstants.manifestName)
        let temporary = path + FormatConstants.temporarySuffix
        let fileSystem = files.fileSystem
        // A leftover (or a planted link) goes first: unlink never follows a link.
        do {
            try fileSystem.checked("unlink", temporary) { try fileSystem.unlink(temporary) }
        } catch let error as RouteLogError where error.errno == ENOENT {}
        let file = try DurableFile.create(temporary, fileSystem: fileSystem)
        try files.protect(file)
        try file.write(manifest.encoded(), at: 0)
        try file.syncAll()
        do {
            try fileSystem.checked("rename", temporary) { try fileSystem.rename(temporary, to: path) }
            try files.syncDirectory()
        } catch let error as RouteLogError {
            let uncertain = RouteLogError(.io, "the manifest could not be made durable (\(error.message)); reopen the store to recover",
                                          path: error.path, errno: error.errno)
            onUncertain(uncertain)
            throw uncertain
        }
    }

    /// The manifest of a new, empty store: segment 1 and index 2.
    static let empty = Manifest(generation: 1, nextFileNumber: 3, nextRouteID: 1, indexFile: 2, segments: [1])
}
