import CRouteLogSystem

/// Finds a live route's row from its id: an open-addressing table of row numbers, 4
/// bytes a slot and at most four fifths full (linear probing; a removal moves the rest
/// of its probe chain back instead of leaving a marker). The ids stay in the rows, read
/// through `idOf`, so the table costs 5 to 10 bytes a route where a dictionary from id
/// to row costs about 31.
///
/// The hash multiplies the id by an odd number of its own for each table, unknown
/// outside the process (``HashMultipliers``), and keeps the top bits (multiply-shift):
/// ids that count up spread evenly, and ids chosen to collide (a forged index) cannot
/// know the multiplier to make the probes long. A slot
/// keeps the next 8 bits of the hash beside the row number (while the table has at most
/// 2^24 slots), so a probe reads another route's row, a likely cache miss, only once in
/// 256 slots it passes.
struct RowSlots: Sendable {
    /// 0: an empty slot; otherwise the tag above ``rowBits`` and the row plus one below.
    private var slots: [UInt32]
    private var bits: Int
    private let multiplier: UInt64
    /// Rows the table holds.
    private(set) var count = 0

    init() {
        bits = 4
        slots = Array(repeating: 0, count: 1 << bits)
        multiplier = HashMultipliers.next()
    }

    private var mask: Int { (1 << bits) - 1 }

    /// True when `rows` rows leave a table of `slots` slots at most four fifths full
    /// (the tags keep the longer probes of a fuller table cheap: they pass slots
    /// without reading rows).
    private func fits(_ rows: Int, in slots: Int) -> Bool { rows * 5 <= slots * 4 }
    private var tagBits: Int { min(8, 32 - bits) }
    private var rowBits: Int { 32 - tagBits }
    /// The row number's bits of a slot (the tag is above them).
    private var rowMask: UInt32 { UInt32(truncatingIfNeeded: (UInt64(1) << UInt64(rowBits)) - 1) }

    /// The tag a slot holds (shifted in 64 bits: a shift by 32 there is no special case).
    private func tag(of held: UInt32) -> UInt32 { UInt32(truncatingIfNeeded: UInt64(held) &>> UInt64(rowBits)) }

    /// The slot where `id`'s probe starts and the tag its slot holds.
    private func hash(_ id: UInt64) -> (home: Int, tag: UInt32) {
        let h = id &* multiplier
        let home = Int(truncatingIfNeeded: h >> UInt64(64 - bits))
        let tag = UInt32(truncatingIfNeeded: (h << UInt64(bits)) >> UInt64(64 - tagBits))
        return (home, tagBits == 0 ? 0 : tag)
    }

    private func value(tag: UInt32, row: Int32) -> UInt32 {
        UInt32(truncatingIfNeeded: UInt64(tag) &<< UInt64(rowBits)) | UInt32(row + 1)
    }
    private func row(in value: UInt32) -> Int32 { Int32(value & rowMask) - 1 }

    /// The slot holding `id`'s row, or nil.
    private func slot(of id: UInt64, _ idOf: (Int32) -> UInt64) -> Int? {
        var (i, tag) = hash(id)
        while true {
            let held = slots[i]
            if held == 0 { return nil }
            if self.tag(of: held) == tag && idOf(row(in: held)) == id { return i }
            i = (i + 1) & mask
        }
    }

    /// Brings the slot where `id`'s probe starts into the cache: a loop that inserts
    /// ids it knows ahead of time asks for a later one's while it inserts this one's.
    mutating func prefetch(_ id: UInt64) {
        let home = hash(id).home
        slots.withUnsafeBufferPointer { routelog_prefetch($0.baseAddress! + home) }
    }

    /// The row of `id`, or nil.
    func row(of id: UInt64, _ idOf: (Int32) -> UInt64) -> Int32? {
        slot(of: id, idOf).map { row(in: slots[$0]) }
    }

    /// Adds `row` as the row of `id` unless the table holds `id` already (then changes
    /// nothing and returns false). `idOf` is not asked for `row`'s id.
    mutating func insertIfAbsent(_ id: UInt64, row: Int32, _ idOf: (Int32) -> UInt64) -> Bool {
        if !fits(count + 1, in: slots.count) { grow(toHold: count + 1, idOf) }
        precondition(row >= 0 && Int(row) < 1 << rowBits - 1, "row \(row) past the table's row numbers")
        var (i, tag) = hash(id)
        while true {
            let held = slots[i]
            if held == 0 { break }
            if self.tag(of: held) == tag && idOf(self.row(in: held)) == id { return false }
            i = (i + 1) & mask
        }
        slots[i] = value(tag: tag, row: row)
        count += 1
        return true
    }

    /// Makes `row` the row of `id`, which the table holds (a row moved).
    mutating func move(_ id: UInt64, to row: Int32, _ idOf: (Int32) -> UInt64) {
        guard let i = slot(of: id, idOf) else { preconditionFailure("moving the row of an id the table does not hold") }
        slots[i] = value(tag: hash(id).tag, row: row)
    }

    /// Removes `id`, returning its row, or nil when the table does not hold it.
    mutating func remove(_ id: UInt64, _ idOf: (Int32) -> UInt64) -> Int32? {
        guard var hole = slot(of: id, idOf) else { return nil }
        let removed = row(in: slots[hole])
        slots[hole] = 0
        count -= 1
        // Each later slot of the chain moves into the hole unless its home lies
        // (cyclically) after the hole and at or before the slot.
        var j = hole
        while true {
            j = (j + 1) & mask
            let held = slots[j]
            if held == 0 { break }
            let k = hash(idOf(row(in: held))).home
            let staysPut = hole <= j ? (hole < k && k <= j) : (hole < k || k <= j)
            if staysPut { continue }
            slots[hole] = held
            slots[j] = 0
            hole = j
        }
        return removed
    }

    /// Makes room for `capacity` rows without growing again.
    mutating func reserveCapacity(_ capacity: Int, _ idOf: (Int32) -> UInt64) {
        if !fits(capacity, in: slots.count) { grow(toHold: capacity, idOf) }
    }

    private mutating func grow(toHold capacity: Int, _ idOf: (Int32) -> UInt64) {
        var newBits = bits
        while !fits(capacity, in: 1 << newBits) { newBits += 1 }
        let old = slots, oldRowMask = rowMask
        bits = newBits
        slots = Array(repeating: 0, count: 1 << newBits)
        for held in old where held != 0 {
            let row = Int32(held & oldRowMask) - 1
            var (i, tag) = hash(idOf(row))
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = value(tag: tag, row: row)
        }
    }
}
