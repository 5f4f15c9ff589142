/// What a store's files say when it opens: the in-memory index, from the index file
/// where it can be trusted and from the segments past it (format-spec.md, "Index
/// records"; docs/recovery-and-compaction.md, "Opening"). Reads only; the writer acts
/// on the result (moves torn tails aside, appends caught-up records, rewrites a bad index).
struct IndexRecovery {
    /// One segment scanned from some offset to its end.
    struct SegmentScan {
        var events: [LogEvent] = []
        /// The metadata of each event as its record stored it (a RoutePut's; nil for the
        /// others), beside ``events``.
        var storedMetadata: [ArraySlice<UInt8>?] = []
        /// End of the last whole record: where a writer may append.
        var validEnd: Int64
        var damage: [DamagedRange] = []
        var tornTail: DamagedRange?
        /// Where the last whole record scanned starts (nil when none was).
        var lastRecord: Int64?
    }

    var index = RouteIndex()
    /// The index file and where its valid records end, when it was used.
    var indexFile: DurableFile?
    var indexVersion = FormatConstants.version
    var indexEnd = Int64(FormatConstants.fileHeaderSize)
    /// Records of the index file outside IndexPutRuns, when it was used.
    var indexSingleRecords = 0
    var indexTornTail: DamagedRange?
    /// Events of segment records the index lacked, in log order.
    var caughtUp: [LogEvent] = []
    /// Each caught-up event's metadata as stored, where its record holds one whole.
    private var caughtUpMetadata: [ArraySlice<UInt8>?] = []
    /// True when the index file could not be used and the state comes from the
    /// segments alone.
    var indexUnusable = false
    /// True when the index file itself is missing or damaged (not merely behind or
    /// ahead of the segments).
    var indexFileDamaged = false
    /// Valid end of every segment.
    var segmentEnds: [UInt32: Int64] = [:]
    /// Where the last record the index or a scan located in each segment starts.
    private(set) var lastRecordStarts: [UInt32: Int64] = [:]
    /// Bytes that are no valid record, each with its file and offset: damage found by
    /// the scans, and records the index vouches for that do not read back.
    var damage: [DamagedRange] = []
    /// Torn tails of segments (not damage: appends a crash cut short).
    private(set) var segmentTails: [DamagedRange] = []
    var tornTails: [DamagedRange] { segmentTails + (indexTornTail.map { [$0] } ?? []) }

    /// Recovers the state of `segments` (each `end` the file's size) with the index
    /// file `indexFile` (nil when missing or unreadable).
    /// - Parameter copiedFromAnotherStore: the index is this store's copy of one another
    ///   store's writer shared (LinkedFiles): its entries hold for this store up to the
    ///   first that names a segment this store does not list (that writer rolled after
    ///   the stores were linked), and the rest is that writer's.
    init(segments measured: SegmentSet, indexFile: DurableFile?, indexNumber: UInt32, copiedFromAnotherStore: Bool = false) throws {
        let header = Int64(FormatConstants.fileHeaderSize)
        var segments = measured
        var loaded: LoadedIndex?
        if let indexFile {
            switch Self.loadIndex(indexFile, number: indexNumber, segments: segments, foreignTail: copiedFromAnotherStore) {
            case .loaded(let index):
                loaded = index
                try Self.measureAgain(&segments, reachedBy: index)
            case .damaged: indexFileDamaged = true
            case .aheadOfSegments: break
            }
        } else {
            indexFileDamaged = true
        }
        if let indexFile, let indexed = loaded, let scans = try Self.catchUpScans(indexed, segments: segments) {
            lastRecordStarts = indexed.lastLocation.mapValues(\.offset)
            for (segment, scan) in zip(segments.segments, scans) { adopt(scan, of: segment, in: segments) }
            damage += Self.vouchedDamage(indexed, segments: segments)
            index = indexed.index
            self.indexFile = indexFile
            indexVersion = indexed.version
            indexEnd = indexed.end
            indexSingleRecords = indexed.singleRecords
            indexTornTail = indexed.tornTail
        } else {
            indexUnusable = true
            for segment in segments.segments { adopt(try Self.scan(segment, from: header), of: segment, in: segments) }
        }
        // A put keeps its metadata's stored bytes: decoded and encoded again, a name
        // of invalid UTF-8 would grow past its limit in the index written from this one.
        for (event, metadata) in zip(caughtUp, caughtUpMetadata) { index.apply(event, encodedMetadata: metadata) }
    }

