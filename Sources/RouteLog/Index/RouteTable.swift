import Foundation

/// The live routes of the in-memory index, packed so that a route costs about the
/// bytes it has on disk: one fixed-width row a route in one array (its id, record
/// location, shape and time shift) and its metadata kept encoded, as stored
/// (format-spec.md, "Segment records": metadata), in one byte array shared by all rows.
/// Nothing a route holds is a heap object of its own, so opening a store allocates a
/// few large arrays instead of objects by the hundred thousand, and a copy (a snapshot
/// for verify, compaction or a reader) copies those arrays once, on first change.
///
/// An ``IndexedRoute`` is made on demand from a row, its metadata decoded then; the few
/// fields the index reads for every route (start, shape, location) are read from the
/// row without decoding. The rare parts (the latest edit's location, a finished
/// recording's records) live in a dictionary beside the rows.
struct RouteTable: Sendable {
    /// One live route, fixed width (88 bytes): its id, record location and metadata
    /// place packed in two words, then its shape and record length. The metadata is
    /// ``metadataCount`` bytes at `metadataStart` in ``metadataBytes``; its time shift is
    /// read from there (format-spec.md: the 8 bytes after the flags). A location past
    /// what the packed word holds (segment 2^24, offset 2^40: no store RouteLog writes
    /// comes near) is kept in ``Extras`` instead.
    private struct Row: Sendable {
        var id: RouteID
        /// The record's segment (top 24 bits) and offset (low 40 bits); 0 when the
        /// location is in ``Extras``.
        private var place: UInt64
        /// The metadata's start (low 42 bits) and byte count (the next 20), whether
        /// ``Extras`` hold more (bit 62) and whether they hold the location (bit 63).
        private var metadataWord: UInt64
        var shape: RouteShape
        var length: UInt32

        private static let offsetBits = 40, startBits = 42, countBits = 20
        private static let extrasBit: UInt64 = 1 << 62, farBit: UInt64 = 1 << 63

        /// True when `location` fits the packed word.
        static func fits(_ location: RecordLocation) -> Bool {
            location.segment < 1 << (64 - offsetBits) && location.offset >= 0 && location.offset < 1 << offsetBits
        }

        init(id: RouteID, location: RecordLocation, shape: RouteShape, metadataStart: Int, metadataCount: Int, hasExtras: Bool) {
            self.id = id
            self.shape = shape
            length = UInt32(location.length)
            let far = !Self.fits(location)
            place = far ? 0 : UInt64(location.segment) << Self.offsetBits | UInt64(location.offset)
            // Stored metadata is at most 64 KiB and a little more (format-spec.md), and
            // three times that once invalid UTF-8 is decoded and encoded again.
            precondition(metadataCount < 1 << Self.countBits, "metadata of \(metadataCount) bytes")
            metadataWord = UInt64(metadataCount) << Self.startBits | (hasExtras || far ? Self.extrasBit : 0) | (far ? Self.farBit : 0)
            self.metadataStart = metadataStart
        }

        /// The location, unless it is in ``Extras`` (``isFar``).
        var nearLocation: RecordLocation {
            RecordLocation(segment: UInt32(place >> Self.offsetBits), offset: Int64(place & (1 << Self.offsetBits - 1)), length: Int(length))
        }
        var isFar: Bool { metadataWord & Self.farBit != 0 }
        var hasExtras: Bool { metadataWord & Self.extrasBit != 0 }
        var metadataCount: Int { Int(metadataWord >> Self.startBits & (1 << Self.countBits - 1)) }
        var metadataStart: Int {
            get { Int(metadataWord & (1 << Self.startBits - 1)) }
            set {
                // 4 TiB of metadata: more than any process holds.
                precondition(newValue >= 0 && newValue < 1 << Self.startBits, "metadata at \(newValue)")
                metadataWord = metadataWord & ~(1 << Self.startBits - 1) | UInt64(newValue)
            }
        }
    }

    /// What few routes have: the latest edit's location and a recording's records, and
    /// a location too far for the row's packed word.
    private struct Extras: Sendable {
        var editLocation: RecordLocation?
        var recorded: IndexedRecording?
        var farLocation: RecordLocation?

        var isEmpty: Bool { editLocation == nil && recorded == nil && farLocation == nil }
    }

    /// The bytes a row takes in ``rows`` (for the tests).
    static var rowStride: Int { MemoryLayout<Row>.stride }

    private var slots = RowSlots()
    private var rows: [Row] = []
    private var metadataBytes: [UInt8] = []
    /// Bytes of ``metadataBytes`` no row refers to any more (replaced or removed).
    private var deadMetadataBytes = 0
    private var extras: [RouteID: Extras] = [:]

