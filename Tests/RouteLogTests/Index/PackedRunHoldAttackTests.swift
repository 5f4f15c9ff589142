import Foundation
import Testing
@testable import RouteLog

/// Attacks on the hold of a packed run's metadata (`RouteTable.packingHeld`, set by `appendMetadata` and
/// cleared by `forgetMetadata`) and on the read-ahead handoff of a large index's open.
///
/// The table's private state (its metadata bytes, the dead bytes counted, the hold and
/// the rows) is read through `Mirror`, so that the accounting can be checked exactly:
/// after every run, applied either way and whether it threw or not, the hold is off,
/// the bytes no live row refers to are exactly those counted dead, and the live rows'
/// metadata ranges lie inside the bytes without overlapping.
@Suite struct PackedRunHoldAttackTests {
    static let segment = PackedPutRunTests.segment
    typealias Entry = (id: UInt64, location: RecordLocation, shape: RouteShape, metadata: [UInt8])

    // MARK: The table's private state

    struct TableState {
        var held: Bool
        var bytes: Int
        var dead: Int
        var rows: [(start: Int, count: Int)]
    }

    static func state(_ table: RouteTable) -> TableState {
        let mirror = Mirror(reflecting: table)
        let held = mirror.descendant("packingHeld") as! Bool
        let bytes = (mirror.descendant("metadataBytes") as! [UInt8]).count
        let dead = mirror.descendant("deadMetadataBytes") as! Int
        let rows = (mirror.descendant("rows") as! [RouteTable.Row]).map { ($0.metadataStart, $0.metadataCount) }
        return TableState(held: held, bytes: bytes, dead: dead, rows: rows)
    }

