/// A record read back from a log file.
struct ScannedRecord: Sendable {
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

/// Walks the records of a segment, index or manifest (format-spec.md, "Reading a
/// log"). Never trusts a length before checking it against the file; after damage it
/// searches forward for the next whole valid frame. What follows the last valid record
/// is the tail: a torn tail, unless a vouched record (one the index locates) lies in it,
/// which makes it damage. A batch cut by the end of the file is part of the tail unless
/// its records are vouched for; a batch cut by damage keeps its records before it.
struct LogScanner: Sendable {
    private let file: DurableFile
    private let fileSize: Int64
    private let version: UInt16
    /// Offsets of records the index locates in this file.
    private let vouched: Set<Int64>
    /// The bytes held: each enters once (format-spec.md, "Bounds on hostile files").
    private var window: ScanWindow
    /// Checksums of overlapping frames in a version 1 file.
    private var prefixChecksums = PrefixChecksums()
    /// No sync marker starts in `lo..<hi`, and one starts at `hi` when `hiIsMarker`: the
    /// searches of one candidate's payload and of the next candidate share their work.
    private var searched: (lo: Int64, hi: Int64, hiIsMarker: Bool) = (0, 0, false)
    /// Bytes checksummed directly (version 2 frames).
    private var directlyChecksummed = 0
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

    static let windowSize = ScanWindow.readSize

    /// What the scan cost so far, to check its bounds.
    struct Work: Equatable {
        var bytesRead = 0
        var bytesChecksummed = 0
        /// Bytes looked at for a sync marker.
        var bytesSearched = 0
        /// Multiplications by a power of x (version 1 frames that overlap).
        var shifts = 0
    }

    var work: Work {
        Work(bytesRead: window.bytesRead, bytesChecksummed: directlyChecksummed + prefixChecksums.bytesChecksummed,
             bytesSearched: window.bytesSearched, shifts: prefixChecksums.shifts)
    }

    /// - Parameters:
    ///   - version: the file header's format version (how payloads are stored).
    ///   - vouched: offsets of records the index locates in this file.
    init(file: DurableFile, from start: Int64, fileSize: Int64, version: UInt16 = FormatConstants.version,
         vouched: Set<Int64> = []) {
        self.file = file
        self.fileSize = fileSize
        // 7 bytes before the start too: a marker there puts a candidate in its header.
        self.window = ScanWindow(file: file, fileSize: fileSize, start: max(0, start - 7))
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
        while let found = try nextMarker(from: candidate, below: fileSize, keeping: nil) {
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
        let from = max(0, offset - 7)
        guard offset - 4 >= from else { return false }
        try window.hold(from: from, to: offset)
        return (from...(offset - 4)).contains { window.isMarker(at: $0) }
    }

    /// The valid record starting exactly at `offset`, or nil. The window goes on holding
    /// the 7 bytes before it, for ``isInsideAHeader(_:)`` of the candidates after it.
    ///
    /// Linear however the frames overlap: a version 2 payload holds no sync marker, so a
    /// frame whose claimed payload holds one is rejected at that marker, before its
    /// checksum (the escaping check would reject it after), and the frames that are
    /// checksummed overlap by at most a header; a version 1 frame is checksummed from
    /// prefix sums (``PrefixChecksums``).
    private mutating func frame(at offset: Int64) throws -> ScannedRecord? {
        let headerSize = Int64(FormatConstants.recordHeaderSize)
        guard offset + headerSize <= fileSize else { return nil }
        let keep = max(min(window.start, offset), offset - 7)
        try window.hold(from: keep, to: offset + headerSize)
        guard let header = window.header(at: offset) else { return nil }
        let end = offset + headerSize + Int64(header.length)
        guard end <= fileSize else { return nil }
        // Read whole: the scan reads every byte up to the end of the file anyway.
        try window.hold(from: keep, to: end)
        let escaped = version >= 2
        let payloadStart = offset + headerSize
        // A version 2 payload is searched once, for its escapes; an `AB 52 4C` that is
        // no escape (a sync marker among them) rejects the frame there.
        var escapes: [Int] = []
        if escaped {
            let found = window.escapes(in: payloadStart..<end)
            if let unescaped = found.unescaped {
                // No marker starts before it; one may start there. What the search
                // found is remembered for the scan's next search, as nextMarker does.
                let isMarker = unescaped + 4 <= window.end && window.isMarker(at: unescaped)
                searched = (payloadStart, unescaped, isMarker)
                return nil
            }
            // No marker starts in the payload but in its last 3 bytes (which would be an
            // escape there).
            searched = (payloadStart, max(payloadStart, end - 2), false)
            escapes = found.hits
        }
        let checked = (offset + 8)..<end
        let crc: UInt32
        if escaped {
            crc = window.bytes.withUnsafeBytes { Checksum.extend(0, $0, from: window.index(checked.lowerBound), count: checked.count) }
            directlyChecksummed += checked.count
        } else {
            crc = prefixChecksums.crc(of: checked, in: window)
        }
        let stored = window.bytes[window.index(payloadStart)..<window.index(end)]
        guard Checksum.mask(crc) == header.checksum,
              let payload = escaped ? PayloadEscaping.unescape(stored, prefixes: escapes) : stored
        else { return nil }
        return ScannedRecord(type: header.type, flags: header.flags, offset: offset,
                             frameLength: Int(end - offset), payload: payload)
    }

    /// The first offset in `from..<limit` where a whole sync marker starts, or nil.
    /// `keep` is the first byte the window must go on holding; nil lets go of all but the
    /// 7 bytes before the search. What a search found is remembered (``searched``), so
    /// the search of a payload and the next search of the scan look at its bytes once.
    private mutating func nextMarker(from: Int64, below limit: Int64, keeping keep: Int64?) throws -> Int64? {
        let limit = min(limit, fileSize - 3)
        guard from < limit else { return nil }
        if from < searched.lo {
            let stop = min(searched.lo, limit)
            if let marker = try search(from..<stop, keeping: keep) {
                searched = (from, marker, true)
                return marker
            }
            guard stop == searched.lo else {
                searched = (from, limit, false)
                return nil
            }
            searched.lo = from
        } else if from > searched.hi {
            searched = (from, from, false)
        }
        if searched.hiIsMarker { return searched.hi < limit ? searched.hi : nil }
        guard searched.hi < limit else { return nil }
        if let marker = try search(searched.hi..<limit, keeping: keep) {
            searched = (searched.lo, marker, true)
            return marker
        }
        searched.hi = limit
        return nil
    }

    /// The first offset in `range` where a sync marker starts; the marker's other 3
    /// bytes are in the file.
    private mutating func search(_ range: Range<Int64>, keeping keep: Int64?) throws -> Int64? {
        var at = range.lowerBound
        while at < range.upperBound {
            if window.start > at || window.end < at + 4 {
                try window.hold(from: keep ?? max(min(window.start, at), at - 7), to: at + 4)
            }
            let stop = min(range.upperBound, window.end - 3)
            if let marker = window.firstMarker(in: at..<stop) { return marker }
            at = stop
        }
        return nil
    }
}