    /// Live routes.
    var count: Int { rows.count }
    /// Routes with an edit or a recording's records beside their row.
    var extrasCount: Int { extras.count }
    var isEmpty: Bool { rows.isEmpty }

    /// The row of route `id`, or nil.
    private func rowIndex(_ id: RouteID) -> Int? {
        rows.withUnsafeBufferPointer { r in slots.row(of: id.rawValue) { r[Int($0)].id.rawValue } }.map(Int.init)
    }

    /// Makes `row` (the next to be appended) the row of `id`, unless `id` has one (then
    /// returns false).
    private mutating func insertSlot(_ id: RouteID, row: Int) -> Bool {
        rows.withUnsafeBufferPointer { r in slots.insertIfAbsent(id.rawValue, row: Int32(row)) { r[Int($0)].id.rawValue } }
    }

    /// The location of `row`'s RoutePut (or RecordingFinish).
    private func location(_ row: Row) -> RecordLocation {
        row.isFar ? extras[row.id]!.farLocation! : row.nearLocation
    }

    /// Where route `row` starts: its first time plus the time shift its metadata holds
    /// (the 8 bytes after the flags).
    private func start(_ row: Row) -> Int64 {
        row.shape.firstMs + metadataBytes.withUnsafeBytes { $0.i64(at: row.metadataStart + 1) }
    }

    /// Makes room for `count` routes and `metadata` bytes of their metadata up front
    /// (memory reserved but never written costs no resident pages).
    mutating func reserveCapacity(_ count: Int, metadata: Int) {
        rows.reserveCapacity(count)
        metadataBytes.reserveCapacity(metadata)
    }

    /// Brings the lookup's slot for `id` into the cache, for an insert to come.
    /// Mutating though it changes nothing: called on a table held in a struct being
    /// changed, a non-mutating call would copy the table (and retain its arrays) first.
    mutating func prefetchLookup(_ id: RouteID) { slots.prefetch(id.rawValue) }

    /// Sizes the table that finds rows for `count` routes (its slots are written when
    /// made: unlike rows, they cost memory reserved or not).
    mutating func reserveLookup(_ count: Int) {
        rows.withUnsafeBufferPointer { r in slots.reserveCapacity(count) { r[Int($0)].id.rawValue } }
    }

    /// The route stored under `id`, its metadata decoded; nil when there is none.
    subscript(id: RouteID) -> IndexedRoute? {
        guard let row = rowIndex(id) else { return nil }
        return route(at: row)
    }

    /// True when a route is stored under `id` (nothing decoded).
    func contains(_ id: RouteID) -> Bool { rowIndex(id) != nil }

    /// The ids of the live routes, in no particular order.
    var ids: [RouteID] { rows.map(\.id) }

    /// Where each live route starts (its first time plus its shift, ms), its id and its
    /// row (valid until the table next changes), in no particular order: read from the
    /// rows, nothing decoded.
    var starts: [(start: Int64, id: RouteID, row: Int)] {
        rows.indices.map { (start(rows[$0]), rows[$0].id, $0) }
    }

    /// The shape of route `id`, read from its row.
    func shape(_ id: RouteID) -> RouteShape? { rowIndex(id).map { rows[$0].shape } }

    /// The shape and start (its first time plus its shift, ms) of route `id`, read from its row.
    func shapeAndStart(_ id: RouteID) -> (shape: RouteShape, startMs: Int64)? {
        rowIndex(id).map { rows[$0] }.map { ($0.shape, start($0)) }
    }

    /// The locations of route `id`'s RoutePut (or RecordingFinish) and latest edit,
    /// read from its row; nothing decoded.
    func locations(_ id: RouteID) -> (location: RecordLocation, edit: RecordLocation?)? {
        guard let index = rowIndex(id) else { return nil }
        let row = rows[index]
        return (location(row), row.hasExtras ? extras[row.id]?.editLocation : nil)
    }

    /// The location of route `id`'s RoutePut (or RecordingFinish), read from its row.
    func location(_ id: RouteID) -> RecordLocation? { rowIndex(id).map { location(rows[$0]) } }

    /// The finished recordings not merged yet (few): their routes, metadata decoded.
    var recordedRoutes: [(id: RouteID, route: IndexedRoute)] {
        extras.compactMap { id, extra in extra.recorded == nil ? nil : self[id].map { (id, $0) } }
    }

    /// The first route (in no particular order) whose record location satisfies `test`.
    func firstID(where test: (RecordLocation) -> Bool) -> RouteID? {
        rows.first { test(location($0)) }?.id
    }

