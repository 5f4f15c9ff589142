import Foundation

/// The live routes of the in-memory index, packed so that a route costs about the
/// bytes it has on disk: one fixed-width row a route in one array (its id, record
/// location and shape: ``Row``) and its metadata kept encoded, as stored (format-spec.md,
/// "Segment records": metadata) less a zero time shift (``MetadataForm``), in one byte
/// array shared by all rows.
/// Nothing a route holds is a heap object of its own, so opening a store allocates a
/// few large arrays instead of objects by the hundred thousand, and a copy (a snapshot
/// for verify, compaction or a reader) copies those arrays once, on first change.
///
/// An ``IndexedRoute`` is made on demand from a row, its metadata decoded then; the few
/// fields the index reads for every route (start, shape, location) are read from the
/// row without decoding. The rare parts (the latest edit's location, a finished
/// recording's records) live in a dictionary beside the rows.
struct RouteTable: Sendable {
    /// What few routes have: the latest edit's location and a recording's records, and
    /// the location and shape of a wide row (one they do not fit: ``Row``).
    private struct Extras: Sendable {
        var editLocation: RecordLocation?
        var recorded: IndexedRecording?
        var wide: (location: RecordLocation, shape: RouteShape)?

        var isEmpty: Bool { editLocation == nil && recorded == nil && wide == nil }
    }

    /// The bytes a row takes in ``rows`` (for the tests).
    static var rowStride: Int { MemoryLayout<Row>.stride }

    private var slots = RowSlots()
    private var rows: [Row] = []
    private var metadataBytes: [UInt8] = []
    /// Bytes of ``metadataBytes`` no row refers to any more (replaced or removed).
    private var deadMetadataBytes = 0
    /// Set while a packed run is applied: the metadata is not packed then, because the
    /// run's rows still to come point into the bytes it appended.
    private var packingHeld = false
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
        row.isWide ? extras[row.id]!.wide!.location : row.packedLocation
    }

    /// The shape of `row`'s route.
    private func shape(_ row: Row) -> RouteShape {
        row.isWide ? extras[row.id]!.wide!.shape : row.packedShape
    }

    /// Where route `row` starts: its first time plus the time shift its metadata holds.
    private func start(_ row: Row) -> Int64 {
        let firstMs = row.isWide ? extras[row.id]!.wide!.shape.firstMs : row.packedFirstMs
        return firstMs + metadataBytes.withUnsafeBytes { MetadataForm.shiftMs($0, at: row.metadataStart) }
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
    func shape(_ id: RouteID) -> RouteShape? { rowIndex(id).map { shape(rows[$0]) } }

    /// The shape and start (its first time plus its shift, ms) of route `id`, read from its row.
    func shapeAndStart(_ id: RouteID) -> (shape: RouteShape, startMs: Int64)? {
        rowIndex(id).map { rows[$0] }.map { (shape($0), start($0)) }
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
    var pointCount: Int { rows.reduce(0) { $0 + ($1.isWide ? Int(shape($1).pointCount) : $1.packedPointCount) } }

    /// Calls `body` with every live route's id, shape and start (its first time plus
    /// its shift, ms), nothing decoded.
    func forEachRow(_ body: (RouteID, RouteShape, Int64) throws -> Void) rethrows {
        for row in rows { try body(row.id, shape(row), start(row)) }
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
            encodedMetadata.withUnsafeBytes { MetadataForm.append(stored: $0, to: &metadataBytes) }
        } else {
            var w = ByteWriter(capacity: 96)
            route.metadata.write(to: &w)
            w.bytes.withUnsafeBytes { MetadataForm.append(stored: $0, to: &metadataBytes) }
        }
        let extra = Extras(editLocation: route.editLocation, recorded: route.recorded,
                           wide: Row.fits(route.location, route.shape) ? nil : (route.location, route.shape))
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
        MetadataForm.append(stored: encodedMetadata, to: &metadataBytes)
        let row = Row(id: id, location: location, shape: shape, metadataStart: start, metadataCount: metadataBytes.count - start,
                      hasExtras: false)
        if row.isWide { extras[id] = Extras(wide: (location, shape)) }
        rows.append(row)
        return true
    }

    /// Appends the metadata of a packed run (``PackedPutRun``) to the table's, returning
    /// where it starts: the base that ``insertIfNew(_:metadataBase:wide:)`` adds to
    /// the run's rows. Until ``forgetMetadata(_:)`` gives the bytes no row took, the
    /// metadata is not packed, whatever else changes meanwhile (a second put of an id
    /// replaces a route, and would pack the run's bytes away under the rows to come).
    mutating func appendMetadata(_ bytes: [UInt8]) -> Int {
        let base = metadataBytes.count
        metadataBytes.append(contentsOf: bytes)
        packingHeld = true
        return base
    }

    /// Counts `count` bytes of the metadata as taken by no row, the run appended with
    /// ``appendMetadata(_:)`` done.
    mutating func forgetMetadata(_ count: Int) {
        deadMetadataBytes += count
        packingHeld = false
        packMetadataIfWasteful()
    }

    /// Stores a packed row (its metadata appended with ``appendMetadata(_:)`` at
    /// `metadataBase`) unless its id has a route (then changes nothing and returns
    /// false); `wide` is its location and shape when the row is wide.
    mutating func insertIfNew(_ row: Row, metadataBase: Int, wide: (location: RecordLocation, shape: RouteShape)?) -> Bool {
        guard insertSlot(row.id, row: rows.count) else { return false }
        var row = row
        row.metadataStart += metadataBase
        if let wide { extras[row.id] = Extras(wide: wide) }
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
        if rows.isEmpty && !packingHeld {
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
        rowIndex(id).map { MetadataForm.stored(metadataSlice(rows[$0])) }
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
        ledger.add(row.id, shape(row), shiftMs: view.shiftMs, distance: view.distance, calories: view.calories)
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
        return shape(row).summary(id: row.id, metadata: StoredMetadata(MetadataView(checked: bytes), summaryOnly: true))
    }

    private func route(at index: Int) -> IndexedRoute {
        let row = rows[index]
        // The bytes were checked (or written) as metadata when the route came in.
        let metadata = StoredMetadata(MetadataView(checked: metadataSlice(row)))
        let extra = row.hasExtras ? extras[row.id] : nil
        return IndexedRoute(shape: shape(row), metadata: metadata, location: location(row),
                            editLocation: extra?.editLocation, recorded: extra?.recorded)
    }

    /// Rewrites the metadata bytes without the dead ones once they are over half.
    private mutating func packMetadataIfWasteful() {
        guard !packingHeld, deadMetadataBytes > 64 * 1024, deadMetadataBytes * 2 > metadataBytes.count else { return }
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
