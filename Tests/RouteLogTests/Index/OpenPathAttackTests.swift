import Foundation
import Testing
@testable import RouteLog

/// Attacks on the open path of a large index: a run made into rows on the read-ahead
/// thread (`PackedPutRun`, applied with `RouteIndex.applyPackedRun`) against the same
/// run's payload applied entry by entry (`applyPutRun`).
///
/// `applyPackedRun` appends the whole run's metadata to the table up front and adds the
/// base it got to each row it inserts afterwards. A put of an id the index already holds
/// (a forged index: "the last wins") takes the long way, `RouteTable.updateValue`, which
/// counts the replaced metadata dead; packing the table's metadata then would drop the
/// run's bytes not yet taken by a row, and every later row of the run would get a start
/// past the end of the packed bytes (an index out of range, or another route's bytes).
/// The table holds its packing until the run is applied; these tests found the trap.
@Suite struct OpenPathAttackTests {
    static let segment = PackedPutRunTests.segment

    static func shape(_ i: Int) -> RouteShape {
        RouteShape(firstMs: 1_700_000_000_000 + Int64(i) * 1000, durationMs: 60_000, pointCount: 10, distance: 12.5,
                   south: 480_000_000, west: 110_000_000, north: 480_100_000, east: 110_100_000,
                   startLat: 480_000_000, startLon: 110_000_000, endLat: 480_100_000, endLon: 110_100_000)
    }

    /// Run A puts routes `1...count` with names of 1,000 bytes; run B puts them again
    /// with no name (their old metadata turns dead, over half of the table's), then
    /// `extra` new routes. Locations increase through both runs.
    static func runs(count: Int, extra: Int, segment: UInt32 = segment, firstOffset: Int64 = 20) -> (a: [UInt8], b: [UInt8]) {
        var offset = firstOffset
        func entry(_ id: Int, _ name: String?) -> (id: UInt64, location: RecordLocation, shape: RouteShape, metadata: [UInt8]) {
            defer { offset += 100 }
            return (UInt64(id), RecordLocation(segment: segment, offset: offset, length: 100), shape(id),
                    IndexPutRunTests.encoded(StoredMetadata(RouteMetadata(name: name))))
        }
        let big = String(repeating: "x", count: 1000)
        let a = IndexPutRunTests.specPayload((1...count).map { entry($0, big) })
        let b = IndexPutRunTests.specPayload((1...count).map { entry($0, nil) }
                                             + ((count + 1)...(count + extra)).map { entry($0, "new \($0)") })
        return (a, b)
    }

    /// Run A applied entry by entry to both indexes, then run B both ways.
    static func midRunPackOutcome() throws -> (direct: PackedPutRunTests.Outcome, packed: PackedPutRunTests.Outcome) {
        let (a, b) = runs(count: 100, extra: 10)
        let segments = try PackedPutRunTests.segments()
        return try PackedPutRunTests.bothWays(b) { index in
            var order = LocationOrder(segments: segments)
            try! index.applyPutRun(a[...], order: &order)
        }
    }