    /// Calls `body` with every live route's record location (its RoutePut's or
    /// RecordingFinish's), its latest edit's, and its recording's records when it is a
    /// recorded route not merged yet; nothing decoded.
    func forEachLocation(_ body: (RecordLocation, _ edit: RecordLocation?, _ recorded: IndexedRecording?) -> Void) {
        for row in rows {
            let extra = row.hasExtras ? extras[row.id] : nil
            body(location(row), extra?.editLocation, extra?.recorded)
        }
    }

    /// Points of every live route, from the rows.
    var pointCount: Int { rows.reduce(0) { $0 + Int($1.shape.pointCount) } }

    /// Calls `body` with every live route's id, shape and start (its first time plus
    /// its shift, ms), nothing decoded.
    func forEachRow(_ body: (RouteID, RouteShape, Int64) throws -> Void) rethrows {
        for row in rows { try body(row.id, row.shape, start(row)) }
    }

    /// Stores `route` under `id`, returning the route it replaces, if any.
    @discardableResult
    mutating func updateValue(_ route: IndexedRoute, forKey id: RouteID) -> IndexedRoute? {
        updateValue(route, encodedMetadata: nil, forKey: id)
    }

    /// Stores `route` under `id`; `encodedMetadata`, when given, is `route.metadata`
    /// as stored (an index record's bytes: kept as they are, not encoded again).
    @discardableResult
    mutating func updateValue(_ route: IndexedRoute, encodedMetadata: ArraySlice<UInt8>?, forKey id: RouteID) -> IndexedRoute? {
        let existing = rowIndex(id)
        let old = existing.map(route(at:))
        let start = metadataBytes.count
        if let encodedMetadata {
            metadataBytes.append(contentsOf: encodedMetadata)
        } else {
            var w = ByteWriter(capacity: 96)
            route.metadata.write(to: &w)
            metadataBytes.append(contentsOf: w.bytes)
        }
        let extra = Extras(editLocation: route.editLocation, recorded: route.recorded,
                           farLocation: Row.fits(route.location) ? nil : route.location)
        let hasExtras = !extra.isEmpty
        let row = Row(id: id, location: route.location, shape: route.shape, metadataStart: start,
                      metadataCount: metadataBytes.count - start, hasExtras: hasExtras)
        var hadExtras = false
        if let index = existing {
            deadMetadataBytes += rows[index].metadataCount
            hadExtras = rows[index].hasExtras
            rows[index] = row
        } else {
            _ = insertSlot(id, row: rows.count)
            rows.append(row)
        }
        if hasExtras { extras[id] = extra } else if hadExtras { extras[id] = nil }
        packMetadataIfWasteful()
        return old
    }

    /// Stores a route under `id` unless one is stored there already (then changes
    /// nothing and returns false): a route without an edit or a recording, its
    /// metadata given as stored (checked by the caller).
    mutating func insertIfNew(_ id: RouteID, location: RecordLocation, shape: RouteShape,
                              encodedMetadata: UnsafeRawBufferPointer) -> Bool {
        guard insertSlot(id, row: rows.count) else { return false }
        let start = metadataBytes.count
        metadataBytes.append(contentsOf: encodedMetadata)
        let row = Row(id: id, location: location, shape: shape, metadataStart: start, metadataCount: encodedMetadata.count,
                      hasExtras: false)
        if row.isFar { extras[id] = Extras(farLocation: location) }
        rows.append(row)
        return true
    }

    /// Removes route `id`, returning it.
    @discardableResult
    mutating func removeValue(forKey id: RouteID) -> IndexedRoute? {
        let removed: Int32? = rows.withUnsafeBufferPointer { r in slots.remove(id.rawValue) { r[Int($0)].id.rawValue } }
        guard let index = removed.map({ Int($0) }) else { return nil }
        let old = route(at: index)
        deadMetadataBytes += rows[index].metadataCount
        // The last row moves into the hole: rows stay dense, in no particular order.
        let lastIndex = rows.count - 1
        if index < lastIndex {
            rows.withUnsafeBufferPointer { r in slots.move(r[lastIndex].id.rawValue, to: Int32(index)) { r[Int($0)].id.rawValue } }
            rows[index] = rows[lastIndex]
        }
        rows.removeLast()
        extras[id] = nil
        if rows.isEmpty {
            metadataBytes = []
            deadMetadataBytes = 0
        }
        packMetadataIfWasteful()
        return old
    }

    /// True when route `id` has the same metadata in this table and in `other` (the
    /// encoded bytes first: equal bytes are equal metadata; different bytes may still
    /// decode to the same, so they are decoded then).
    func sameMetadata(_ id: RouteID, in other: RouteTable) -> Bool {
        guard let mine = rowIndex(id), let theirs = other.rowIndex(id) else { return false }
        if metadataSlice(rows[mine]).elementsEqual(other.metadataSlice(other.rows[theirs])) { return true }
        return route(at: mine).metadata == other.route(at: theirs).metadata
    }

