/// The last whole record a read-only handle read in the store's last segment: where it
/// starts and its 16-byte frame header, whose checksum covers the whole record.
///
/// A handle that follows the writer reads on from where it stopped while that record is
/// still there. It may not be: a writer whose sync failed cuts the records it could not
/// make durable (refused saves the handle may have read), and a writer opened later
/// appends in their place, possibly past where the handle stopped before it looks
/// again. Then the file's size says nothing, and the header read again does: the handle
/// reads the store again instead of listing a refused save.
struct FollowedTail: Sendable, Equatable {
    let segment: UInt32
    /// Where the last record starts, or nil when the handle read no record there.
    let lastRecord: Int64?
    let header: [UInt8]

    /// The tail of `segment` up to its `end`, found by reading on from `start` (a
    /// record's start: the last one the index or a scan located there, or nil for the
    /// segment's first record).
    static func take(of segment: LogSegment, from start: Int64?) throws -> FollowedTail {
        let file = try segment.file
        // Nearly always `start` is the last record (the index's last, or a scan's): its
        // header alone, instead of its checksum again (a long route's record is megabytes).
        if let start, start >= Int64(FormatConstants.fileHeaderSize), start < segment.end {
            let header = try file.read(at: start, count: min(FormatConstants.recordHeaderSize, Int(segment.end - start)))
            if let frame = header.withUnsafeBytes({ RecordFrame.header($0, at: 0) }),
               start + Int64(header.count + frame.length) == segment.end {
                return FollowedTail(segment: segment.number, lastRecord: start, header: header)
            }
        }
        let first = Int64(FormatConstants.fileHeaderSize)
        var scanner = LogScanner(file: file, from: min(max(start ?? first, first), segment.end),
                                 fileSize: segment.end, version: segment.version)
        var last: Int64?
        while let record = try scanner.next() { last = record.offset }
        guard let last else { return FollowedTail(segment: segment.number, lastRecord: nil, header: []) }
        return FollowedTail(segment: segment.number, lastRecord: last,
                            header: try file.read(at: last, count: FormatConstants.recordHeaderSize))
    }

    /// Whether `segment`'s file still holds the same record where this one was read
    /// (true when no record was read: then only its size can tell a cut).
    func isStillThere(in segment: LogSegment) throws -> Bool {
        guard segment.number == self.segment else { return false }
        guard let lastRecord else { return true }
        let file = try segment.file
        guard try file.size() >= lastRecord + Int64(header.count) else { return false }
        return try file.read(at: lastRecord, count: header.count) == header
    }
}