    /// Takes again the size of each segment the index names records in past the end
    /// measured before it was read. Beside a writer (a read-only handle) the segment grew
    /// in between: the writer appended records, then their index records. Taken as they
    /// were measured, the ends would leave those records out of what the handle read,
    /// though its index holds them, and its first catch-up would read them as new changes
    /// (heard again, made before the handle opened). A writer's own segments do not
    /// grow: the same size comes back, and a record past it is damage (``vouchedDamage``).
    private static func measureAgain(_ segments: inout SegmentSet, reachedBy indexed: LoadedIndex) throws {
        for segment in segments.segments where !segment.isUnreadable {
            guard let covered = indexed.index.coveredEnd[segment.number], covered > segment.end else { continue }
            segments.setEnd(max(segment.end, try segment.file.size()), of: segment.number)
        }
    }

    /// The scans of every segment past what `indexed` covers, or nil when the index is
    /// no prefix of the log: a segment before the last one the index holds records of
    /// has records it lacks that change the state. Records there that replay to nothing
    /// (``RouteIndex/replaysToNothing(_:position:)``: what a rewritten index leaves out,
    /// such as a superseded edit that ended its segment) are skipped, not caught up.
    private static func catchUpScans(_ indexed: LoadedIndex, segments: SegmentSet) throws -> [SegmentScan]? {
        let header = Int64(FormatConstants.fileHeaderSize)
        let covered = segments.segments.map { indexed.index.coveredEnd[$0.number] ?? header }
        let lastHeld = covered.lastIndex { $0 > header }
        let positions = Dictionary(uniqueKeysWithValues: segments.segments.enumerated().map { ($1.number, $0) })
        var scans: [SegmentScan] = []
        for (position, segment) in segments.segments.enumerated() {
            if segment.isUnreadable {
                // A sealed segment a reader may not open: only when the index holds
                // every record of it is nothing missing from what the reader lists.
                guard covered[position] == segment.end else { _ = try segment.file; return nil }
                scans.append(SegmentScan(validEnd: segment.end))
                continue
            }
            var scan = try scan(segment, from: min(covered[position], segment.end))
            scan.validEnd = max(scan.validEnd, min(covered[position], segment.end))
            if let lastHeld, position < lastHeld, !scan.events.isEmpty {
                guard scan.events.allSatisfy({ indexed.index.replaysToNothing($0, position: { positions[$0] }) })
                else { return nil }
                scan.events = []
                scan.storedMetadata = []
            }
            scans.append(scan)
        }
        return scans
    }

    /// The last record the index locates in each segment must be there, whole: one that
    /// is not (cut off, or its bytes changed) is damage the index vouches for, never a
    /// torn tail (format-spec.md, "Reading a log").
    private static func vouchedDamage(_ indexed: LoadedIndex, segments: SegmentSet) -> [DamagedRange] {
        var damage: [DamagedRange] = []
        for (number, last) in indexed.lastLocation.sorted(by: { $0.key < $1.key }) where !segments.holdsRecord(at: last) {
            // (A segment the reader may not open is not damaged: reading says why.)
            guard let segment = segments.segment(number), !segment.isUnreadable else { continue }
            damage.append(DamagedRange(path: segment.path, offset: last.offset, length: Int64(last.length)))
        }
        return damage
    }

    /// Takes a segment's scan. Only the last segment, the one appends go to, can end in
    /// a torn tail: a writer syncs a segment before it starts the next, and cuts a torn
    /// tail before it appends. Bytes after the last whole record of an older segment are
    /// damage (a damaged last record, say), reported and kept, never cut.
    private mutating func adopt(_ scan: SegmentScan, of segment: LogSegment, in segments: SegmentSet) {
        caughtUp += scan.events
        caughtUpMetadata += scan.storedMetadata
        segmentEnds[segment.number] = scan.validEnd
        if let last = scan.lastRecord { lastRecordStarts[segment.number] = last }
        damage += scan.damage
        guard let tail = scan.tornTail else { return }
        if segment.number == segments.segments.last?.number {
            segmentTails.append(tail)
        } else {
            damage.append(tail)
        }
    }

