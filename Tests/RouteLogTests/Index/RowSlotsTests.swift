import Testing
@testable import RouteLog

/// RowSlots against a dictionary: seeded inserts, moves and removals of ids that count
/// up, random ids, and ids chosen to share their low bits (what a forged index could
/// hold), with rows kept dense the way ``RouteTable`` keeps them (the last row moves
/// into a removed one's place).
@Suite struct RowSlotsTests {
    /// A table and the rows it finds, mirrored by a dictionary.
    struct Model {
        var slots = RowSlots()
        var ids: [UInt64] = []
        var reference: [UInt64: Int32] = [:]

        mutating func insert(_ id: UInt64) {
            let inserted = ids.withUnsafeBufferPointer { r in slots.insertIfAbsent(id, row: Int32(ids.count)) { r[Int($0)] } }
            #expect(inserted == (reference[id] == nil))
            guard inserted else { return }
            reference[id] = Int32(ids.count)
            ids.append(id)
        }

        mutating func remove(_ id: UInt64) {
            let removed = ids.withUnsafeBufferPointer { r in slots.remove(id) { r[Int($0)] } }
            #expect(removed == reference[id])
            guard let row = removed.map({ Int($0) }) else { return }
            reference[id] = nil
            let last = ids.count - 1
            if row < last {
                let moved = ids[last]
                ids.withUnsafeBufferPointer { r in slots.move(moved, to: Int32(row)) { r[Int($0)] } }
                ids[row] = moved
                reference[moved] = Int32(row)
            }
            ids.removeLast()
        }

        func check(absent: [UInt64]) {
            #expect(slots.count == reference.count)
            ids.withUnsafeBufferPointer { r in
                for (id, row) in reference { #expect(slots.row(of: id) { r[Int($0)] } == row) }
                for id in absent where reference[id] == nil { #expect(slots.row(of: id) { r[Int($0)] } == nil) }
            }
        }
    }

    static func run(ids pick: (inout SeededGenerator) -> UInt64, seed: UInt64) {
        var g = SeededGenerator(state: seed)
        var model = Model()
        var seen: [UInt64] = []
        for step in 0..<20_000 {
            if Int.random(in: 0..<3, using: &g) < 2 || seen.isEmpty {
                let id = pick(&g)
                seen.append(id)
                model.insert(id)
            } else {
                model.remove(seen[Int.random(in: 0..<seen.count, using: &g)])
            }
            if step % 4_000 == 0 { model.check(absent: Array(seen.suffix(50)) + [0, .max]) }
        }
        model.check(absent: seen)
        // Emptied, the table still works.
        for id in Set(seen) { model.remove(id) }
        model.check(absent: seen)
        #expect(model.slots.count == 0)
        model.insert(7)
        model.check(absent: [8])
    }

    @Test func idsThatCountUp() {
        var next: UInt64 = 0
        Self.run(ids: { g in
            next += UInt64.random(in: 1...2, using: &g)
            return next
        }, seed: 1)
    }

    @Test func randomIDs() {
        Self.run(ids: { g in UInt64.random(in: 1...(1 << 62), using: &g) }, seed: 2)
    }

    /// Ids that differ only above bit 20, and a few repeated: long runs of equal low
    /// bits, and inserts of ids held already.
    @Test func idsSharingTheirLowBits() {
        Self.run(ids: { g in UInt64.random(in: 1...4_000, using: &g) << 20 | 5 }, seed: 3)
    }
}
