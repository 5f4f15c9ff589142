/// The new segments one compaction writes, rolled at the store's size limit. Their
/// numbers come from the manifest writer, which never hands a number out twice, and
/// only the files made here are ever removed by ``abandon()``.
struct CompactionOutput {
    let files: LogFiles
    let sizeLimit: Int
    /// Hands out a fresh file number (briefly under the writer lock).
    let reserveNumber: () throws -> UInt32
    private(set) var segments: [LogSegment] = []

    init(files: LogFiles, sizeLimit: Int, reserveNumber: @escaping () throws -> UInt32) {
        self.files = files
        self.sizeLimit = sizeLimit
        self.reserveNumber = reserveNumber
    }

    /// Starts a new segment: the next record goes into a file of its own (each run of
    /// rewritten segments gets its own new segments, at the run's place).
    mutating func startSegment() throws {
        let number = try reserveNumber()
        let file = try files.create(.segment, number: number)
        segments.append(LogSegment(number: number, file: file, end: Int64(FormatConstants.fileHeaderSize),
                                   cache: files.segmentFiles, writable: true))
    }

    /// Appends one frame; rolls to a new segment when the current one is full.
    mutating func append(_ frame: [UInt8]) throws -> RecordLocation {
        if segments.isEmpty || (!segments[segments.count - 1].isEmpty
                                && segments[segments.count - 1].end + Int64(frame.count) > Int64(sizeLimit)) {
            try startSegment()
        }
        let i = segments.count - 1
        let offset = segments[i].end
        try segments[i].file.write(frame, at: offset)
        segments[i].end = offset + Int64(frame.count)
        return RecordLocation(segment: segments[i].number, offset: offset, length: frame.count)
    }

    /// Makes every new segment durable.
    func sync() throws {
        for segment in segments { try segment.file.syncData() }
    }

    /// Removes what was written, after a failure before the switch. Only these files,
    /// made by this compaction under numbers nobody else was given.
    func abandon() {
        for segment in segments { try? files.fileSystem.unlink(segment.path) }
        if !segments.isEmpty { try? files.syncDirectory() }
    }
}
