import Foundation
import Testing
@testable import RouteLog

/// Attacks on the route table's open-addressing slots: copies of a table changed apart
/// (the snapshots verify, compaction and readers take while the writer goes on), ids
/// made to share every bit but the top ones or to sit at the ends of the id range, and
/// growth from empty to tens of thousands of routes and back.
@Suite struct RowSlotsAttackTests {
    /// A table and its dictionary, changed together.
    struct Pair {
        var table = RouteTable()
        var reference: [RouteID: IndexedRoute] = [:]

        mutating func change(_ g: inout SeededGenerator, ids: [RouteID]) {
            let id = ids[Int(g.next() % UInt64(ids.count))]
            let notes = g.next() % 16 == 0 ? 3000 : 0
            switch g.next() % 5 {
            case 0, 1:
                let route = RouteTableTests.route(&g, notes: notes)
                #expect(table.updateValue(route, forKey: id) == reference.updateValue(route, forKey: id))
            case 2:
                // The path an index record's put takes: refused for a stored id.
                let route = RouteTableTests.route(&g, notes: 0)
                var w = ByteWriter(capacity: 128)
                route.metadata.write(to: &w)
                let inserted = w.bytes.withUnsafeBytes {
                    table.insertIfNew(id, location: route.location, shape: route.shape, encodedMetadata: $0)
                }
                #expect(inserted == (reference[id] == nil))
                if inserted { reference[id] = IndexedRoute(shape: route.shape, metadata: route.metadata, location: route.location) }
            case 3:
                #expect(table.removeValue(forKey: id) == reference.removeValue(forKey: id))
            default:
                RouteTableTests.editAlike(id, &table, &reference, &g, notes: notes)
            }
        }
    }

    /// Ids that differ only in their top bits, ids at the top of the range, and small
    /// ones: a multiply-shift hash keeps the top bits of a product, so these are the
    /// inputs where a weak multiplier would send many to one slot.
    static let awkwardIDs: [RouteID] = (1...200).map { RouteID(UInt64($0) << 52) }
        + (0..<100).map { RouteID(FormatConstants.maxRouteID - UInt64($0)) }
        + (1...100).map { RouteID(UInt64($0)) }
        + (1...100).map { RouteID(UInt64($0) << 32 | 0xFFFF_FFFF) }

    /// A table is copied at every hundredth change; the copy is changed apart for a
    /// while, and then both must still be what their dictionaries say: a change to one
    /// never shows in the other, through growth, repacking and rows moved by removals.
    @Test(arguments: [UInt64(5), 6]) func copiesChangedApartStayApart(seed: UInt64) {
        var g = SeededGenerator(state: seed)
        var original = Pair()
        for step in 0..<2_000 {
            original.change(&g, ids: Self.awkwardIDs)
            guard step % 100 == 99 else { continue }
            let frozen = original
            var copy = original
            for _ in 0..<150 { copy.change(&g, ids: Self.awkwardIDs) }
            RouteTableTests.expectSame(frozen.table, frozen.reference)
            RouteTableTests.expectSame(original.table, frozen.reference)
            RouteTableTests.expectSame(copy.table, copy.reference)
            if step % 500 == 499 { original = copy }
        }
        RouteTableTests.expectSame(original.table, original.reference)
    }

    /// 40,000 routes of ids that differ only above bit 41, in and out twice: every one
    /// found while held, none after removal, and the table empty at the end.
    @Test func growthToManyAwkwardIDsAndBack() {
        var slots = RowSlots()
        var ids: [UInt64] = []
        let all = (1...40_000).map { UInt64($0) << 42 | 3 }
        for round in 0..<2 {
            for id in all {
                let inserted = ids.withUnsafeBufferPointer { r in slots.insertIfAbsent(id, row: Int32(ids.count)) { r[Int($0)] } }
                #expect(inserted)
                ids.append(id)
            }
            #expect(slots.count == all.count)
            ids.withUnsafeBufferPointer { r in
                #expect(all.allSatisfy { id in slots.row(of: id) { r[Int($0)] }.map { r[Int($0)] } == id })
                #expect(slots.row(of: 1 << 42) { r[Int($0)] } == nil)
            }
            // Removed in an order of their own (a stride prime to the count), the last
            // row moving into each hole as the table's rows do.
            for k in 0..<all.count {
                let id = all[(k * 7_919 + round) % all.count]
                let row = ids.withUnsafeBufferPointer { r in slots.remove(id) { r[Int($0)] } }
                #expect(row.map { ids[Int($0)] } == id)
                guard let row = row.map(Int.init) else { continue }
                let last = ids.count - 1
                if row < last {
                    let moved = ids[last]
                    ids.withUnsafeBufferPointer { r in slots.move(moved, to: Int32(row)) { r[Int($0)] } }
                    ids[row] = moved
                }
                ids.removeLast()
            }
            #expect(slots.count == 0 && ids.isEmpty)
        }
    }
}