    /// Reads the records of `segment` from `start` to its end, noting damage and the torn
    /// tail; records at `vouched` offsets (located by the index) are never a torn tail.
    static func scan(_ segment: LogSegment, from start: Int64, vouched: Set<Int64> = []) throws -> SegmentScan {
        var scanner = LogScanner(file: try segment.file, from: start, fileSize: segment.end, version: segment.version, vouched: vouched)
        var scan = SegmentScan(validEnd: start)
        while let record = try scanner.next() {
            scan.lastRecord = record.offset
            do {
                if let (event, metadata) = try LogEvent.fromSegmentKeepingMetadata(record, segment: segment.number) {
                    scan.events.append(event)
                    scan.storedMetadata.append(metadata)
                }
            } catch is ByteReader.Malformed {
                scan.damage.append(DamagedRange(path: segment.path, offset: record.offset, length: Int64(record.frameLength)))
            }
        }
        scan.damage += scanner.damage
        scan.validEnd = scanner.validEnd
        if scanner.tailIsTorn {
            scan.tornTail = DamagedRange(path: segment.path, offset: scanner.validEnd, length: scanner.tailLength)
        }
        return scan
    }

    private struct LoadedIndex {
        var index: RouteIndex
        var lastLocation: [UInt32: RecordLocation]
        var version: UInt16
        var end: Int64
        var singleRecords = 0
        var tornTail: DamagedRange?
    }

    private enum IndexLoad {
        case loaded(LoadedIndex)
        /// A bad header, damage, or a record that makes no sense.
        case damaged
        /// A segment not in the manifest, or a location before the previous one in the
        /// same segment.
        case aheadOfSegments
    }

    /// The state the index file describes, when it can be trusted. A location past its
    /// segment's end is kept: the record it vouches for is damage (see ``vouchedDamage``).
    /// The events of the records appended to `segments` since a moment when the active
    /// segment was `start.segment` and ended at `start.offset`: in that segment after
    /// that end, and in every segment rolled since (what a compaction or a background
    /// index rewrite must add after the snapshot it wrote from).
    static func events(in segments: SegmentSet, since start: (segment: UInt32, offset: Int64)) throws -> [LogEvent] {
        var events: [LogEvent] = []
        var reached = false
        for segment in segments.segments {
            if segment.number == start.segment { reached = true }
            guard reached else { continue }
            let from = segment.number == start.segment ? start.offset : Int64(FormatConstants.fileHeaderSize)
            events += try scan(segment, from: from).events
        }
        return events
    }

    /// Index files of this size or more are read on a second thread (``ScanAhead``):
    /// for smaller ones a thread costs more than it saves.
    static let scanAheadFileBytes: Int64 = 1 << 20