    /// DEFECT: a run whose puts of ids already there make the table pack its metadata
    /// part way through the run. Applied entry by entry it gives 110 routes, the new
    /// ones named "new 101"..."new 110"; packed, the rows after the packing point past
    /// the metadata (the process traps: "Array index is out of range"). Run in a child
    /// process so that the trap fails this test instead of ending the run.
    @Test func aRunRepeatingIDsAppliesPackedAsByEntry() async {
        await #expect(processExitsWith: .success) {
            let outcome = try OpenPathAttackTests.midRunPackOutcome()
            guard outcome.packed == outcome.direct else { exit(1) }
        }
    }

    /// The same with the entry path alone (no defect there): the 10 new routes keep
    /// their names, the 100 repeated ones lose theirs (the last put wins).
    @Test func aRunRepeatingIDsAppliesByEntry() throws {
        let (a, b) = Self.runs(count: 100, extra: 10)
        var index = RouteIndex()
        var order = LocationOrder(segments: try PackedPutRunTests.segments())
        try index.applyPutRun(a[...], order: &order)
        try index.applyPutRun(b[...], order: &order)
        #expect(index.routes.count == 110)
        #expect(index.routes[RouteID(50)]?.metadata.name == nil)
        #expect(index.routes[RouteID(105)]?.metadata.name == "new 105")
    }

    /// DEFECT, end to end: a forged index of over 1 MiB (so it is read ahead, and the
    /// second run made into rows on the read-ahead thread while the first is applied)
    /// whose second run repeats the first run's ids. Opening the store must not trap
    /// (format-spec.md, "Bounds on hostile files"; "a second RoutePut of an id (a
    /// forged log: the last wins)"). Whether the second run is packed depends on the
    /// two threads' timing, so the store is opened a few times.
    @Test func openingAForgedIndexRepeatingIDsAcrossRunsDoesNotTrap() async throws {
        let dir = TemporaryDirectory()
        let (url, entries) = try IndexPutRunTests.puts(dir, count: 1)
        let first = entries[0].location
        let (a, b) = Self.runs(count: 1_100, extra: 50, segment: first.segment, firstOffset: first.end)
        try IndexPutRunTests.forgeIndex(url, [(.indexPutRun, a), (.indexPutRun, b)])
        let path = url.path
        await #expect(processExitsWith: .success) { [path = path as String] in
            for _ in 0..<5 {
                let store = try RouteStore(at: URL(fileURLWithPath: path), options: .init(mode: .readOnly))
                _ = try store.summaries()
                try store.close()
            }
        }
    }

    /// No defect: runs applied one after another, both ways, to indexes alike: ids
    /// repeated within and across runs, metadata with a time shift (not zero, negative
    /// too, which the table's form keeps; zero, which it leaves out), wide rows, a route
    /// turning wide or narrow when put again. The routes, rows, stored metadata, starts
    /// (first time plus shift, read from the rows), counters and summaries agree. (The
    /// metadata is kept small, so that no packing of the table happens part way through
    /// a run: that case is `aRunRepeatingIDsAppliesPackedAsByEntry`.)
    @Test func aSequenceOfRunsAppliesPackedAsByEntry() throws {
        var g = SeededGenerator(seed: 2026)
        let segments = try PackedPutRunTests.segments()
        var repeats = 0, shifted = 0, wide = 0
        for round in 0..<150 {
            var byEntry = RouteIndex(), packed = RouteIndex()
            var entryOrder = LocationOrder(segments: segments), packedOrder = LocationOrder(segments: segments)
            var offset: Int64 = 20
            var seen = Set<UInt64>()
            for _ in 0..<Int.random(in: 1...4, using: &g) {
                var entries: [(id: UInt64, location: RecordLocation, shape: RouteShape, metadata: [UInt8])] = []
                for _ in 0..<Int.random(in: 1...40, using: &g) {
                    let id = UInt64.random(in: 1...30, using: &g)
                    if !seen.insert(id).inserted { repeats += 1 }
                    let isWide = Int.random(in: 0..<4, using: &g) == 0
                    var shape = Self.shape(Int(id))
                    shape.durationMs = isWide ? 1 << 38 : Int64.random(in: 0...3_600_000, using: &g)
                    let shift: Int64 = [0, 0, 3_600_000, -86_400_000, 1].randomElement(using: &g)!
                    let name = Bool.random(using: &g) ? "r\(id)-\(round)" : nil
                    let metadata = StoredMetadata(RouteMetadata(name: name, calories: Bool.random(using: &g) ? 12.5 : nil), shiftMs: shift)
                    shifted += shift != 0 ? 1 : 0
                    wide += isWide ? 1 : 0
                    let length = Int.random(in: 16...400, using: &g)
                    entries.append((id, RecordLocation(segment: Self.segment, offset: offset, length: length), shape,
                                    IndexPutRunTests.encoded(metadata)))
                    offset += Int64(length)
                }
                let payload = IndexPutRunTests.specPayload(entries)
                try byEntry.applyPutRun(payload[...], order: &entryOrder)
                try packed.applyPackedRun(PackedPutRun(payload[...]), order: &packedOrder)
            }
            func starts(_ index: RouteIndex) -> [String] {
                index.routes.starts.map { "\($0.id) \($0.start)" }.sorted()
            }
            #expect(starts(packed) == starts(byEntry), "round \(round)")
            #expect(packed.sortedSummaries() == byEntry.sortedSummaries(), "round \(round)")
            let entryOutcome = PackedPutRunTests.outcome(byEntry, &entryOrder, failure: nil)
            let packedOutcome = PackedPutRunTests.outcome(packed, &packedOrder, failure: nil)
            #expect(packedOutcome == entryOutcome, "round \(round)")
        }
        #expect(repeats > 500 && shifted > 500 && wide > 300, "\(repeats) \(shifted) \(wide)")
    }
}
