/// A record read back from a log file.
struct ScannedRecord {
    let type: UInt8
    let flags: UInt8
    /// Offset of the frame in the file.
    let offset: Int64
    /// Frame length: header plus stored payload.
    let frameLength: Int
    /// The payload as written (unescaped), often sharing the scanner's read buffer.
    let payload: ArraySlice<UInt8>

    var end: Int64 { offset + Int64(frameLength) }
}

/// Bytes a scan could not read as records.
struct DamagedRange: Equatable, Sendable {
    let path: String
    let offset: Int64
    let length: Int64
}

/// Walks the records of a segment, index or manifest (format-spec.md, "Reading a
/// log"). Never trusts a length before checking it against the file; after damage it
/// searches forward for the next whole valid frame. What follows the last valid record
/// is the tail: a torn tail, unless a vouched record (one the index locates) lies in it,
/// which makes it damage. A batch cut by the end of the file is part of the tail unless
/// its records are vouched for; a batch cut by damage keeps its records before it.
struct LogScanner {
    private let file: DurableFile
    private let fileSize: Int64
    private let version: UInt16
    /// Offsets of records the index locates in this file.
    private let vouched: Set<Int64>
    private var window: [UInt8] = []
    private var windowStart: Int64 = 0
    private var position: Int64
    /// Records of a batch whose last record has not been read yet.
    private var pending: [ScannedRecord] = []
    /// Records to hand out, in order, from `readyIndex` on.
    private var ready: [ScannedRecord] = []
    private var readyIndex = 0
    private var finished = false

    /// End of the last record handed out, or of the start: where a writer may append.
    private(set) var validEnd: Int64
    /// The damaged ranges met so far (the tail too, once it is known to be damage).
    private(set) var damage: [DamagedRange] = []
    /// True once the scan ended and the bytes from `validEnd` on are a torn tail.
    private(set) var tailIsTorn = false

    static let windowSize = 1 << 20

    /// - Parameters:
    ///   - version: the file header's format version (how payloads are stored).
    ///   - vouched: offsets of records the index locates in this file.
    init(file: DurableFile, from start: Int64, fileSize: Int64, version: UInt16 = FormatConstants.version,
         vouched: Set<Int64> = []) {
        self.file = file
        self.fileSize = fileSize
        self.version = version
        self.vouched = vouched
        self.position = start
        self.validEnd = start
    }

    /// Bytes from `validEnd` to the end of the file once `next()` returned nil: a torn
    /// tail when ``tailIsTorn``, else part of ``damage`` (or nothing).
    var tailLength: Int64 { tailIsTorn ? fileSize - validEnd : 0 }

    /// The next valid, committed record, or nil at the end.
    mutating func next() throws -> ScannedRecord? {
        while readyIndex == ready.count {
            ready.removeAll(keepingCapacity: true)
            readyIndex = 0
            guard !finished else { return nil }
            guard let record = try nextFrame() else {
                finish()
                continue
            }
            if record.flags & RecordFrame.batchContinues != 0 {
                pending.append(record)
            } else {
                ready += pending
                ready.append(record)
                pending.removeAll()
            }
        }
        let record = ready[readyIndex]
        readyIndex += 1
        validEnd = record.end
        return record
    }

    /// At the end of the file: decides what the tail is, and what becomes of a batch
    /// the end cut.
    private mutating func finish() {
        finished = true
        let tailStart = pending.first?.offset ?? validEnd
        if !pending.isEmpty && vouched.contains(pending[0].offset) {
            // An acknowledged batch whose last record is gone: its records stand.
            ready += pending
            let end = pending.last!.end
            pending.removeAll()
            if end < fileSize { damage.append(DamagedRange(path: file.path, offset: end, length: fileSize - end)) }
            return
        }
        pending.removeAll()
        guard tailStart < fileSize else { return }
        if vouched.contains(where: { $0 >= tailStart }) {
            damage.append(DamagedRange(path: file.path, offset: tailStart, length: fileSize - tailStart))
        } else {
            tailIsTorn = true
        }
    }

    private mutating func nextFrame() throws -> ScannedRecord? {
        guard position < fileSize else { return nil }
        if let record = try frame(at: position) {
            position = record.end
            return record
        }
        var candidate = position + 1
        while let found = try findSync(from: candidate) {
            if try !isInsideAHeader(found), let record = try frame(at: found) {
                // Valid records after the damage prove the writes before it completed:
                // a batch the damage cut keeps its records before it.
                ready += pending
                pending.removeAll()
                damage.append(DamagedRange(path: file.path, offset: position, length: found - position))
                position = record.end
                return record
            }
            candidate = found + 1
        }
        return nil
    }

    /// True when `offset` is 4 to 7 bytes after another sync marker: a "frame" there
    /// would start in that frame's checksum or length, which may hold the marker's bytes.
    private mutating func isInsideAHeader(_ offset: Int64) throws -> Bool {
        let sync = FormatConstants.recordSync
        for back in Int64(4)...7 where offset - back >= 0 {
            try load(offset - back, count: 4)
            let i = Int(offset - back - windowStart)
            if i + 4 <= window.count, window[i] == sync[0], window[i + 1] == sync[1], window[i + 2] == sync[2],
               window[i + 3] == sync[3] { return true }
        }
        return false
    }

    /// The valid record starting exactly at `offset`, or nil.
    private mutating func frame(at offset: Int64) throws -> ScannedRecord? {
        let headerSize = FormatConstants.recordHeaderSize
        guard offset + Int64(headerSize) <= fileSize else { return nil }
        try load(offset, count: headerSize)
        let local = Int(offset - windowStart)
        let header = window.withUnsafeBytes { RecordFrame.header($0, at: local) }
        guard let header, offset + Int64(headerSize + header.length) <= fileSize else { return nil }
        try load(offset, count: headerSize + header.length)
        let start = Int(offset - windowStart)
        let computed = Checksum.masked(window, (start + 8)..<(start + headerSize + header.length))
        guard computed == header.checksum,
              let payload = RecordFrame.unescaped(window[(start + headerSize)..<(start + headerSize + header.length)], version: version)
        else { return nil }
        return ScannedRecord(type: header.type, flags: header.flags, offset: offset,
                             frameLength: headerSize + header.length, payload: payload)
    }

    /// The offset of the next sync marker at or after `offset`, or nil.
    private mutating func findSync(from offset: Int64) throws -> Int64? {
        var at = offset
        let sync = FormatConstants.recordSync
        while at + 4 <= fileSize {
            try load(at, count: Int(min(Int64(Self.windowSize), fileSize - at)))
            let local = Int(at - windowStart)
            let hit: Int? = window.withUnsafeBytes { raw in
                var i = local
                while i + 4 <= raw.count {
                    if raw[i] == sync[0] && raw[i + 1] == sync[1] && raw[i + 2] == sync[2] && raw[i + 3] == sync[3] {
                        return i
                    }
                    i += 1
                }
                return nil
            }
            if let hit { return windowStart + Int64(hit) }
            // Keep the last 3 bytes: a marker may straddle the window's end.
            let next = windowStart + Int64(window.count) - 3
            if next <= at { return nil }
            at = next
        }
        return nil
    }

    /// Makes `window` hold bytes offset..<offset+count (fewer only at end of file).
    private mutating func load(_ offset: Int64, count: Int) throws {
        if offset >= windowStart, offset + Int64(count) <= windowStart + Int64(window.count) { return }
        let want = Int(min(Int64(max(count, Self.windowSize)), fileSize - offset))
        window = try file.read(at: offset, count: want)
        windowStart = offset
    }
}
