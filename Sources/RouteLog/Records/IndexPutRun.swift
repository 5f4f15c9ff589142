/// An IndexPutRun (format-spec.md, "Index records"): IndexPuts in a row stored as one
/// record, fixed-width entries first and their metadata after them, so that opening an
/// index of many routes checks one checksum and walks one fixed-width table for
/// thousands of routes.
enum IndexPutRun {
    /// One route of a run: what an IndexPut holds.
    struct Entry {
        var id: RouteID
        var location: RecordLocation
        var shape: RouteShape
        var metadata: StoredMetadata
    }

    /// An entry's fixed-width part: id, location, shape, metadata length.
    static let entrySize = FormatConstants.indexPutRunEntrySize
    /// count u32, metadataLength u32.
    static let headSize = 8
    /// The most payload bytes a writer puts in one run. Escaping adds at most one byte
    /// for every three (`AB 52 4C` cannot overlap itself), so a run of this size still
    /// fits the 64 MiB a record may hold once escaped; a full run of puts whose metadata
    /// is near the 64 KiB extension limit would not.
    static let maxPayloadBytes = FormatConstants.maxPayloadLength / 4 * 3

    /// The payload of a run of `entries` (at least one).
    static func payload(_ entries: [Entry]) -> [UInt8] {
        precondition(!entries.isEmpty, "a run of at least one put")
        var builder = Builder()
        for entry in entries {
            var metadata = ByteWriter(capacity: 96)
            entry.metadata.write(to: &metadata)
            builder.add(id: entry.id, location: entry.location, shape: entry.shape, encodedMetadata: metadata.bytes)
        }
        return builder.payload()
    }

    /// A run's payload made one put at a time, each metadata given encoded, so that a
    /// writer knows the payload's size before it adds the next put.
    struct Builder {
        private var table = ByteWriter(capacity: 0)
        private var metadata = ByteWriter(capacity: 0)
        /// Puts added.
        private(set) var count = 0

        /// Bytes of the payload so far.
        var payloadSize: Int { headSize + table.count + metadata.count }

        mutating func add(id: RouteID, location: RecordLocation, shape: RouteShape, encodedMetadata: [UInt8]) {
            table.u64(id.rawValue)
            location.write(to: &table)
            shape.write(to: &table)
            table.u32(UInt32(encodedMetadata.count))
            metadata.append(contentsOf: encodedMetadata)
            count += 1
        }

        /// The payload of the puts added (at least one).
        func payload() -> [UInt8] {
            precondition(count > 0, "a run of at least one put")
            var w = ByteWriter(capacity: payloadSize)
            w.u32(UInt32(count))
            w.u32(UInt32(metadata.count))
            w.append(contentsOf: table.bytes)
            w.append(contentsOf: metadata.bytes)
            return w.bytes
        }
    }

    /// The entry count a run's payload states (unchecked), or nil when it is too short.
    static func entryCount(_ payload: ArraySlice<UInt8>) -> Int? {
        payload.count >= headSize ? payload.withUnsafeBytes { Int($0.u32(at: 0)) } : nil
    }

    /// One entry of a run, read in place: its metadata's bytes lie in the record's
    /// payload, valid only during the call that hands the entry over.
    struct Put {
        var id: RouteID
        var location: RecordLocation
        var shape: RouteShape
        var shiftMs: Int64
        var metadata: UnsafeRawBufferPointer
    }

    /// Reads a run's payload in place: `body` is given a reader of its entries, each the
    /// IndexPut it stands for, in order: id, location and shape checked as an IndexPut's,
    /// metadata checked for its layout only (see ``MetadataLayout``), or against every
    /// rule when `everyRule` (what `verify` does).
    /// - Throws: ByteReader.Malformed for a payload that is no run (its offset from
    ///   the payload's start); `body`'s errors.
    /// (A large index's runs are read on the thread that reads it ahead, and made into
    /// rows there: ``PackedPutRun``.)
    static func withPuts<Result>(in payload: ArraySlice<UInt8>, everyRule: Bool = false,
                                 _ body: (inout Reader) throws -> Result) throws -> Result {
        try payload.withUnsafeBytes { raw in
            var reader = try Reader(raw, payload: everyRule ? payload : nil)
            return try body(&reader)
        }
    }