    /// Route `id`'s metadata as the table keeps it: as stored where it came from a
    /// record, so that an index written again holds the same bytes (decoded and
    /// encoded again, a name of invalid UTF-8 would grow past its limit).
    func storedMetadata(_ id: RouteID) -> ArraySlice<UInt8>? {
        rowIndex(id).map { metadataSlice(rows[$0]) }
    }

    private func metadataSlice(_ row: Row) -> ArraySlice<UInt8> {
        metadataBytes[row.metadataStart..<row.metadataStart + row.metadataCount]
    }

    /// The summary of route `id`, decoding only what a summary shows.
    func summary(_ id: RouteID) -> RouteSummary? {
        rowIndex(id).map { summary(row: $0) }
    }

    /// Counts the route in row `index` (from ``starts``, the table unchanged since) in
    /// `ledger`, reading only the metadata's top (no field decoded).
    func addTotals(row index: Int, to ledger: inout TotalsLedger) {
        let row = rows[index]
        let view = MetadataView(checked: metadataSlice(row))
        ledger.add(row.id, row.shape, shiftMs: view.shiftMs, distance: view.distance, calories: view.calories)
    }

    /// The summaries of `rows`, in that order. A long list is made on every core, each
    /// worker making the summaries of a range of its own. Each worker reads its own copy
    /// of the metadata bytes: the slices a summary's decoding makes count references to
    /// the array they share, and workers counting on one array would fight over it.
    func summaries(rows order: [Int]) -> [RouteSummary] {
        let count = order.count
        let workers = Swift.min(ProcessInfo.processInfo.activeProcessorCount, count / Self.summariesPerWorker)
        guard workers > 1 else { return order.map { summary(rows[$0], metadata: metadataBytes) } }
        return [RouteSummary](unsafeUninitializedCapacity: count) { buffer, initialized in
            // Each worker initializes its own range of the buffer, and only that.
            nonisolated(unsafe) let out = buffer
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let own = metadataBytes.withUnsafeBufferPointer { Array($0) }
                let range = (count * worker / workers)..<(count * (worker + 1) / workers)
                for i in range { (out.baseAddress! + i).initialize(to: summary(rows[order[i]], metadata: own)) }
            }
            initialized = count
        }
    }

    /// The fewest summaries worth a worker of their own.
    static let summariesPerWorker = 4_096

    /// The summary of the route in row `index` (from ``starts``, the table unchanged since).
    func summary(row index: Int) -> RouteSummary { summary(rows[index], metadata: metadataBytes) }

    /// The summary of `row`, its metadata read from `metadata` (``metadataBytes`` or a copy).
    private func summary(_ row: Row, metadata: [UInt8]) -> RouteSummary {
        let bytes = metadata[row.metadataStart..<(row.metadataStart + row.metadataCount)]
        return row.shape.summary(id: row.id, metadata: StoredMetadata(MetadataView(checked: bytes), summaryOnly: true))
    }

    private func route(at index: Int) -> IndexedRoute {
        let row = rows[index]
        // The bytes were checked (or written) as metadata when the route came in.
        let metadata = StoredMetadata(MetadataView(checked: metadataSlice(row)))
        let extra = row.hasExtras ? extras[row.id] : nil
        return IndexedRoute(shape: row.shape, metadata: metadata, location: location(row),
                            editLocation: extra?.editLocation, recorded: extra?.recorded)
    }

    /// Rewrites the metadata bytes without the dead ones once they are over half.
    private mutating func packMetadataIfWasteful() {
        guard deadMetadataBytes > 64 * 1024, deadMetadataBytes * 2 > metadataBytes.count else { return }
        var packed: [UInt8] = []
        packed.reserveCapacity(metadataBytes.count - deadMetadataBytes)
        for i in rows.indices {
            let start = packed.count
            packed.append(contentsOf: metadataSlice(rows[i]))
            rows[i].metadataStart = start
        }
        metadataBytes = packed
        deadMetadataBytes = 0
    }
}

extension RouteTable: Sequence {
    /// Every live route with its id, its metadata decoded, in no particular order.
    func makeIterator() -> AnyIterator<(key: RouteID, value: IndexedRoute)> {
        var index = 0
        return AnyIterator {
            guard index < rows.count else { return nil }
            defer { index += 1 }
            return (rows[index].id, route(at: index))
        }
    }

    /// Every live route, its metadata decoded, in no particular order.
    var values: [IndexedRoute] { rows.indices.map(route(at:)) }

}
