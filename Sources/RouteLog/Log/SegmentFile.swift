#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a segment's bytes are reached: through its store's ``SegmentFileCache`` (which
/// may close the descriptor and open the same path again later), or, without a cache,
/// through one file held open for as long as this handle lives.
final class SegmentFile: Sendable {
    let path: String
    let number: UInt32
    /// Opened again read-write (the writer's segments) or read-only.
    let writable: Bool
    /// The header did not decode when the store opened: its file number cannot be checked.
    let headerDamaged: Bool
    /// The device and inode of the file the store opened (nil when the file system cannot
    /// tell): the file at the segment's name must still be this one when it is opened
    /// again, whatever its bytes say (``SegmentFileCache``), and a read-only handle that
    /// finds another one there reads the store again (RouteStore+WriterCatchUp).
    let identity: FileIdentity?
    /// When that file was made (nil when the file system cannot tell): a file restored
    /// in its place after it was removed may have been given its inode number.
    let birth: FileBirth?
    let fileSystem: any FileSystem
    private let pinned: DurableFile?
    private let cache: SegmentFileCache?
    /// Why a reader could not open this sealed segment when the store opened (its
    /// permissions): each use tries again, and throws why it still cannot (the rest of
    /// the store is read as usual); once it can, see ``openedLate``.
    let unreadable: RouteLogError?
    /// The file of a segment that could not be opened with the store, once a later use
    /// could open it (its permissions restored): held for as long as this handle lives.
    private let openedLate = StateLock<DurableFile?>(nil)

    /// A handle on `file`, which is just open; with a cache, the cache takes it.
    init(_ file: DurableFile, number: UInt32, cache: SegmentFileCache?, writable: Bool, headerDamaged: Bool = false) {
        path = file.path
        self.number = number
        self.writable = writable
        self.headerDamaged = headerDamaged
        identity = file.fileSystem.identity(file.ref)
        birth = file.fileSystem.birth(file.ref)
        fileSystem = file.fileSystem
        self.cache = cache
        unreadable = nil
        if let cache {
            pinned = nil
            cache.insert(file)
        } else {
            pinned = file
        }
    }

    /// A sealed segment a reader could not open: ``open()`` throws `error`.
    init(unreadable error: RouteLogError, path: String, number: UInt32, fileSystem: any FileSystem) {
        self.path = path
        self.number = number
        writable = false
        headerDamaged = false
        identity = nil
        birth = nil
        self.fileSystem = fileSystem
        pinned = nil
        cache = nil
        unreadable = error
    }

    /// The open file, to use for one operation or one scan and then let go.
    ///
    /// - Throws: what ``SegmentFileCache/file(for:)`` throws when it must be opened again.
    func open() throws -> DurableFile {
        if unreadable != nil { return try openLate() }
        if let pinned { return pinned }
        return try cache!.file(for: self)
    }

    /// Whether `file` is the file the store opened for this segment: the same device and
    /// inode, made at the same moment. True when the file system can tell neither.
    func isOpenedFile(_ file: DurableFile) -> Bool {
        guard let identity else { return true }
        guard file.fileSystem.identity(file.ref) == identity else { return false }
        return birth == nil || file.fileSystem.birth(file.ref) == birth
    }

    /// True while a segment that could not be opened with the store still cannot be.
    var isUnreadable: Bool {
        unreadable != nil && openedLate.withLock { $0 == nil }
    }

    /// A segment that could not be opened with the store, opened now if it can be: its
    /// header must be this segment's (its number, and the format version the store
    /// assumed for it, that of the index entries that stand for its records), so that
    /// no other file's bytes are read as its records.
    private func openLate() throws -> DurableFile {
        try openedLate.withLock { held in
            if let held { return held }
            let file = try DurableFile.open(path, flags: O_RDONLY, fileSystem: fileSystem)
            let header = try FileHeader.decode(try file.read(at: 0, count: FormatConstants.fileHeaderSize), path: path,
                                               expecting: .segment)
            guard header.fileNumber == number else {
                throw RouteLogError.corrupted("segment \(number) was replaced by another file (its header says \(header.fileNumber)) while the store was open",
                                              path: path, offset: 12)
            }
            guard header.version == FormatConstants.version else {
                throw RouteLogError(.io, "the segment can be read now, but it was written by format version \(header.version), which this open store did not expect: open the store again to read it",
                                    path: path)
            }
            held = file
            return file
        }
    }
}