    private static func loadIndex(_ file: DurableFile, number: UInt32, segments: SegmentSet, foreignTail: Bool = false) -> IndexLoad {
        guard let size = try? file.size(),
              let headerBytes = try? file.read(at: 0, count: FormatConstants.fileHeaderSize),
              let header = try? FileHeader.decode(headerBytes, path: file.path, expecting: .index),
              header.fileNumber == number
        else { return .damaged }
        var scanner = LogScanner(file: file, from: Int64(FormatConstants.fileHeaderSize), fileSize: size, version: header.version)
        var result = LoadedIndex(index: RouteIndex(), lastLocation: [:], version: header.version, end: 0)
        result.index.reserve(indexBytes: size)
        var order = LocationOrder(segments: segments)
        var lookupSized = false
        // A large index is read and checked on a second thread while its records are
        // applied; that thread checks every entry of each run and makes them rows too,
        // unless this thread is waiting for the run (then it reads the run itself).
        let ahead = size >= Self.scanAheadFileBytes ? ScanAhead(scanner) { record in
            record.type == FormatConstants.RecordType.indexPutRun.rawValue ? PackedPutRun(record.payload) : nil
        } : nil
        defer { ahead?.stop() }
        var packedRun: PackedPutRun?
        var current: ScannedRecord?
        func nextRecord() throws -> ScannedRecord? {
            guard let ahead else { current = try scanner.next(); return current }
            let next = try ahead.next()
            packedRun = next?.note
            current = next?.record
            return current
        }
        do {
            defer { result.lastLocation = order.finish() }
            while let record = try nextRecord() {
                // Nearly every record is a put or a run of puts: read without decoding
                // their metadata.
                if record.type != FormatConstants.RecordType.indexPutRun.rawValue { result.singleRecords += 1 }
                switch FormatConstants.RecordType(rawValue: record.type) {
                case .indexPut:
                    let put = try LogEvent.indexedPut(payload: record.payload)
                    try order.admit(put.location)
                    result.index.applyPut(put)
                case .indexPutRun:
                    if !lookupSized, let count = IndexPutRun.entryCount(record.payload), count > 0 {
                        // A rewritten index is nearly all runs: the first one tells
                        // how many routes the file holds, closely enough to size for.
                        result.index.reserveLookup(indexBytes: size, bytesPerRoute: Double(record.frameLength) / Double(count))
                        lookupSized = true
                    }
                    if let packedRun {
                        try result.index.applyPackedRun(packedRun, order: &order)
                    } else {
                        try result.index.applyPutRun(record.payload, order: &order)
                    }
                default:
                    let (event, metadata) = try LogEvent.fromIndexKeepingMetadata(type: record.type, payload: record.payload)
                    try order.admit(event.location)
                    result.index.apply(event, encodedMetadata: metadata)
                }
            }
        } catch is LocationOrder.Ahead {
            // A copy of another store's index ends, for this store, where that store's
            // writer went on past what the two stores share. Each record is checked
            // before it is applied, but a run only entry by entry: one cut there leaves
            // the whole index unused, as for any index ahead of its segments.
            guard foreignTail, let current, current.type != FormatConstants.RecordType.indexPutRun.rawValue else {
                return .aheadOfSegments
            }
            result.end = current.offset
            return .loaded(result)
        } catch {
            return .damaged
        }
        if let ahead {
            guard let ended = ahead.finish() else { return .damaged }
            scanner = ended
            FreedMemory.giveBack()  // the windows read on the second thread
        }
        guard scanner.damage.isEmpty else { return .damaged }
        result.end = scanner.validEnd
        if scanner.tailIsTorn {
            result.tornTail = DamagedRange(path: file.path, offset: scanner.validEnd, length: scanner.tailLength)
        }
        return .loaded(result)
    }
}

/// The order an index's records must keep (format-spec.md, "Index records"): each
/// location in a segment the manifest names, at or after the end of the previous one in
/// the same segment. Also the last location seen in each segment.
struct LocationOrder {
    /// A location out of order: the index is ahead of the segments.
    struct Ahead: Error {}

    private let segments: SegmentSet
    private var last: [UInt32: RecordLocation] = [:]
    /// The latest location, of the segment the records are in now: records of one
    /// segment come in runs, so its last location is looked up once a run, not once a record.
    private var run: RecordLocation?

    init(segments: SegmentSet) {
        self.segments = segments
    }

    /// Takes `location` as the next record's.
    /// - Throws: ``Ahead`` for one out of order.
    mutating func admit(_ location: RecordLocation) throws {
        let previousEnd: Int64
        if let run, run.segment == location.segment {
            previousEnd = run.end
        } else {
            if let run { last[run.segment] = run }
            guard segments.contains(location.segment) else { throw Ahead() }
            previousEnd = last[location.segment]?.end ?? Int64(FormatConstants.fileHeaderSize)
        }
        guard location.offset >= previousEnd else { throw Ahead() }
        run = location
    }

    /// The last location admitted in each segment.
    mutating func finish() -> [UInt32: RecordLocation] {
        if let run { last[run.segment] = run }
        run = nil
        return last
    }
}