    /// Calls `body` with each put of a run, as ``withPuts(in:everyRule:_:)`` reads them.
    static func forEachPut(in payload: ArraySlice<UInt8>, everyRule: Bool = false, _ body: (Put) throws -> Void) throws {
        try withPuts(in: payload, everyRule: everyRule) { puts in
            while try puts.next() { try body(puts.put) }
        }
    }

    /// The entries of one run's payload, read in place, one at a time.
    struct Reader {
        private let raw: UnsafeRawBufferPointer
        /// The payload, when every rule of each metadata is checked.
        private let payload: ArraySlice<UInt8>?
        private var entry = IndexPutRun.headSize
        private let entriesEnd: Int
        private var metadataStart: Int
        /// The entry ``next()`` read last.
        private(set) var put = Put(id: RouteID(1), location: RecordLocation(segment: 0, offset: 0, length: 0),
                                   shape: .placeholder, shiftMs: 0, metadata: UnsafeRawBufferPointer(start: nil, count: 0))

        fileprivate init(_ raw: UnsafeRawBufferPointer, payload: ArraySlice<UInt8>?) throws {
            guard raw.count >= headSize else { throw ByteReader.Malformed(reason: "put run of \(raw.count) bytes", offset: 0) }
            let count = Int(raw.u32(at: 0)), metadataLength = Int(raw.u32(at: 4))
            guard count >= 1, count <= (raw.count - headSize) / entrySize,
                  metadataLength == raw.count - headSize - entrySize * count
            else {
                throw ByteReader.Malformed(reason: "put run of \(count) entries and \(metadataLength) metadata bytes in \(raw.count) bytes", offset: 0)
            }
            self.raw = raw
            self.payload = payload
            entriesEnd = headSize + entrySize * count
            metadataStart = entriesEnd
        }

        /// The id of the entry `ahead` entries after the one ``next()`` reads next, as
        /// stored (unchecked), or nil past the last: for a loop that prefetches.
        func id(ahead: Int) -> UInt64? {
            let at = entry + ahead * entrySize
            return at < entriesEnd ? raw.u64(at: at) : nil
        }

        /// Reads the next entry into ``put``; false after the last (once its metadata is
        /// found to fill the payload exactly). Returning the entry itself would copy it
        /// twice more a route, which costs as much as reading it.
        mutating func next() throws -> Bool {
            func fail(_ reason: String, at offset: Int) -> ByteReader.Malformed { ByteReader.Malformed(reason: reason, offset: offset) }
            guard entry < entriesEnd else {
                guard metadataStart == raw.count else { throw fail("put run has metadata bytes no entry holds", at: metadataStart) }
                return false
            }
            // The entries are a fixed-width table whose size was checked: no field read
            // here can run past it.
            let rawID = raw.u64(at: entry)
            guard let id = RouteRecordID.checked(rawID) else { throw fail(RouteRecordID.problem(rawID), at: entry + 8) }
            put.id = id
            put.location = try RecordLocation(raw, at: entry + 8)
            put.shape = try RouteShape(raw, at: entry + 8 + FormatConstants.locationSize)
            let length = Int(raw.u32(at: entry + entrySize - 4))
            let start = metadataStart
            guard length <= raw.count - start else { throw fail("put run's metadata runs past its end", at: entry + entrySize) }
            let bytes = UnsafeRawBufferPointer(rebasing: raw[start..<(start + length)])
            let layout: MetadataLayout
            do {
                layout = try MetadataLayout(bytes, limits: true)
                if let payload {
                    var r = ByteReader(payload[(payload.startIndex + start)..<(payload.startIndex + start + length)])
                    _ = try MetadataView(from: &r)
                }
            } catch let error as ByteReader.Malformed {
                throw fail(error.reason, at: start + error.offset)
            }
            guard layout.length == length else {
                throw fail("put run's metadata of route \(rawID) has trailing bytes", at: start + layout.length)
            }
            entry += entrySize
            metadataStart += length
            put.shiftMs = layout.shiftMs
            put.metadata = bytes
            return true
        }
    }
}
