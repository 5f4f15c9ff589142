/// One live segment: its file number, its open file, and where its valid records end
/// (the append position, for the last one).
struct LogSegment: Sendable {
    let number: UInt32
    /// Its file, open or reopened on demand (see ``SegmentFileCache``).
    let handle: SegmentFile
    var end: Int64
    /// The format version in its header (how its payloads are stored).
    var version: UInt16 = FormatConstants.version

    /// A segment whose file was just opened or created; with `cache`, the descriptor
    /// may be closed when unused and opened again (read-write when `writable`).
    init(number: UInt32, file: DurableFile, end: Int64, version: UInt16 = FormatConstants.version,
         cache: SegmentFileCache? = nil, writable: Bool = false, headerDamaged: Bool = false) {
        self.number = number
        self.handle = SegmentFile(file, number: number, cache: cache, writable: writable, headerDamaged: headerDamaged)
        self.end = end
        self.version = version
    }

    /// A sealed segment a reader could not open (``SegmentFile/init(unreadable:path:number:fileSystem:)``),
    /// `end` bytes long by its directory entry.
    init(unreadable error: RouteLogError, number: UInt32, path: String, end: Int64, fileSystem: any FileSystem) {
        self.number = number
        handle = SegmentFile(unreadable: error, path: path, number: number, fileSystem: fileSystem)
        self.end = end
    }

    /// True for a sealed segment a reader could not open, and still cannot: its routes
    /// are listed from the index, and reading one of them throws why.
    var isUnreadable: Bool { handle.isUnreadable }

    /// The open file, for one operation or one scan.
    ///
    /// - Throws: `.io` or `.corrupted` when it had to be opened again and could not be.
    var file: DurableFile { get throws { try handle.open() } }

    var path: String { handle.path }
    /// Record bytes, without the file header.
    var recordBytes: Int64 { end - Int64(FormatConstants.fileHeaderSize) }
    var isEmpty: Bool { recordBytes <= 0 }
}

/// The live segments in manifest (replay) order: what every reader reads records
/// from. A value: the writer publishes a new one after each change, and a reader keeps
/// using the one it took (its files stay open while it holds them, even once a
/// compaction has removed them from the directory, unless the store's segment file
/// cache closed one: see ``SegmentFileCache``).
struct SegmentSet: Sendable {
    private(set) var segments: [LogSegment] = []
    private var positions: [UInt32: Int] = [:]

    init(_ segments: [LogSegment] = []) {
        for segment in segments { append(segment) }
    }

    var numbers: [UInt32] { segments.map(\.number) }
    var last: LogSegment? { segments.last }
    var isEmpty: Bool { segments.isEmpty }
    /// Bytes of every segment up to its valid end.
    var totalBytes: Int64 { segments.reduce(0) { $0 + $1.end } }

    func segment(_ number: UInt32) -> LogSegment? { positions[number].map { segments[$0] } }

    func contains(_ number: UInt32) -> Bool { positions[number] != nil }

    /// Where `number` stands in replay order.
    func position(of number: UInt32) -> Int? { positions[number] }

    mutating func append(_ segment: LogSegment) {
        precondition(positions[segment.number] == nil, "a segment is listed once")
        positions[segment.number] = segments.count
        segments.append(segment)
    }

    mutating func setEnd(_ end: Int64, of number: UInt32) {
        guard let i = positions[number] else { return }
        segments[i].end = end
    }

    /// Reads the record at `location` and checks that it is one whole record of `type`
    /// (header, length, type and checksum); returns its payload. Every reader of a
    /// located record (routes, recordings, compaction, verify, index catch-up) uses this.
    ///
    /// - Parameter what: the record's description for the error ("route 7's record").
    /// - Throws: `.corrupted` with the path and offset when the bytes are not that
    ///   record; `.io` when they cannot be read.
    func read(at location: RecordLocation, type: FormatConstants.RecordType,
              what: @autoclosure () -> String) throws -> ArraySlice<UInt8> {
        guard let segment = segment(location.segment) else {
            throw RouteLogError.corrupted("\(what()) is in segment \(location.segment), which the store does not list",
                                          path: FormatConstants.segmentName(location.segment))
        }
        let bytes = try segment.file.read(at: location.offset, count: location.length)
        guard bytes.count == location.length else {
            throw RouteLogError.corrupted("\(what()) is cut short: the segment ends before it does",
                                          path: segment.path, offset: location.offset)
        }
        do {
            return try RecordFrame.payload(of: bytes, type: type, version: segment.version)
        } catch .badHeader {
            throw RouteLogError.corrupted("\(what())'s record header is damaged", path: segment.path, offset: location.offset)
        } catch .badEscaping {
            throw RouteLogError.corrupted("\(what())'s record is damaged (its escaping is broken)", path: segment.path, offset: location.offset)
        } catch .wrongType(let found) {
            throw RouteLogError.corrupted("\(what()) should be a record of type \(type.rawValue), not \(found)",
                                          path: segment.path, offset: location.offset)
        } catch {
            throw RouteLogError.corrupted("\(what())'s record fails its checksum", path: segment.path, offset: location.offset)
        }
    }

    /// True when a whole, valid record of any type is at `location`.
    func holdsRecord(at location: RecordLocation) -> Bool {
        guard let segment = segment(location.segment),
              let bytes = try? segment.file.read(at: location.offset, count: location.length),
              bytes.count == location.length,
              let header = bytes.withUnsafeBytes({ RecordFrame.header($0, at: 0) }),
              let type = FormatConstants.RecordType(rawValue: header.type)
        else { return false }
        return (try? RecordFrame.payload(of: bytes, type: type, version: segment.version)) != nil
    }
}