    /// The hold is off, the dead bytes counted are exactly the bytes no live row takes,
    /// and the live rows' ranges are inside the bytes and do not overlap.
    static func checkAccounting(_ table: RouteTable, _ note: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let s = state(table)
        #expect(!s.held, "the hold is off after the run (\(note))", sourceLocation: sourceLocation)
        let live = s.rows.reduce(0) { $0 + $1.count }
        #expect(s.bytes - s.dead == live, "dead bytes counted exactly: \(s.bytes) bytes, \(s.dead) dead, \(live) live (\(note))",
                sourceLocation: sourceLocation)
        var end = 0
        for row in s.rows.sorted(by: { $0.start < $1.start }) where row.count > 0 {
            #expect(row.start >= end && row.start + row.count <= s.bytes, "row range \(row) (\(note))", sourceLocation: sourceLocation)
            end = row.start + row.count
        }
    }

    struct StoredRoute: Equatable {
        var id: UInt64
        var location: RecordLocation
        var shape: String
        var metadata: [UInt8]
        var edit: RecordLocation?
    }

    /// Each route's id, location, shape, stored metadata and edit location (the
    /// metadata kept as bytes: made into text, kilobytes of it are slow to compare).
    static func routes(_ index: RouteIndex) -> [StoredRoute] {
        index.routes.ids.sorted { $0.rawValue < $1.rawValue }.map { id in
            let route = index.routes[id]!
            return StoredRoute(id: id.rawValue, location: route.location, shape: "\(route.shape)",
                               metadata: Array(index.routes.storedMetadata(id)!), edit: route.editLocation)
        }
    }

    /// Metadata named `name` (nil: none) with notes of `pad` bytes (at most 4,096: the
    /// format's limit; a name is at most 1,024).
    static func metadata(_ name: String?, pad: Int = 0) -> RouteMetadata {
        RouteMetadata(name: name, notes: pad > 0 ? String(repeating: "p", count: min(pad, FormatConstants.maxNotesBytes)) : nil)
    }

    static func entry(_ id: UInt64, offset: inout Int64, name: String?, pad: Int = 0, wide: Bool = false, shift: Int64 = 0) -> Entry {
        var shape = OpenPathAttackTests.shape(Int(id))
        if wide { shape.durationMs = 1 << 38 }
        defer { offset += 100 }
        return (id, RecordLocation(segment: segment, offset: offset, length: 100), shape,
                IndexPutRunTests.encoded(StoredMetadata(metadata(name, pad: pad), shiftMs: shift)))
    }

    // MARK: 1. The hold after a run that throws

    /// A run that throws part way (a location out of order: `LocationOrder.Ahead`; a
    /// run cut short: its failure), after a first run of large metadata and with puts
    /// repeating its ids (so that the table would pack in the middle): the hold is off
    /// after the throw, the accounting is exact, and the index used further (more runs
    /// repeating ids, deletes down to a few routes, which packs) keeps every live
    /// route's metadata, as the entry path does.
    @Test(arguments: ["ahead", "cut", "foreignSegment"])
    func aRunThatThrowsLeavesNoHold(_ kind: String) throws {
        let segments = try PackedPutRunTests.segments()
        var offset: Int64 = 20
        let a = IndexPutRunTests.specPayload((1...120).map { Self.entry(UInt64($0), offset: &offset, name: "big \($0)", pad: 1_500) })
        var bEntries = (1...120).map { Self.entry(UInt64($0), offset: &offset, name: nil) }
            + (121...160).map { Self.entry(UInt64($0), offset: &offset, name: "new \($0)", wide: $0 % 7 == 0) }
        switch kind {
        case "ahead": bEntries[130].location.offset = 20  // before the previous location: Ahead
        case "foreignSegment": bEntries[130].location.segment = 77  // no such segment: Ahead
        default: break
        }
        var b = IndexPutRunTests.specPayload(bEntries)
        if kind == "cut" { b.removeLast(5) }  // the last put's metadata cut: the run's failure

        var byEntry = RouteIndex(), packed = RouteIndex()
        var entryOrder = LocationOrder(segments: segments), packedOrder = LocationOrder(segments: segments)
        try byEntry.applyPutRun(a[...], order: &entryOrder)
        try packed.applyPackedRun(PackedPutRun(a[...]), order: &packedOrder)
        Self.checkAccounting(packed.routes, "run A")
        var entryError: (any Error)?, packedError: (any Error)?
        do { try byEntry.applyPutRun(b[...], order: &entryOrder) } catch { entryError = error }
        do { try packed.applyPackedRun(PackedPutRun(b[...]), order: &packedOrder) } catch { packedError = error }
        #expect(entryError != nil && packedError != nil, "\(kind): run B throws both ways")
        #expect(type(of: entryError!) == type(of: packedError!))
        Self.checkAccounting(packed.routes, "\(kind): run B threw")
        #expect(Self.routes(packed) == Self.routes(byEntry), "\(kind): the routes after the throw")

        // Used further, as a caller that ignores the throw would.
        var fresh = LocationOrder(segments: segments)
        offset = 1 << 30
        let c = IndexPutRunTests.specPayload((1...60).map { Self.entry(UInt64($0), offset: &offset, name: "again \($0)", pad: 1_500) })
        try byEntry.applyPutRun(c[...], order: &fresh)
        var packedFresh = LocationOrder(segments: segments)
        try packed.applyPackedRun(PackedPutRun(c[...]), order: &packedFresh)
        Self.checkAccounting(packed.routes, "\(kind): run C")
        for id in 1...110 {
            let location = RecordLocation(segment: Self.segment, offset: (1 << 31) + Int64(id) * 50, length: 50)
            byEntry.apply(.delete(RouteID(UInt64(id)), location))
            packed.apply(.delete(RouteID(UInt64(id)), location))
        }
        Self.checkAccounting(packed.routes, "\(kind): after deletes")
        #expect(Self.routes(packed) == Self.routes(byEntry), "\(kind): the routes after deletes")
        #expect(!Self.routes(packed).isEmpty)
    }

    // MARK: 1. Other paths of the table while a run is held

    /// Straight on the table, between `appendMetadata` and `forgetMetadata`: rows of the
    /// run inserted, then an edit (`updateValue` with an edit location and a recording's
    /// records), a removal down to no row at all, a route replaced many times over (dead
    /// bytes far past half), then the rest of the run's rows. No path moves or clears
    /// the run's bytes while held; after `forgetMetadata` the table packs and every
    /// route reads back its own metadata.
    @Test func noTablePathMovesARunsBytesWhileHeld() throws {
        var offset: Int64 = 20
        var entries: [Entry] = []
        for i in 1...40 {
            let shift: Int64 = i % 5 == 0 ? 3_600_000 : 0
            entries.append(Self.entry(UInt64(i), offset: &offset, name: "run row \(i)", pad: 900, wide: i % 9 == 0, shift: shift))
        }
        let packed = PackedPutRun(IndexPutRunTests.specPayload(entries)[...])
        #expect(packed.failure == nil && packed.rows.count == 40)

        var table = RouteTable()
        // A route there before, with large metadata, replaced over and over while held.
        func route(_ name: String, edited: Bool = false, recorded: Bool = false) -> IndexedRoute {
            var r = IndexedRoute(shape: OpenPathAttackTests.shape(999), metadata: StoredMetadata(Self.metadata(name, pad: 4_000)),
                                 location: RecordLocation(segment: Self.segment, offset: 1 << 20, length: 100))
            if edited { r.edited(StoredMetadata(RouteMetadata(name: name + " edited")), at: RecordLocation(segment: Self.segment, offset: 1 << 21, length: 60)) }
            if recorded {
                r.recorded = IndexedRecording(start: RecordLocation(segment: Self.segment, offset: 1 << 22, length: 40), startedMs: 1,
                                              metadata: StoredMetadata(RouteMetadata(name: "rec")))
            }
            return r
        }
        table.updateValue(route("before"), forKey: RouteID(999))
        let base = table.appendMetadata(packed.metadata)
        var taken = 0
        func insert(_ i: Int) {
            let ok = table.insertIfNew(packed.rows[i], metadataBase: base, wide: packed.rows[i].isWide ? packed.wide[i] : nil)
            #expect(ok)
            taken += packed.rows[i].metadataCount
        }
        for i in 0..<10 { insert(i) }
        // Replaced many times: about 200 KB dead, far past half of the bytes.
        for n in 0..<50 { table.updateValue(route("\(n)", edited: n % 2 == 0, recorded: n % 3 == 0), forKey: RouteID(999)) }
        #expect(Self.state(table).dead > 64 * 1024 && Self.state(table).dead * 2 > Self.state(table).bytes, "the table would pack now")
        #expect(Self.state(table).held)
        // Removed down to no row at all.
        for id in 1...10 { table.removeValue(forKey: RouteID(UInt64(id))) }
        table.removeValue(forKey: RouteID(999))
        #expect(table.isEmpty)
        #expect(Self.state(table).bytes > 0, "the run's bytes are kept while held, though no row is left")
        for i in 10..<40 { insert(i) }
        // Another route in, with an edit and a recording's records.
        table.updateValue(route("after", edited: true, recorded: true), forKey: RouteID(1_000))
        table.forgetMetadata(packed.metadata.count - taken)
        Self.checkAccounting(table, "after forget")
        #expect(Self.state(table).dead == 0, "forget packed the dead bytes away")
        for i in 10..<40 {
            let id = packed.rows[i].id
            #expect(Array(table.storedMetadata(id)!) == entries[i].metadata, "route \(id) reads its own metadata")
            #expect(table[id]!.shape == entries[i].shape && table[id]!.location == entries[i].location)
        }
        #expect(table[RouteID(1_000)]!.metadata.name == "after edited")
        #expect(table[RouteID(1_000)]!.editLocation != nil && table[RouteID(1_000)]!.recorded != nil)
        #expect(table.count == 31)
    }

    /// A table copied (copy on write) while a run is held: the copy keeps the hold, so
    /// it never packs however much of its metadata turns dead, until a run of its own
    /// ends. (Not reachable from `RouteIndex`, which holds only inside
    /// `applyPackedRun`; this pins the behaviour down.) The original, once forgotten,
    /// packs; both read every route right.
    @Test func aTableCopiedWhileHeldReadsRight() throws {
        var offset: Int64 = 20
        let entries = (1...30).map { Self.entry(UInt64($0), offset: &offset, name: nil, pad: 4_000) }
        let packed = PackedPutRun(IndexPutRunTests.specPayload(entries)[...])
        var table = RouteTable()
        let base = table.appendMetadata(packed.metadata)
        for i in 0..<30 { _ = table.insertIfNew(packed.rows[i], metadataBase: base, wide: nil) }
        var copy = table
        table.forgetMetadata(0)
        for id in 1...25 {
            table.removeValue(forKey: RouteID(UInt64(id)))
            copy.removeValue(forKey: RouteID(UInt64(id)))
        }
        Self.checkAccounting(table, "original")
        #expect(Self.state(table).bytes < 60_000, "the original packed")
        let copied = Self.state(copy)
        #expect(copied.held && copied.dead > 64 * 1024 && copied.dead * 2 > copied.bytes, "the copy still holds: \(copied.dead) dead")
        for id in 26...30 {
            #expect(Array(table.storedMetadata(RouteID(UInt64(id)))!) == entries[id - 1].metadata)
            #expect(Array(copy.storedMetadata(RouteID(UInt64(id)))!) == entries[id - 1].metadata)
        }
    }

    // MARK: 1. Accounting over many runs

    /// Many runs with ids repeated within and across runs, large and small metadata (the
    /// table wants to pack in the middle of most runs), shifts, wide rows, deletes and
    /// edits between the runs, and each run applied at random packed or by its payload
    /// (as the handoff does): after every step the hold is off and the dead bytes are
    /// exact; at the end, deletes down to a few routes pack the metadata, and every
    /// route's stored metadata is the entry path's.
    @Test func accountingIsExactOverManyRunsWithRepeatedIDs() throws {
        let segments = try PackedPutRunTests.segments()
        var g = SeededGenerator(seed: 52_07_3)
        var packsSeen = 0
        for round in 0..<8 {
            var byEntry = RouteIndex(), mixed = RouteIndex()
            var entryOrder = LocationOrder(segments: segments), mixedOrder = LocationOrder(segments: segments)
            var offset: Int64 = 20
            var previousBytes = 0
            for step in 0..<25 {
                if Int.random(in: 0..<4, using: &g) == 0, let victim = mixed.routes.ids.randomElement(using: &g) {
                    // A delete or an edit between runs (single records of the index).
                    let location = RecordLocation(segment: Self.segment, offset: offset, length: 40)
                    offset += 40
                    let event: LogEvent = Bool.random(using: &g)
                        ? .delete(victim, location)
                        : .edit(victim, StoredMetadata(Self.metadata("edit \(step)", pad: Int.random(in: 0...3_000, using: &g))), location)
                    for order in [0, 1] {
                        if order == 0 { try entryOrder.admit(location); byEntry.apply(event) } else { try mixedOrder.admit(location); mixed.apply(event) }
                    }
                }
                var entries: [Entry] = []
                for _ in 0..<Int.random(in: 1...80, using: &g) {
                    let id = UInt64.random(in: 1...60, using: &g)
                    let size = [0, 10, 2_000, 4_000].randomElement(using: &g)!
                    entries.append(Self.entry(id, offset: &offset, name: size == 0 ? nil : "\(id)/\(step)", pad: size,
                                              wide: Int.random(in: 0..<8, using: &g) == 0,
                                              shift: [0, 0, 0, 60_000, -3_600_000].randomElement(using: &g)!))
                }
                let payload = IndexPutRunTests.specPayload(entries)
                try byEntry.applyPutRun(payload[...], order: &entryOrder)
                if Bool.random(using: &g) {
                    try mixed.applyPackedRun(PackedPutRun(payload[...]), order: &mixedOrder)
                } else {
                    try mixed.applyPutRun(payload[...], order: &mixedOrder)
                }
                let s = Self.state(mixed.routes)
                if s.bytes < previousBytes { packsSeen += 1 }
                previousBytes = s.bytes
                Self.checkAccounting(mixed.routes, "round \(round) step \(step)")
                #expect(Self.routes(mixed) == Self.routes(byEntry), "round \(round) step \(step)")
            }
            for id in mixed.routes.ids.shuffled(using: &g).dropLast(3) {
                let location = RecordLocation(segment: Self.segment, offset: offset, length: 40)
                offset += 40
                byEntry.apply(.delete(id, location))
                mixed.apply(.delete(id, location))
            }
            Self.checkAccounting(mixed.routes, "round \(round) end")
            #expect(Self.routes(mixed) == Self.routes(byEntry), "round \(round) end")
            #expect(mixed.sortedSummaries() == byEntry.sortedSummaries())
        }
        #expect(packsSeen > 12, "the metadata was packed between runs \(packsSeen) times")
    }
}
