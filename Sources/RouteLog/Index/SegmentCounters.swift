/// Per-segment numbers (covered end, live bytes) for the few segments of a store,
/// kept in arrays: replaying an index touches them once per record, and a dictionary
/// lookup there costs more than the record's own decoding.
struct SegmentCounters: Sendable {
    private(set) var numbers: [UInt32] = []
    private var values: [Int64] = []
    private var last = 0

    subscript(segment: UInt32) -> Int64? {
        get { slot(segment).map { values[$0] } }
    }

    private func slot(_ segment: UInt32) -> Int? {
        if last < numbers.count && numbers[last] == segment { return last }
        return numbers.firstIndex(of: segment)
    }

    private mutating func slotCreating(_ segment: UInt32) -> Int {
        if let i = slot(segment) {
            last = i
            return i
        }
        numbers.append(segment)
        values.append(0)
        last = numbers.count - 1
        return last
    }

    mutating func add(_ amount: Int64, to segment: UInt32) {
        values[slotCreating(segment)] += amount
    }

    mutating func raise(_ segment: UInt32, to value: Int64) {
        let i = slotCreating(segment)
        values[i] = max(values[i], value)
    }

    mutating func remove(_ segment: UInt32) {
        guard let i = slot(segment) else { return }
        numbers.remove(at: i)
        values.remove(at: i)
        last = 0
    }
}
