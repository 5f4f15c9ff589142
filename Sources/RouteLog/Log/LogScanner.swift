/// A record read back from a log file.
struct ScannedRecord {
    let type: UInt8
    let flags: UInt8
    /// Offset of the frame in the file.
    let offset: Int64
    /// Frame length: header plus payload.
    let frameLength: Int
    /// The payload, sharing the scanner's read buffer.
    let payload: ArraySlice<UInt8>

    var end: Int64 { offset + Int64(frameLength) }
}

/// Bytes a scan skipped because no valid record was there, with valid records after.
struct DamagedRange: Equatable, Sendable {
    let path: String
    let offset: Int64
    let length: Int64
}

/// Walks the records of a segment, index or manifest (format-spec.md, "Reading a log").
/// Never trusts a length before checking it against the file; after damage it searches
/// forward for the next whole valid record; bytes after the last valid record are a
/// torn tail, not damage. Records of an unfinished batch at the end belong to the tail.
struct LogScanner {
    private let file: DurableFile
    private let fileSize: Int64
    private var window: [UInt8] = []
    private var windowStart: Int64 = 0
    private var position: Int64
    private var pending: [ScannedRecord] = []
    private var ready: [ScannedRecord] = []

    /// End of the last record handed out, or of the header: where a writer may truncate.
    private(set) var validEnd: Int64
    /// The damaged ranges met so far.
    private(set) var damage: [DamagedRange] = []

    static let windowSize = 1 << 20

    init(file: DurableFile, from start: Int64, fileSize: Int64) {
        self.file = file
        self.fileSize = fileSize
        self.position = start
        self.validEnd = start
    }

    /// Bytes from `validEnd` to the end of the file: the torn tail once `next()` returned nil.
    var tailLength: Int64 { fileSize - validEnd }

    /// The next valid, committed record, or nil at the end.
    mutating func next() throws -> ScannedRecord? {
        if ready.isEmpty && pending.isEmpty {
            // The common case: a record outside any batch.
            guard let record = try nextFrame() else { return nil }
            if record.flags & RecordFrame.batchContinues == 0 {
                validEnd = record.end
                return record
            }
            pending.append(record)
        }
        while ready.isEmpty {
            guard let record = try nextFrame() else {
                // An unfinished batch at the end is part of the torn tail.
                pending.removeAll()
                return nil
            }
            if record.flags & RecordFrame.batchContinues != 0 {
                pending.append(record)
            } else {
                ready = pending + [record]
                ready.reverse()
                pending.removeAll()
            }
        }
        let record = ready.removeLast()
        validEnd = record.end
        return record
    }

    private mutating func nextFrame() throws -> ScannedRecord? {
        guard position < fileSize else { return nil }
        if let record = try frame(at: position) {
            position = record.end
            return record
        }
        var candidate = position + 1
        while let found = try findSync(from: candidate) {
            if let record = try frame(at: found) {
                // Records of a batch cut by damage are lost with it.
                let start = pending.first?.offset ?? position
                pending.removeAll()
                damage.append(DamagedRange(path: file.path, offset: start, length: found - start))
                position = record.end
                return record
            }
            candidate = found + 1
        }
        position = fileSize
        return nil
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
        guard computed == header.checksum else { return nil }
        let payload = window[(start + headerSize)..<(start + headerSize + header.length)]
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
