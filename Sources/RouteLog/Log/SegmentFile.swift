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
    let fileSystem: any FileSystem
    private let pinned: DurableFile?
    private let cache: SegmentFileCache?
    /// Why a reader could not open this sealed segment (its permissions): every use
    /// throws it, and the rest of the store is read as usual.
    let unreadable: RouteLogError?

    /// A handle on `file`, which is just open; with a cache, the cache takes it.
    init(_ file: DurableFile, number: UInt32, cache: SegmentFileCache?, writable: Bool, headerDamaged: Bool = false) {
        path = file.path
        self.number = number
        self.writable = writable
        self.headerDamaged = headerDamaged
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

    /// The open file, to use for one operation or one scan and then let go.
    ///
    /// - Throws: what ``SegmentFileCache/file(for:)`` throws when it must be opened again.
    /// A sealed segment a reader could not open: ``open()`` throws `error`.
    init(unreadable error: RouteLogError, path: String, number: UInt32, fileSystem: any FileSystem) {
        self.path = path
        self.number = number
        writable = false
        headerDamaged = false
        self.fileSystem = fileSystem
        pinned = nil
        cache = nil
        unreadable = error
    }

    func open() throws -> DurableFile {
        if let unreadable { throw unreadable }
        if let pinned { return pinned }
        return try cache!.file(for: self)
    }
}
